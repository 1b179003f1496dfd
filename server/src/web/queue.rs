//! `/{owner}/{monorepo}/-/{repo}/queue`: a repo's merge queue (listQueue): the entries in
//! it, front first, each with its branch, its tested (speculative) commit, the change it
//! is part of and when it times out, with a form to take it out (it works without
//! JavaScript, `forms`); then the latest out of it, landed or left with the reason. It
//! refreshes itself on the queue's events.

use askama::Template;
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use svc_protocol::branch::QueueEntry;

use super::branch::branch_page;
use super::checks::short;
use super::code::Place;
use super::home::{human, rfc3339};
use super::page::{self, Layout, Viewer};
use crate::error::ApiResult;
use crate::extract::Path;
use crate::paths::RepoPath;
use crate::routes::queue as api;
use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/{owner}/{monorepo}/-/{repo}/queue", get(page))
}

/// One entry's row.
struct Row {
    branch: String,
    href: String,
    position: Option<i64>,
    state: String,
    /// Why it left, in words.
    reason: Option<String>,
    /// The tested commit and its page.
    spec: Option<(String, String)>,
    change: Option<String>,
    by: String,
    at: String,
    when: String,
    /// When it times out (in the queue) or ended (out of it).
    until: String,
    until_when: String,
    /// Where its "Leave the queue" form posts (in the queue only).
    leave: Option<String>,
}

#[derive(Template)]
#[template(path = "queue.html")]
struct QueuePage {
    layout: Layout,
    full: String,
    monorepo_href: String,
    repo: String,
    base: String,
    href: String,
    main_branch: String,
    queued: Vec<Row>,
    ended: Vec<Row>,
}

async fn page(State(state): State<AppState>, viewer: Viewer, Path(at): Path<RepoPath>) -> Response {
    page::answer(&viewer, build(&state, &viewer, at).await)
}

async fn build(state: &AppState, viewer: &Viewer, at: RepoPath) -> ApiResult<QueuePage> {
    let place = Place::of(state, viewer, &at.owner, &at.monorepo, &at.repo).await?;
    let queue = api::list(State(state.clone()), viewer.0.clone(), Path(place.path()))
        .await?
        .0;
    let label = super::code::monorepo_href(&place.full);
    let (queued, ended): (Vec<QueueEntry>, Vec<QueueEntry>) = queue
        .entries
        .into_iter()
        .partition(|e| e.position.is_some());
    let rows = |list: Vec<QueueEntry>| -> Vec<Row> {
        list.iter().map(|e| row(&label, &place.base, e)).collect()
    };
    Ok(QueuePage {
        layout: place.layout(format!("Merge queue · {}", place.repo.name), viewer),
        monorepo_href: format!("/{label}"),
        full: place.full.clone(),
        repo: place.repo.name.clone(),
        href: format!("{}/queue", place.base),
        main_branch: place.repo.default_branch.clone(),
        base: place.base.clone(),
        queued: rows(queued),
        ended: rows(ended),
    })
}

fn row(label: &str, base: &str, e: &QueueEntry) -> Row {
    let href = branch_page(label, &e.repo, &e.branch);
    let until = e.ended_at.unwrap_or(e.deadline);
    Row {
        branch: e.branch.clone(),
        position: e.position,
        state: e.state.clone(),
        reason: e.reason.as_deref().map(reason),
        spec: e
            .speculative_sha
            .as_deref()
            .map(|s| (short(s), format!("{base}/commit/{s}"))),
        change: e.change.clone(),
        by: match &e.enqueued_agent {
            Some(agent) => format!("{} (agent {agent})", e.enqueued_by),
            None => e.enqueued_by.clone(),
        },
        at: rfc3339(e.created_at),
        when: human(e.created_at),
        until: rfc3339(until),
        until_when: human(until),
        leave: e.position.map(|_| format!("{href}/queue/leave?from=queue")),
        href,
    }
}

/// A leaving's reason in words.
fn reason(code: &str) -> String {
    match code {
        "checks_failed" => "its tested commit's checks failed",
        "checks_unknown" => "its required checks could not be read",
        "conflict" => "it conflicts with main or the entries ahead",
        "timeout" => "it waited past the queue's time limit",
        "by_hand" => "taken out by hand",
        "not_open" => "the branch was merged or deleted",
        "nothing_to_merge" => "main has every commit of it already",
        "access_lost" => "the one who queued it can no longer merge",
        "change_left" => "another repo's part of its change left",
        other => other,
    }
    .to_owned()
}
