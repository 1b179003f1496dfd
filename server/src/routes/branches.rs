//! Branches: the list with its facts, one branch, create, update, delete, own commits.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{Branch, BranchCommits, BranchList, CreateBranch, UpdateBranch};

use crate::auth::Caller;
use crate::authz::Need;
use crate::branches::views;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path, Query, page_limit};
use crate::facts;
use crate::git::record::{self, Actor, Seed};
use crate::git::{branch_name, merge};
use crate::paths::{BranchPath, RepoPath, live_branch};
use crate::state::AppState;
use crate::store::branches::{self, After};
use crate::store::now_ms;

const LIST_DEFAULT: i64 = 30;
const LIST_MAX: i64 = 100;
/// Stale rows one list computes at most before answering (within `[facts]
/// list_budget_ms`).
const LIST_COMPUTES: usize = 25;
/// getBranch recomputes facts stale for longer than this.
const STALE_RECOMPUTE_MS: i64 = 30_000;
const TITLE_MAX: usize = 256;
const DESCRIPTION_MAX: usize = 65_536;
const COMMITS_DEFAULT: i64 = 100;
const COMMITS_MAX: i64 = 250;

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1)]
    pub(crate) cursor: Option<String>,
    /// Rows a page, at most 100 (default 30).
    #[param(minimum = 1, maximum = 100)]
    pub(crate) limit: Option<i64>,
    /// Comma-separated states among `open`, `merged`, `deleted` (default `open,merged`).
    pub(crate) state: Option<String>,
}

pub fn parse_cursor(cursor: &str) -> ApiResult<After> {
    let bad = || {
        ApiError::bad_request(
            ErrorCode::BadCursor,
            "this cursor was not made by this list",
        )
    };
    let (at, name) = cursor.split_once(':').ok_or_else(bad)?;
    Ok(After {
        sort_at: at.parse().map_err(|_| bad())?,
        name: name.to_owned(),
    })
}

/// Newest first (an open branch by last push, a merged one by merge time; ties by
/// name), from stored facts; at most 25 stale rows are computed before answering, while
/// that takes less than `[facts] list_budget_ms` (100) in all: the others answer
/// `stale` and follow in the background (`branch.updated`).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches", operation_id = "listBranches", tag = "branches",
    params(RepoPath, ListQuery),
    responses((status = 200, body = BranchList), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
    Query(q): Query<ListQuery>,
) -> ApiResult<Json<BranchList>> {
    let states: Vec<&str> = q
        .state
        .as_deref()
        .unwrap_or("open,merged")
        .split(',')
        .map(str::trim)
        .collect();
    if let Some(bad) = states
        .iter()
        .find(|s| !["open", "merged", "deleted"].contains(s))
    {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("unknown state {bad:?}: use open, merged or deleted"),
        ));
    }
    let limit = page_limit(q.limit, LIST_DEFAULT, LIST_MAX)?;
    let after = q.cursor.as_deref().map(parse_cursor).transpose()?;
    let mut conn = state.store.read().await?;
    let (access, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let mut rows = branches::page(conn.h(), &repo.id, &states, after.as_ref(), limit + 1).await?;
    let more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let stale: Vec<usize> = (0..rows.len())
        .filter(|&i| {
            rows[i].state == "open" && !facts::fresh(&rows[i], repo.default_head.as_deref())
        })
        .take(LIST_COMPUTES)
        .collect();
    if !stale.is_empty() {
        drop(conn);
        let names: Vec<String> = stale.iter().map(|&i| rows[i].name.clone()).collect();
        let budget = Duration::from_millis(state.config.facts.list_budget_ms);
        state.facts.compute_within(&repo.id, &names, budget).await;
        conn = state.store.read().await?;
        for &i in &stale {
            if let Some(b) = branches::get(conn.h(), &repo.id, &rows[i].name).await? {
                rows[i] = b;
            }
        }
    }
    let next_cursor = more
        .then(|| rows.last().map(|b| format!("{}:{}", b.sort_at, b.name)))
        .flatten();
    let items = views(conn.h(), &state, &access, &repo, &rows).await?;
    Ok(Json(BranchList {
        default_branch: repo.default_branch.clone(),
        default_head: repo.default_head.clone(),
        items,
        next_cursor,
    }))
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct GetQuery {
    /// `1`: compute the facts now if they are stale.
    #[serde(default, deserialize_with = "crate::extract::flag")]
    #[param(value_type = Option<String>, pattern = "^(0|1|true|false)?$")]
    pub(crate) fresh: bool,
}

/// One branch as in the list; facts are computed when stale for over 30 s, or with
/// `fresh=1`.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}", operation_id = "getBranch", tag = "branches",
    params(BranchPath, GetQuery),
    responses((status = 200, body = Branch), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<BranchPath>,
    Query(q): Query<GetQuery>,
) -> ApiResult<Json<Branch>> {
    let mut conn = state.store.read().await?;
    let (access, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let mut row = path.live(conn.h(), &repo).await?;
    let stale_since = row.pushed_at.max(repo.default_head_at);
    if !facts::fresh(&row, repo.default_head.as_deref())
        && (q.fresh || now_ms() - stale_since > STALE_RECOMPUTE_MS)
    {
        drop(conn);
        state
            .facts
            .compute(&repo.id, &row.name)
            .await
            .map_err(ApiError::internal)?;
        conn = state.store.read().await?;
        row = path.live(conn.h(), &repo).await?;
    }
    let mut items = views(conn.h(), &state, &access, &repo, &[row]).await?;
    items
        .pop()
        .map(Json)
        .ok_or_else(|| ApiError::not_found("branch"))
}

fn check_text(title: Option<&str>, description: Option<&str>) -> ApiResult<()> {
    if title.is_some_and(|t| t.chars().count() > TITLE_MAX) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("a title is at most {TITLE_MAX} characters"),
        ));
    }
    if description.is_some_and(|d| d.len() > DESCRIPTION_MAX) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("a description is at most {DESCRIPTION_MAX} bytes"),
        ));
    }
    Ok(())
}

