//! "Did you mean": a 404 that names what was not found and the nearest names the caller
//! may see, so a typo costs one look rather than a search. Only names the caller may see
//! are ever offered, so a 404 for a hidden monorepo reads exactly like one for a missing
//! name.

use axum::http::StatusCode;
use svc_protocol::ErrorCode;

use crate::error::ApiError;

/// How many names one 404 offers at most.
const MAX_SUGGESTIONS: usize = 3;

/// How much of the asked name a 404 repeats (it is the caller's own input).
const MAX_ECHO: usize = 100;

/// 404 `not_found`: "{what} {within}{name} not found", then "; did you mean
/// {within}a, {within}b?" when some of `visible` (names the caller may see) are near
/// `name`. `within` names where they were looked for (`owner/monorepo/` for a repo).
pub fn not_found<'a>(
    what: &str,
    within: &str,
    name: &str,
    visible: impl IntoIterator<Item = &'a str>,
) -> ApiError {
    let mut message = format!("{what} {within}{} not found", printable(name));
    let near: Vec<String> = nearest(name, visible)
        .into_iter()
        .map(|n| format!("{within}{n}"))
        .collect();
    if !near.is_empty() {
        message.push_str(&format!("; did you mean {}?", near.join(", ")));
    }
    ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, message)
}

/// The candidates within a third of the name's length in edits (a swap of two letters
/// is one edit), nearest first, then those the name is the first or last part of
/// (`api` for `services-api`, a repo at `services/api`); never the name itself.
fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let wanted = name.to_lowercase();
    let limit = (wanted.chars().count() / 3).max(1);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let candidate = c.to_lowercase();
            let distance = strsim::osa_distance(&wanted, &candidate);
            if distance > 0 && distance <= limit {
                Some((distance, c))
            } else {
                (distance > 0 && is_part(&wanted, &candidate)).then_some((limit + 1, c))
            }
        })
        .collect();
    scored.sort_unstable();
    scored.dedup();
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, c)| c)
        .collect()
}

/// Whether `part` is a whole first or last part of `name`, parts split by `-`, `_`,
/// `/` or `.`.
fn is_part(part: &str, name: &str) -> bool {
    let separated = |rest: &str, at_end: bool| {
        let c = if at_end {
            rest.chars().next_back()
        } else {
            rest.chars().next()
        };
        c.is_some_and(|c| matches!(c, '-' | '_' | '/' | '.'))
    };
    !part.is_empty()
        && (name
            .strip_suffix(part)
            .is_some_and(|rest| separated(rest, true))
            || name
                .strip_prefix(part)
                .is_some_and(|rest| separated(rest, false)))
}

/// The name as it may be repeated: control characters replaced, and cut short.
fn printable(name: &str) -> String {
    let mut out: String = name
        .chars()
        .take(MAX_ECHO)
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    if name.chars().count() > MAX_ECHO {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_are_offered_nearest_first() {
        let names = ["you/web", "you/api", "you/webby", "them/web"];
        assert_eq!(nearest("you/wbe", names), ["you/web"]);
        assert_eq!(nearest("you/weby", names), ["you/web", "you/webby"]);
        assert!(nearest("you/zzzzz", names).is_empty());
        assert!(nearest("you/web", names).iter().all(|n| *n != "you/web"));
        // A part of a longer name: the repo at services/api is named services-api.
        let repos = ["services-api", "web-client", "api-docs", "rapid"];
        assert_eq!(nearest("api", repos), ["api-docs", "services-api"]);
        assert_eq!(nearest("client", repos), ["web-client"]);
    }

    #[test]
    fn the_message_names_the_thing_and_the_suggestions() {
        let e = not_found("monorepo", "", "you/wbe", ["you/web", "me/other"]);
        assert_eq!(e.status, StatusCode::NOT_FOUND);
        assert_eq!(
            e.message,
            "monorepo you/wbe not found; did you mean you/web?"
        );
        let e = not_found("branch", "", "zzz\u{1b}[31m", ["main"]);
        assert_eq!(e.message, "branch zzz\u{fffd}[31m not found");
        let e = not_found("repo", "you/web/", "apii", ["api", "web"]);
        assert_eq!(
            e.message,
            "repo you/web/apii not found; did you mean you/web/api?"
        );
    }
}
