//! `/{owner}/{monorepo}`: a monorepo at a glance: its repos with main's checks and latest
//! release, the open branches newest push first, recent activity and the machines of its
//! people. The monorepo's socket refreshes the sections when branches move.

use std::collections::BTreeMap;

use askama::Template;
use axum::extract::{Path as UrlPath, State};
use axum::response::{IntoResponse, Redirect, Response};
use svc_protocol::branch::Branch;
use svc_protocol::monorepo::MonorepoKind;

use super::code::{monorepo_href, seg};
use super::home::{Line, human, rfc3339};
use super::page::{self, Layout, Viewer};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Path, Query};
use crate::paths::MonorepoPath;
use crate::routes::{activity, branches, monorepos, presence, repos, summary};
use crate::state::AppState;

/// Repos whose main and branches the page reads; more are listed by name only.
const REPOS_READ: usize = 50;
/// Open branches read per repo, and shown in all.
const BRANCHES_PER_REPO: i64 = 30;
const BRANCHES_SHOWN: usize = 100;
const ACTIVITY_SHOWN: i64 = 20;
const MACHINES_SHOWN: usize = 50;
/// Checks named on a repo's row at most.
const CONTEXTS_SHOWN: usize = 8;

#[derive(Template)]
#[template(path = "monorepo.html")]
struct MonorepoPage {
    layout: Layout,
    full: String,
    href: String,
    plain: bool,
    role: String,
    repos: Vec<RepoRow>,
    /// Repos past those read.
    repos_unread: usize,
    branches: Vec<BranchRow>,
    /// Open branches beyond those shown (at least; a repo's list may go on).
    branches_more: bool,
    activity: Vec<Line>,
    machines: Vec<MachineRow>,
    machines_more: usize,
    /// The home's activity log of this monorepo alone.
    all_href: String,
}

struct RepoRow {
    name: String,
    path: String,
    href: String,
    read: bool,
    /// Main's head, short, with its tree.
    head: Option<(String, String)>,
    /// `success`, `failure`, `pending`, `not_built`, ...
    build_state: String,
    build_label: String,
    /// `context: state` of main's head, the first few.
    contexts: Vec<(String, String)>,
    release: Option<String>,
    releases_href: String,
}

struct BranchRow {
    repo: String,
    name: String,
    href: String,
    title: Option<String>,
    who: String,
    checks: String,
    checks_label: String,
    mergeable: &'static str,
    ahead: Option<u32>,
    behind: Option<u32>,
    at: String,
    when: String,
    pushed: time::OffsetDateTime,
}

struct MachineRow {
    login: String,
    machine: String,
    connected: bool,
    last: String,
    at: String,
    when: String,
    /// `repo:branch` of its reported worktrees, with the branch pages.
    worktrees: Vec<(String, String)>,
}

/// `/{owner}/{monorepo}`.
pub async fn page(
    State(state): State<AppState>,
    UrlPath(at): UrlPath<MonorepoPath>,
    viewer: Result<Viewer, Response>,
) -> Response {
    // The API's own paths that match no route keep the API's answer.
    if at.owner == "v1" {
        return ApiError::not_found("route").into_response();
    }
    let viewer = match viewer {
        Ok(v) => v,
        Err(to_sign_in) => return to_sign_in,
    };
    match build(&state, &viewer, at).await {
        Ok(Ok(p)) => page::ok(&p),
        Ok(Err(canonical)) => Redirect::to(&canonical).into_response(),
        Err(e) => page::failed(&viewer, e),
    }
}

