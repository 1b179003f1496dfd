//! The merge gate: required checks from `.svc/svc.toml` on main, and the Checks object of
//! a commit from its latest statuses.
//!
//! In a monorepo the file is on the meta layer's main, in table `[repos."<repo_path>"]`;
//! in a plain repo it is on the repo's own main, in `[repos."."]`. No main or no file
//! means nothing is required; a file that cannot be read or parsed makes the required
//! checks unknown, with the reason.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use svc_protocol::branch::{Checks, ChecksState, Status, StatusState};

use axum::http::StatusCode;
use svc_protocol::ErrorCode;

use crate::authz::Access;
use crate::error::{ApiError, ApiResult};
use crate::git::read;
use crate::git::storage;
use crate::state::AppState;
use crate::store::monorepos::MonorepoRow;
use crate::store::repos::RepoRow;
use crate::store::statuses::{self, StatusRow};
use crate::store::{self, H, repos, time_of};

/// Where the configuration lives in the repo that holds it.
pub const CONFIG_PATH: &str = ".svc/svc.toml";

/// The required contexts of one repo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Required {
    Known(Vec<String>),
    /// The plain-words reason they cannot be read.
    Unknown(String),
}

/// The file: a table per repo path.
#[derive(Debug, Default, Deserialize)]
pub struct Config {
    #[serde(default)]
    pub repos: BTreeMap<String, RepoConfig>,
}

#[derive(Debug, Default, Deserialize)]
pub struct RepoConfig {
    #[serde(default)]
    pub required_checks: Vec<String>,
    /// Merges join the repo's merge queue instead of landing at once (`merge_queue`).
    #[serde(default)]
    pub merge_queue: bool,
}

/// What one version of the file says, by repo path.
type Parsed = Result<Arc<Config>, String>;

/// Parsed configuration files by (repo holding it, commit): main moves rarely, and every
/// branch row of a list needs it.
#[derive(Default)]
pub struct ConfigCache(Mutex<HashMap<(String, String), Parsed>>);

/// Entries kept before the cache starts over.
const CACHE_ENTRIES: usize = 256;

impl ConfigCache {
    fn get(&self, key: &(String, String)) -> Option<Parsed> {
        self.0.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: (String, String), value: Parsed) {
        if let Ok(mut map) = self.0.lock() {
            if map.len() >= CACHE_ENTRIES {
                map.clear();
            }
            map.insert(key, value);
        }
    }
}

/// The required checks of `repo`, read from the right main.
pub async fn required(
    h: H<'_>,
    cache: &ConfigCache,
    data_dir: &Path,
    repo: &RepoRow,
    plain: bool,
) -> Result<Required, store::Error> {
    let holder = holder(h, repo, plain).await?;
    Ok(required_from(cache, data_dir, repo, holder.as_ref()).await)
}

/// The repo holding the file for `repo`: itself when `plain`, else the meta layer.
async fn holder(h: H<'_>, repo: &RepoRow, plain: bool) -> Result<Option<RepoRow>, store::Error> {
    if plain {
        return Ok(Some(repo.clone()));
    }
    Ok(repos::all(h, &repo.monorepo_id)
        .await?
        .into_iter()
        .find(|r| r.is_meta))
}

/// The required checks of `repo` as `holder` (the repo holding the file: the meta layer,
/// or a plain repo itself; none when there is none) says them on its main.
pub async fn required_from(
    cache: &ConfigCache,
    data_dir: &Path,
    repo: &RepoRow,
    holder: Option<&RepoRow>,
) -> Required {
    match parsed_from(cache, data_dir, holder).await {
        Ok(config) => Required::Known(
            config
                .repos
                .get(&repo.path)
                .map(|r| r.required_checks.clone())
                .unwrap_or_default(),
        ),
        Err(reason) => Required::Unknown(reason),
    }
}

/// The file as `holder` has it on its main (no holder or no main: an empty one).
async fn parsed_from(cache: &ConfigCache, data_dir: &Path, holder: Option<&RepoRow>) -> Parsed {
    let Some((holder, head)) = holder.and_then(|r| r.default_head.clone().map(|h| (r, h))) else {
        return Ok(Arc::default());
    };
    let key = (holder.id.clone(), head.clone());
    if let Some(p) = cache.get(&key) {
        return p;
    }
    let dir = storage::repo_dir(data_dir, &holder.id);
    let parsed = tokio::task::spawn_blocking(move || read_config(&dir, &head))
        .await
        .map_err(|e| format!("reading {CONFIG_PATH}: {e}"))
        .and_then(|r| r);
    cache.put(key, parsed.clone());
    parsed
}

/// Whether merges into `repo` of `monorepo` join its merge queue: `merge_queue = true`
/// in its table. A file that cannot be read says no (a merge then answers its gate's
/// `checks_unknown`).
pub async fn merge_queue_on(
    h: H<'_>,
    state: &AppState,
    monorepo: &MonorepoRow,
    repo: &RepoRow,
) -> Result<bool, store::Error> {
    merge_queue_on_any(h, state, monorepo, &[repo]).await
}

