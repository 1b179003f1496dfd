//! The checks section of the branch and commit pages (`templates/checks.html`): the
//! Checks object of one commit, as a table.

use svc_protocol::branch::Checks;

use super::home::{human, rfc3339};

/// Rows of the checks table shown at most.
const CHECKS_MAX: usize = 30;

pub struct ChecksView {
    /// The commit the checks are of, and its short form.
    pub sha: String,
    pub short: String,
    /// Where the whole answer is, as JSON, when there are more than the table shows.
    pub json_href: String,
    pub state: String,
    /// The state in words (`not built`).
    pub state_text: String,
    pub rows: Vec<CheckRow>,
    pub hidden: usize,
    pub missing: Vec<String>,
    pub unknown: Option<String>,
    pub required_none: bool,
}

pub struct CheckRow {
    pub context: String,
    pub state: &'static str,
    pub link: Option<String>,
    pub description: Option<String>,
    pub creator: String,
    pub at: String,
    pub when: String,
    pub required: bool,
}

/// A link a check may carry: http or https only, never a script.
fn safe_link(url: Option<&str>) -> Option<String> {
    let parsed = url::Url::parse(url?).ok()?;
    matches!(parsed.scheme(), "http" | "https").then(|| parsed.to_string())
}

/// The first ten hex digits of a sha.
pub fn short(sha: &str) -> String {
    sha.chars().take(10).collect()
}

impl ChecksView {
    /// The checks `c` of commit `sha`; `json_href` has all of them.
    pub fn of(c: &Checks, sha: &str, json_href: String) -> ChecksView {
        let required = c.required.clone().unwrap_or_default();
        let rows = c
            .statuses
            .iter()
            .take(CHECKS_MAX)
            .map(|s| CheckRow {
                context: s.context.clone(),
                state: s.state.as_str(),
                link: safe_link(s.target_url.as_deref()),
                description: s.description.clone(),
                creator: s.creator.clone(),
                at: rfc3339(s.created_at),
                when: human(s.created_at),
                required: required.contains(&s.context),
            })
            .collect();
        ChecksView {
            sha: sha.to_owned(),
            short: short(sha),
            json_href,
            state: c.build_state.clone(),
            state_text: c.build_state.replace('_', " "),
            rows,
            hidden: c.statuses.len().saturating_sub(CHECKS_MAX),
            missing: c.missing.clone().unwrap_or_default(),
            unknown: c.checks_unknown.clone(),
            required_none: c.required.as_ref().is_some_and(Vec::is_empty),
        }
    }
}
