//! `/{owner}/{monorepo}/-/{repo}/commit/{sha}`: one commit. Its message with the svc
//! trailers, author and committer, parents, the branch it merged (on main), the checks on
//! it and its diff against its first parent, with the branch page's diff section
//! (renderer, budget, streaming). Everything comes from the API's handlers: getCommit,
//! getCommitChecks and commitDiff.

use askama::Template;
use axum::extract::{Path as UrlPath, State};
use axum::response::Response;
use serde::Deserialize;
use svc_protocol::code::Commit;

use super::checks::{ChecksView, short};
use super::code::{CommitCell, Place, seg};
use super::diff_section::{self, DiffJob, DiffOf, DiffSection};
use super::home::{human, rfc3339};
use super::page::{self, Layout, Viewer};
use crate::error::ApiResult;
use crate::extract::Path;
use crate::paths::CommitPath;
use crate::routes::{code, statuses};
use crate::state::AppState;

#[derive(Debug, Deserialize)]
pub struct PagePath {
    owner: String,
    monorepo: String,
    repo: String,
    sha: String,
}

#[derive(Template)]
#[template(path = "commit.html")]
struct CommitPage {
    layout: Layout,
    /// `owner/name`, canonical.
    full: String,
    repo: String,
    /// The repo's pages' prefix.
    base: String,
    c: CommitCell,
    committer: Option<Person>,
    parents: Vec<(String, String)>,
    worktree: Option<String>,
    machine: Option<String>,
    checks: ChecksView,
}

/// A committer shown apart from the author (a merge svc made, a rebase).
struct Person {
    name: String,
    at: String,
    when: String,
}

pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    UrlPath(p): UrlPath<PagePath>,
) -> Response {
    match build(&state, &viewer, p).await {
        Ok((page, job)) => diff_section::streamed(&page, job),
        Err(e) => page::failed(&viewer, e),
    }
}

async fn build(state: &AppState, viewer: &Viewer, p: PagePath) -> ApiResult<(CommitPage, DiffJob)> {
    let place = Place::of(state, viewer, &p.owner, &p.monorepo, &p.repo).await?;
    let sha = p.sha.to_ascii_lowercase();
    let (owner, monorepo) = place.full.split_once('/').unwrap_or((&place.full, ""));
    let path = CommitPath {
        owner: owner.to_owned(),
        monorepo: monorepo.to_owned(),
        repo: place.repo.name.clone(),
        sha: sha.clone(),
    };
    let caller = viewer.0.clone();
    let c: Commit = code::commit(State(state.clone()), caller.clone(), Path(path.clone()))
        .await?
        .0;
    let checks = statuses::checks(State(state.clone()), caller.clone(), Path(path.clone()))
        .await?
        .0;
    let api = format!(
        "/v1/monorepos/{}/{}/repos/{}/commits/{sha}",
        seg(owner),
        seg(monorepo),
        seg(&place.repo.name)
    );
    let committer =
        (c.committer.name != c.author.name || c.committer.date != c.author.date).then(|| Person {
            name: c.committer.name.clone(),
            at: rfc3339(c.committer.date),
            when: human(c.committer.date),
        });
    let parents = c
        .parents
        .iter()
        .map(|p| (short(p), format!("{}/commit/{p}", place.base)))
        .collect();
    let mut layout = Layout::new(format!("{} · {}", c.title, short(&sha)), viewer);
    layout.monorepo = Some(place.full.clone());
    let against = if c.parents.is_empty() {
        "nothing: this is the first commit".to_owned()
    } else {
        "its first parent".to_owned()
    };
    let section = DiffSection::new(api.clone(), against, format!("{}/blob/{sha}/", place.base));
    let page = CommitPage {
        layout,
        c: CommitCell::of(&c, &place),
        committer,
        parents,
        worktree: c.trailers.worktree.clone(),
        machine: c.trailers.machine.clone(),
        checks: ChecksView::of(&checks, &sha, format!("{api}/checks")),
        full: place.full.clone(),
        repo: place.repo.name.clone(),
        base: place.base.clone(),
    };
    let job = DiffJob {
        state: state.clone(),
        caller,
        of: DiffOf::Commit(path),
        section,
    };
    Ok((page, job))
}