/// Whether merges into any of `repos` (a change's) of `monorepo` join a merge queue;
/// the file that says so is found once for them all.
pub async fn merge_queue_on_any(
    h: H<'_>,
    state: &AppState,
    monorepo: &MonorepoRow,
    repos: &[&RepoRow],
) -> Result<bool, store::Error> {
    let plain = monorepo.kind == "repo";
    let meta = match repos.first() {
        Some(repo) if !plain => holder(h, repo, false).await?,
        _ => None,
    };
    for repo in repos {
        let holder = if plain { Some(*repo) } else { meta.as_ref() };
        let parsed = parsed_from(&state.checks_config, &state.config.data_dir, holder).await;
        if parsed.is_ok_and(|c| c.repos.get(&repo.path).is_some_and(|r| r.merge_queue)) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Reads and parses the file at `head`; no file is an empty configuration.
fn read_config(dir: &Path, head: &str) -> Parsed {
    let unreadable = |e: read::Error| format!("cannot read {CONFIG_PATH} on main: {e}");
    let repo = crate::git::open_repos::open(dir).map_err(unreadable)?;
    let Some(commit) = repo.commit_exists(head).map_err(unreadable)? else {
        return Err(format!(
            "cannot read {CONFIG_PATH}: main's commit is missing"
        ));
    };
    let bytes = match repo.file(commit, CONFIG_PATH) {
        Ok((_, bytes)) => bytes,
        Err(read::Error::NotFound(_)) => return Ok(Arc::default()),
        Err(e) => return Err(unreadable(e)),
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = line_of(&e.as_bytes()[..e.utf8_error().valid_up_to()]);
        format!("line {line}: {CONFIG_PATH} is not UTF-8")
    })?;
    parse(&text).map(Arc::new)
}

/// Parses the file; an error reads `line N: message`.
pub fn parse(text: &str) -> Result<Config, String> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(1, |span| {
            line_of(&text.as_bytes()[..span.start.min(text.len())])
        });
        format!("line {line}: {}", e.message().trim_end())
    })
}

/// The 1-based line of the byte after `before`.
fn line_of(before: &[u8]) -> usize {
    before.iter().filter(|&&b| b == b'\n').count() + 1
}

pub fn status_view(s: &StatusRow) -> Status {
    Status {
        sha: s.sha.clone(),
        context: s.context.clone(),
        state: StatusState::parse(&s.state).unwrap_or(StatusState::Error),
        created_at: time_of(s.created_at),
        target_url: s.target_url.clone(),
        description: s.description.clone(),
        creator: s.creator.clone(),
        app: s.app.clone(),
    }
}

/// The Checks object of `sha` from its latest statuses (one per context).
pub fn checks(sha: Option<&str>, required: &Required, statuses: &[StatusRow]) -> Checks {
    let statuses: Vec<Status> = statuses.iter().map(status_view).collect();
    let (state, required, reason, missing) = match required {
        Required::Unknown(reason) => (ChecksState::Unknown, None, Some(reason.clone()), None),
        Required::Known(required) if required.is_empty() => (
            gate(statuses.iter().map(|s| Some(s.state))),
            Some(Vec::new()),
            None,
            None,
        ),
        Required::Known(required) => {
            let state_of = |context: &str| {
                statuses
                    .iter()
                    .find(|s| s.context == context)
                    .map(|s| s.state)
            };
            let missing: Vec<String> = required
                .iter()
                .filter(|c| state_of(c).is_none())
                .cloned()
                .collect();
            let state = gate(required.iter().map(|c| state_of(c)));
            (state, Some(required.clone()), None, Some(missing))
        }
    };
    let build_state = if state == ChecksState::Success
        && statuses.is_empty()
        && required.as_ref().is_some_and(Vec::is_empty)
    {
        "not_built".to_owned()
    } else {
        serde_json::to_value(state)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    };
    Checks {
        sha: sha.map(str::to_owned),
        state,
        required,
        checks_unknown: reason,
        missing,
        statuses,
        build_state,
    }
}

/// The Checks object of each of `shas` in `repo`, judged by the required checks of the
/// monorepo `access` names.
pub async fn checks_of(
    h: H<'_>,
    state: &AppState,
    access: &Access,
    repo: &RepoRow,
    shas: &[String],
) -> Result<Vec<Checks>, store::Error> {
    checks_in(h, state, &access.monorepo, repo, shas).await
}

/// The same, for `repo` of `monorepo` (whoever asks: a merge made for someone).
pub async fn checks_in(
    mut h: H<'_>,
    state: &AppState,
    monorepo: &MonorepoRow,
    repo: &RepoRow,
    shas: &[String],
) -> Result<Vec<Checks>, store::Error> {
    let plain = monorepo.kind == "repo";
    let required = required(
        h.reborrow(),
        &state.checks_config,
        &state.config.data_dir,
        repo,
        plain,
    )
    .await?;
    let all = statuses::of(h, &repo.id, shas).await?;
    Ok(shas
        .iter()
        .map(|sha| {
            let mine: Vec<_> = all.iter().filter(|s| &s.sha == sha).cloned().collect();
            checks(Some(sha), &required, &mine)
        })
        .collect())
}

