//! `/{owner}/{monorepo}/-/{repo}/branches`: a repo's branches, open or merged (tabs),
//! each with its facts (ahead, behind, conflicts), checks, author, armed auto-merge and
//! place in the merge queue,
//! pages by the API's cursor; forms to create a branch (from main or a ref) and delete
//! one, which work without JavaScript (`forms`). The list refreshes itself on the
//! monorepo's branch events.

use askama::Template;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use svc_protocol::branch::{Branch, CreateBranch, Mergeable};

use super::branch::branch_page;
use super::code::{Place, q, seg};
use super::forms;
use super::home::{human, rfc3339};
use super::page::{self, Layout, Viewer};
use crate::error::ApiResult;
use crate::extract::{Agent, Json, Path, Query};
use crate::paths::{BranchPath, RepoPath};
use crate::routes::branches as api;
use crate::state::AppState;

/// Branches a page lists.
const PAGE: i64 = 50;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route(
            "/{owner}/{monorepo}/-/{repo}/branches",
            get(list).post(create),
        )
        .route(
            "/{owner}/{monorepo}/-/{repo}/branches/{branch}/delete",
            post(delete),
        )
}

#[derive(Debug, Default, Deserialize)]
pub struct ListPageQuery {
    state: Option<String>,
    cursor: Option<String>,
}

/// One branch's row.
struct Row {
    name: String,
    href: String,
    title: Option<String>,
    author: String,
    state: &'static str,
    ahead: Option<u32>,
    behind: Option<u32>,
    /// `clean`, `conflicts` or `pending`, and its words.
    mergeable: &'static str,
    mergeable_text: String,
    checks: String,
    checks_text: String,
    /// Who armed auto-merge, when armed.
    armed_by: Option<String>,
    /// Its place in the repo's merge queue, when queued.
    queued_at: Option<i64>,
    /// Who merged it and when, once merged.
    merged_by: Option<String>,
    at: String,
    when: String,
    /// Where its delete form posts.
    delete: String,
}

#[derive(Template)]
#[template(path = "branches.html")]
struct BranchesPage {
    layout: Layout,
    full: String,
    monorepo_href: String,
    repo: String,
    /// The repo's page.
    base: String,
    /// This page, where its forms post.
    href: String,
    main_branch: String,
    state: &'static str,
    open_href: String,
    merged_href: String,
    rows: Vec<Row>,
    next: Option<String>,
    first: Option<String>,
}

async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(at): Path<RepoPath>,
    Query(query): Query<ListPageQuery>,
) -> Response {
    page::answer(&viewer, build(&state, &viewer, at, query).await)
}

async fn build(
    state: &AppState,
    viewer: &Viewer,
    at: RepoPath,
    query: ListPageQuery,
) -> ApiResult<BranchesPage> {
    let place = Place::of(state, viewer, &at.owner, &at.monorepo, &at.repo).await?;
    let wanted: &'static str = match query.state.as_deref() {
        Some("merged") => "merged",
        _ => "open",
    };
    let cursor = query.cursor.filter(|c| !c.is_empty());
    let found = api::list(
        State(state.clone()),
        viewer.0.clone(),
        Path(place.path()),
        Query(api::ListQuery {
            cursor: cursor.clone(),
            limit: Some(PAGE),
            state: Some(wanted.to_owned()),
        }),
    )
    .await?
    .0;
    let label = super::code::monorepo_href(&place.full);
    let href = format!("{}/branches", place.base);
    let tab = |s: &str, c: Option<&str>| match c {
        Some(c) => format!("{href}?state={s}&cursor={}", q(c)),
        None => format!("{href}?state={s}"),
    };
    let rows = found
        .items
        .iter()
        .filter(|b| b.name != found.default_branch)
        .map(|b| row(&label, b))
        .collect();
    Ok(BranchesPage {
        layout: place.layout(format!("Branches · {}", place.repo.name), viewer),
        open_href: tab("open", None),
        merged_href: tab("merged", None),
        next: found.next_cursor.as_deref().map(|c| tab(wanted, Some(c))),
        first: cursor.is_some().then(|| tab(wanted, None)),
        monorepo_href: format!("/{label}"),
        full: place.full.clone(),
        repo: place.repo.name.clone(),
        main_branch: found.default_branch,
        base: place.base.clone(),
        href,
        state: wanted,
        rows,
    })
}

fn row(label: &str, b: &Branch) -> Row {
    let href = branch_page(label, &b.repo, &b.name);
    let (mergeable, mergeable_text) = match b.mergeable {
        Mergeable::Clean => ("clean", "merges cleanly".to_owned()),
        Mergeable::Conflicts => (
            "conflicts",
            format!("conflicts in {} file(s)", b.conflicts.len()),
        ),
        Mergeable::Pending => ("pending", "being checked".to_owned()),
    };
    let at = b
        .merged_at
        .filter(|_| b.state == "merged")
        .unwrap_or(b.pushed_at);
    Row {
        name: b.name.clone(),
        delete: format!("{href}/delete"),
        href,
        title: b.title.clone().filter(|t| !t.trim().is_empty()),
        author: b.author.clone().unwrap_or_else(|| "someone".into()),
        state: if b.state == "merged" {
            "merged"
        } else {
            "open"
        },
        ahead: b.ahead,
        behind: b.behind,
        mergeable,
        mergeable_text,
        checks: b.checks.build_state.clone(),
        checks_text: b.checks.build_state.replace('_', " "),
        armed_by: b.auto_merge.as_ref().map(|a| a.armed_by.clone()),
        queued_at: b.queue.as_ref().and_then(|q| q.position),
        merged_by: b.merged_by.clone().filter(|_| b.state == "merged"),
        at: rfc3339(at),
        when: human(at),
    }
}

/// The branches page of repo `repo` of monorepo `owner/monorepo`, from the root.
fn back(owner: &str, monorepo: &str, repo: &str) -> String {
    format!("/{}/{}/-/{}/branches", seg(owner), seg(monorepo), seg(repo))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CreateForm {
    name: String,
    /// A branch or commit; main when empty.
    from: String,
}

/// "Create branch" (createBranch), then to the new branch's page.
async fn create(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<RepoPath>,
    axum::Form(form): axum::Form<CreateForm>,
) -> Response {
    let to = back(&at.owner, &at.monorepo, &at.repo);
    let label = format!("{}/{}", seg(&at.owner), seg(&at.monorepo));
    forms::post_then(&state, &viewer, &headers, &to, async {
        let from = form.from.trim();
        let body = CreateBranch {
            name: form.name.trim().to_owned(),
            from: (!from.is_empty()).then(|| from.to_owned()),
            title: None,
            description: None,
        };
        let (_, Json(b)) = api::create(
            State(state.clone()),
            viewer.0.clone(),
            Agent(None),
            Path(at),
            Json(body),
        )
        .await?;
        Ok(branch_page(&label, &b.repo, &b.name))
    })
    .await
}

/// "Delete" on a row (deleteBranch), then back to the list.
async fn delete(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<BranchPath>,
) -> Response {
    let to = back(&at.owner, &at.monorepo, &at.repo);
    forms::post(&state, &viewer, &headers, &to, async {
        api::delete(
            State(state.clone()),
            viewer.0.clone(),
            Agent(None),
            Path(at),
        )
        .await?;
        Ok(())
    })
    .await
}