/// Points a new branch at `from` (default: main's head) with no new commit; the caller
/// is its author. Facts follow (`stale: true` until then).
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches", operation_id = "createBranch", tag = "branches",
    request_body = CreateBranch,
    params(RepoPath),
    responses((status = 201, body = Branch), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "branch_exists: the branch, or one that clashes with it (`a` and `a/b`), exists")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<RepoPath>,
    Json(body): Json<CreateBranch>,
) -> ApiResult<(StatusCode, Json<Branch>)> {
    check_text(body.title.as_deref(), body.description.as_deref())?;
    let branch = body.name.trim().to_owned();
    if let Some(why) = branch_name::invalid_reason(&branch) {
        return Err(ApiError::bad_request(
            ErrorCode::BadBranchName,
            format!("{branch:?} is not a valid git branch name: {why}"),
        ));
    }
    let (access, repo, from) = {
        let mut conn = state.store.read().await?;
        let (access, repo) = path.resolve(conn.h(), &caller, Need::Write).await?;
        if branch == repo.default_branch {
            return Err(ApiError::conflict(
                ErrorCode::BranchExists,
                format!("{branch} is the default branch"),
            ));
        }
        let from = match body.from.as_deref() {
            None => repo.default_head.clone().ok_or_else(|| {
                ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    ErrorCode::EmptyRepo,
                    "the repo has no main yet: name a commit in `from`",
                )
            })?,
            Some(f) if f == repo.default_branch => repo
                .default_head
                .clone()
                .ok_or_else(|| ApiError::not_found("main"))?,
            Some(f) if f.len() == 40 && f.bytes().all(|b| b.is_ascii_hexdigit()) => {
                f.to_ascii_lowercase()
            }
            Some(f) => live_branch(conn.h(), &repo, f).await?.head,
        };
        (access, repo, from)
    };
    let actor = Actor {
        login: Some(caller.login.clone()),
        agent,
    };
    let seed = Seed {
        branch: branch.clone(),
        title: body.title,
        description: body.description,
    };
    crate::branches::open(&state, &repo, &actor, seed, from).await?;
    let mut conn = state.store.read().await?;
    let row = live_branch(conn.h(), &repo, &branch).await?;
    let mut items = views(conn.h(), &state, &access, &repo, &[row]).await?;
    let item = items.pop().ok_or_else(|| ApiError::not_found("branch"))?;
    Ok((StatusCode::CREATED, Json(item)))
}