/// The page, or where the monorepo's current label is.
async fn build(
    state: &AppState,
    viewer: &Viewer,
    at: MonorepoPath,
) -> ApiResult<Result<MonorepoPage, String>> {
    let caller = &viewer.0;
    let m = monorepos::get(State(state.clone()), caller.clone(), Path(at.clone()))
        .await?
        .0;
    if m.full_name != format!("{}/{}", at.owner, at.monorepo) {
        return Ok(Err(format!("/{}", monorepo_href(&m.full_name))));
    }
    let href = format!("/{}", monorepo_href(&m.full_name));
    let here = MonorepoPath {
        owner: m.owner.clone(),
        monorepo: m.name.clone(),
    };
    let repo_list = repos::list(State(state.clone()), caller.clone(), Path(here.clone()))
        .await?
        .0
        .items;
    let mut rows = Vec::new();
    let mut open: Vec<BranchRow> = Vec::new();
    let mut branches_more = false;
    for (i, r) in repo_list.iter().enumerate() {
        let base = format!("{href}/-/{}", seg(&r.name));
        let mut row = RepoRow {
            name: r.name.clone(),
            path: r.path.clone(),
            href: base.clone(),
            read: false,
            head: None,
            build_state: String::new(),
            build_label: String::new(),
            contexts: Vec::new(),
            release: None,
            releases_href: format!("{base}/releases"),
        };
        if i >= REPOS_READ {
            rows.push(row);
            continue;
        }
        let s = summary::get(
            State(state.clone()),
            caller.clone(),
            Path(here.repo(&r.name)),
        )
        .await?
        .0;
        row.read = true;
        row.head = s.main.commit.as_ref().map(|c| {
            (
                c.chars().take(8).collect(),
                format!("{base}/tree/{}", seg(c)),
            )
        });
        row.build_state = s.main.build_state.clone();
        row.build_label = s.main.build_state.replace('_', " ");
        row.contexts = s
            .main
            .checks
            .iter()
            .flat_map(|c| c.statuses.iter())
            .take(CONTEXTS_SHOWN)
            .map(|st| (st.context.clone(), st.state.as_str().to_owned()))
            .collect();
        row.release = s.release.map(|rel| rel.tag);
        rows.push(row);
        let list = branches::list(
            State(state.clone()),
            caller.clone(),
            Path(here.repo(&r.name)),
            Query(branches::ListQuery {
                state: Some("open".into()),
                limit: Some(BRANCHES_PER_REPO),
                ..Default::default()
            }),
        )
        .await?
        .0;
        branches_more |= list.next_cursor.is_some();
        open.extend(list.items.iter().map(|b| branch_row(b, &base)));
    }
    open.sort_by(|a, b| b.pushed.cmp(&a.pushed).then_with(|| a.name.cmp(&b.name)));
    if open.len() > BRANCHES_SHOWN {
        open.truncate(BRANCHES_SHOWN);
        branches_more = true;
    }
    let log = activity::page(
        state,
        caller,
        activity::ActivityQuery {
            cursor: None,
            only: Some(m.full_name.clone()),
            limit: Some(ACTIVITY_SHOWN),
        },
    )
    .await?;
    let machines = presence::machines(State(state.clone()), caller.clone(), Path(here.clone()))
        .await?
        .0
        .items;
    let worktrees = presence::list(
        State(state.clone()),
        caller.clone(),
        Path(here),
        Query(presence::ListQuery::default()),
    )
    .await?
    .0
    .items;
    let mut by_machine: BTreeMap<(String, String), Vec<(String, String)>> = BTreeMap::new();
    for w in &worktrees {
        by_machine
            .entry((w.login.clone(), w.machine.clone()))
            .or_default()
            .push((
                format!("{}:{}", w.repo, w.branch),
                format!("{href}/-/{}/branches/{}", seg(&w.repo), seg(&w.branch)),
            ));
    }
    let machines_more = machines.len().saturating_sub(MACHINES_SHOWN);
    let machines = machines
        .iter()
        .take(MACHINES_SHOWN)
        .map(|mc| MachineRow {
            login: mc.login.clone(),
            machine: mc.machine.clone(),
            connected: mc.connected,
            last: mc.last_action_kind.clone(),
            at: rfc3339(mc.last_action_at),
            when: human(mc.last_action_at),
            worktrees: by_machine
                .remove(&(mc.login.clone(), mc.machine.clone()))
                .unwrap_or_default(),
        })
        .collect();
    let mut layout = Layout::new(m.full_name.clone(), viewer);
    layout.monorepo = Some(m.full_name.clone());
    Ok(Ok(MonorepoPage {
        layout,
        full: m.full_name.clone(),
        href,
        plain: m.kind == MonorepoKind::Repo,
        role: m.role.as_str().to_owned(),
        repos_unread: repo_list.len().saturating_sub(REPOS_READ),
        repos: rows,
        branches: open,
        branches_more,
        activity: log.items.iter().map(Line::of).collect(),
        machines,
        machines_more,
        all_href: format!("/?in={}", super::code::q(&m.full_name)),
    }))
}

fn branch_row(b: &Branch, base: &str) -> BranchRow {
    BranchRow {
        repo: b.repo.clone(),
        name: b.name.clone(),
        href: format!("{base}/branches/{}", seg(&b.name)),
        title: b.title.clone().filter(|t| !t.trim().is_empty()),
        who: b
            .pusher
            .clone()
            .or_else(|| b.author.clone())
            .unwrap_or_default(),
        checks: b.checks.build_state.clone(),
        checks_label: b.checks.build_state.replace('_', " "),
        mergeable: b.mergeable.as_str(),
        ahead: b.ahead,
        behind: b.behind.filter(|n| *n > 0),
        at: rfc3339(b.pushed_at),
        when: human(b.pushed_at),
        pushed: b.pushed_at,
    }
}