/// The gate over the contexts that count (None: not reported): a failure or error wins,
/// then anything missing, then anything pending.
fn gate(states: impl Iterator<Item = Option<StatusState>>) -> ChecksState {
    let states: Vec<Option<StatusState>> = states.collect();
    let any = |s: Option<StatusState>| states.contains(&s);
    if any(Some(StatusState::Failure)) {
        ChecksState::Failure
    } else if any(Some(StatusState::Error)) {
        ChecksState::Error
    } else if any(None) {
        ChecksState::Missing
    } else if any(Some(StatusState::Pending)) {
        ChecksState::Pending
    } else {
        ChecksState::Success
    }
}

/// The merge gate's answer for `checks`, shared by merges and releases (`what` names the
/// operation the hint repeats with `force=1`): 503 `checks_unknown` while the required
/// checks cannot be read, 412 `checks_not_green` naming each red or missing check, both
/// carrying the Checks object.
pub fn require_green(checks: Checks, what: &str) -> ApiResult<()> {
    if checks.state == ChecksState::Unknown {
        let reason = checks.checks_unknown.clone().unwrap_or_default();
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ChecksUnknown,
            format!(
                "the required checks cannot be read ({reason}); {what} with force=1 to go past them"
            ),
        )
        .with_checks(checks));
    }
    if checks.state == ChecksState::Success {
        return Ok(());
    }
    let counts = |context: &String| {
        checks
            .required
            .as_ref()
            .is_none_or(|r| r.is_empty() || r.contains(context))
    };
    let mut why: Vec<String> = checks
        .statuses
        .iter()
        .filter(|s| counts(&s.context) && s.state.as_str() != "success")
        .map(|s| format!("{} is {}", s.context, s.state.as_str()))
        .collect();
    why.extend(
        checks
            .missing
            .iter()
            .flatten()
            .map(|c| format!("{c} has not reported")),
    );
    Err(ApiError::new(
        StatusCode::PRECONDITION_FAILED,
        ErrorCode::ChecksNotGreen,
        format!(
            "the checks do not pass: {}; {what} with force=1 to go past them",
            why.join(", ")
        ),
    )
    .with_checks(checks))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn status(context: &str, state: &str) -> StatusRow {
        StatusRow {
            repo_id: "r".into(),
            sha: "s".into(),
            context: context.into(),
            state: state.into(),
            target_url: None,
            description: None,
            creator: "ada".into(),
            app: None,
            created_at: 0,
        }
    }

    #[test]
    fn parse_errors_name_the_line() {
        let err = parse("[repos.\"api\"]\nrequired_checks = [\"ci\"\n").unwrap_err();
        assert!(
            err.starts_with("line 2: ") || err.starts_with("line 3: "),
            "{err}"
        );
        let err = parse("\n\n[repos.\"api\"]\nrequired_checks = \"ci\"\n").unwrap_err();
        assert!(err.starts_with("line 4: "), "{err}");
        let ok =
            parse("[repos.\"a/b\"]\nrequired_checks = [\"ci/build\"]\n[other]\nx = 1\n").unwrap();
        assert_eq!(ok.repos["a/b"].required_checks, ["ci/build"]);
    }

    #[test]
    fn gate_matrix() {
        let req = Required::Known(vec!["ci".into(), "lint".into()]);
        let c = checks(Some("s"), &req, &[status("ci", "success")]);
        assert_eq!(c.state, ChecksState::Missing);
        assert_eq!(c.missing, Some(vec!["lint".to_owned()]));
        let c = checks(
            Some("s"),
            &req,
            &[status("ci", "success"), status("lint", "failure")],
        );
        assert_eq!(c.state, ChecksState::Failure);
        let c = checks(
            Some("s"),
            &req,
            &[
                status("ci", "success"),
                status("lint", "success"),
                status("x", "failure"),
            ],
        );
        assert_eq!(
            c.state,
            ChecksState::Success,
            "only required contexts count"
        );
        let none = Required::Known(Vec::new());
        let c = checks(Some("s"), &none, &[]);
        assert_eq!(
            (c.state, c.build_state.as_str()),
            (ChecksState::Success, "not_built")
        );
        let c = checks(Some("s"), &none, &[status("x", "pending")]);
        assert_eq!(
            (c.state, c.build_state.as_str()),
            (ChecksState::Pending, "pending")
        );
        let c = checks(Some("s"), &Required::Unknown("line 1: bad".into()), &[]);
        assert_eq!(c.state, ChecksState::Unknown);
        assert_eq!(c.required, None);
        assert_eq!(c.checks_unknown.as_deref(), Some("line 1: bad"));
    }
}