/// Sets the title and description (the merge commit's message); `null` clears.
#[utoipa::path(patch, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}", operation_id = "updateBranch", tag = "branches",
    request_body = UpdateBranch,
    params(BranchPath),
    responses((status = 200, body = Branch), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
    Json(body): Json<UpdateBranch>,
) -> ApiResult<Json<Branch>> {
    let mut tx = state.store.begin().await?;
    let (access, repo) = path.resolve(tx.h(), &caller, Need::Write).await?;
    let row = path.live(tx.h(), &repo).await?;
    let title = body.title.unwrap_or(row.title.clone());
    let description = body.description.unwrap_or(row.description.clone());
    check_text(title.as_deref(), description.as_deref())?;
    branches::set_text(
        tx.h(),
        &repo.id,
        &row.name,
        title.as_deref(),
        description.as_deref(),
    )
    .await?;
    let row = path.live(tx.h(), &repo).await?;
    let actor = Actor {
        login: Some(caller.login.clone()),
        agent,
    };
    record::branch_updated(tx.h(), &access.monorepo.id, &repo.name, &row, &actor).await?;
    let mut items = views(tx.h(), &state, &access, &repo, &[row]).await?;
    tx.commit().await?;
    items
        .pop()
        .map(Json)
        .ok_or_else(|| ApiError::not_found("branch"))
}

/// Deletes the branch's ref (not the default branch's); `branch.deleted` follows.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}", operation_id = "deleteBranch", tag = "branches",
    params(BranchPath),
    responses((status = 204), (status = 404, body = ApiErrorBody),
        (status = 422, body = ApiErrorBody, description = "default_branch")))]
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
) -> ApiResult<StatusCode> {
    let repo = {
        let mut conn = state.store.read().await?;
        let (_, repo) = path.resolve(conn.h(), &caller, Need::Write).await?;
        let branch = &path.branch;
        if *branch == repo.default_branch {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::DefaultBranch,
                format!("{branch} is the default branch and cannot be deleted"),
            ));
        }
        path.live(conn.h(), &repo).await?;
        repo
    };
    let full = format!("refs/heads/{}", path.branch);
    let branch = path.branch;
    state
        .git(&repo, move |git| {
            let heads = git.branch_heads()?;
            let Some((_, head)) = heads.into_iter().find(|(n, _)| *n == branch) else {
                return Ok(());
            };
            git.delete_ref(&full, head)
        })
        .await?;
    let actor = Actor {
        login: Some(caller.login.clone()),
        agent,
    };
    record::record(&state.store, &state.config.data_dir, &repo.id, &actor)
        .await
        .map_err(ApiError::internal)?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct CommitsQuery {
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1)]
    cursor: Option<String>,
    /// Commits a page, at most 250 (default 100).
    #[param(minimum = 1, maximum = 250)]
    limit: Option<i64>,
}

/// The branch's own commits (those `ahead` counts), newest first, each before its
/// parents, with trailers.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/commits", operation_id = "branchCommits", tag = "branches",
    params(BranchPath, CommitsQuery),
    responses((status = 200, body = BranchCommits), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn commits(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<BranchPath>,
    Query(q): Query<CommitsQuery>,
) -> ApiResult<Json<BranchCommits>> {
    let skip: usize = match q.cursor.as_deref() {
        None => 0,
        Some(c) => c.parse().map_err(|_| {
            ApiError::bad_request(
                ErrorCode::BadCursor,
                "this cursor was not made by this list",
            )
        })?,
    };
    let limit = page_limit(q.limit, COMMITS_DEFAULT, COMMITS_MAX)?.unsigned_abs() as usize;
    let (repo, row) = {
        let mut conn = state.store.read().await?;
        let (_, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
        let row = path.live(conn.h(), &repo).await?;
        (repo, row)
    };
    let main = repo.default_head.clone();
    let (items, more) = state
        .git(&repo, move |git| {
            let head = git
                .commit_exists(&row.head)?
                .ok_or_else(|| merge::Error::NotFound("commit".into()))?;
            let main = match main {
                Some(m) => git.commit_exists(&m)?,
                None => None,
            };
            git.own_commits(main, head, skip, limit)
        })
        .await?;
    Ok(Json(BranchCommits {
        next_cursor: more.then(|| (skip + items.len()).to_string()),
        items,
    }))
}
