//! Reading code: trees, files, history, last commits and commits, at any ref.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gix::ObjectId;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::code::{Commit, HistoryPage, LastCommits, TreePage};

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Path, Query, page_limit};
use crate::git::read::{self, Repo};
use crate::paths::{CommitPath, RepoPath, branch_not_found};
use crate::state::AppState;
use crate::store::repos::RepoRow;
use crate::store::{H, branches, merges};

/// Entries of one tree page.
const TREE_PAGE: usize = 1000;
const HISTORY_DEFAULT: i64 = 30;
const HISTORY_MAX: i64 = 100;

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct CodeQuery {
    /// A branch name (from stored heads) or a commit sha; main by default.
    #[serde(rename = "ref")]
    pub(crate) git_ref: Option<String>,
    /// A path from the repo's root; the root by default.
    pub(crate) path: Option<String>,
    /// Tree: the `next_cursor` of the previous page.
    pub(crate) cursor: Option<String>,
    /// History: commits a page, 1 to 100 (the other routes sharing this query ignore it,
    /// so the range is not stated here).
    pub(crate) limit: Option<i64>,
    /// History: the `next` of the previous page.
    pub(crate) next: Option<String>,
}

/// The commit a `ref` names: a branch from stored heads, or a sha git has.
async fn commit_of(mut h: H<'_>, repo: &RepoRow, git_ref: Option<&str>) -> ApiResult<String> {
    let is_sha = |r: &str| r.len() == 40 && r.bytes().all(|b| b.is_ascii_hexdigit());
    match git_ref {
        Some(r) if is_sha(r) => Ok(r.to_ascii_lowercase()),
        None => repo
            .default_head
            .clone()
            .ok_or_else(|| ApiError::not_found("commit (the repo is empty)")),
        Some(name) if name == repo.default_branch => repo
            .default_head
            .clone()
            .ok_or_else(|| ApiError::not_found("commit (the repo is empty)")),
        Some(name) => match branches::get(h.reborrow(), &repo.id, name)
            .await?
            .filter(|b| b.state != "deleted")
        {
            Some(b) => Ok(b.head),
            None => Err(branch_not_found(h, repo, name).await?),
        },
    }
}

/// Resolves `{r}` and `ref`, then runs `read` on the repo off the async threads.
async fn with_repo<T: Send + 'static>(
    state: &AppState,
    caller: &Caller,
    path: &RepoPath,
    git_ref: Option<&str>,
    read: impl FnOnce(&Repo, ObjectId, &RepoRow) -> Result<T, read::Error> + Send + 'static,
) -> ApiResult<T> {
    let (row, sha) = {
        let mut conn = state.store.read().await?;
        let (_, row) = path.resolve(conn.h(), caller, Need::Read).await?;
        let sha = commit_of(conn.h(), &row, git_ref).await?;
        (row, sha)
    };
    let dir_of = row.clone();
    state
        .git(&dir_of, move |repo| {
            let commit = repo
                .commit_exists(&sha)?
                .ok_or_else(|| read::Error::NotFound("commit".into()))?;
            read(&repo, commit, &row)
        })
        .await
}

/// A folder at a ref: folders first, then by name; 1,000 entries a page.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/tree", operation_id = "getTree", tag = "code",
    params(RepoPath, CodeQuery),
    responses((status = 200, body = TreePage), (status = 404, body = ApiErrorBody)))]
pub async fn tree(
    State(state): State<AppState>,
    caller: Caller,
    Path(p): Path<RepoPath>,
    Query(q): Query<CodeQuery>,
) -> ApiResult<axum::Json<TreePage>> {
    let (path, cursor) = (q.path.unwrap_or_default(), q.cursor);
    let page = with_repo(
        &state,
        &caller,
        &p,
        q.git_ref.as_deref(),
        move |repo, commit, _| repo.tree(commit, &path, cursor.as_deref(), TREE_PAGE),
    )
    .await?;
    Ok(axum::Json(page))
}

/// One file's bytes at a ref; its `ETag` is the blob id. Under
/// `Content-Security-Policy: sandbox; default-src 'none'; frame-ancestors 'none'` and
/// `X-Content-Type-Options: nosniff`, as every raw file.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/file", operation_id = "getFile", tag = "code",
    params(RepoPath, CodeQuery),
    responses((status = 200, description = "the file's bytes", content_type = "application/octet-stream",
            headers(("Content-Security-Policy" = String, description = "sandbox; default-src 'none'; frame-ancestors 'none'"),
                ("X-Content-Type-Options" = String, description = "nosniff"))),
        (status = 304, description = "If-None-Match matched"), (status = 404, body = ApiErrorBody)))]
pub async fn file(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(p): Path<RepoPath>,
    Query(q): Query<CodeQuery>,
) -> ApiResult<Response> {
    let path = q.path.unwrap_or_default();
    let (blob, bytes) = with_repo(
        &state,
        &caller,
        &p,
        q.git_ref.as_deref(),
        move |repo, commit, _| repo.file(commit, &path),
    )
    .await?;
    Ok(blob_response(&headers, blob, bytes))
}

/// Raw bytes with the blob id as a strong ETag, answering 304 to a matching
/// `If-None-Match`, under the served files' headers ([`crate::served`]).
fn blob_response(headers: &HeaderMap, blob: ObjectId, bytes: Vec<u8>) -> Response {
    let etag = format!("\"{blob}\"");
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let etag = HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"\""));
    let mut response = if matches {
        (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response()
    } else {
        (
            [
                (header::ETAG, etag),
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/octet-stream"),
                ),
            ],
            bytes,
        )
            .into_response()
    };
    crate::served::protect(response.headers_mut());
    response
}

/// Commits that changed a path, newest first, first-parent, paged; capped at 10,000.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/history", operation_id = "getHistory", tag = "code",
    params(RepoPath, CodeQuery),
    responses((status = 200, body = HistoryPage), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn history(
    State(state): State<AppState>,
    caller: Caller,
    Path(p): Path<RepoPath>,
    Query(q): Query<CodeQuery>,
) -> ApiResult<axum::Json<HistoryPage>> {
    let limit = page_limit(q.limit, HISTORY_DEFAULT, HISTORY_MAX)?.unsigned_abs() as usize;
    let (path, next) = (q.path.unwrap_or_default(), q.next);
    let (mut page, repo_id) = with_repo(
        &state,
        &caller,
        &p,
        q.git_ref.as_deref(),
        move |repo, commit, row| {
            Ok((
                repo.history(commit, &path, limit, next.as_deref())?,
                row.id.clone(),
            ))
        },
    )
    .await?;
    mark_merges(&state, &repo_id, page.items.iter_mut()).await?;
    Ok(axum::Json(page))
}

/// The last commit that changed each entry of a folder, in one walk. A walk that runs
/// long answers `complete: false` with `retry_after_ms`, and goes on in the background.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/last-commits", operation_id = "getLastCommits", tag = "code",
    params(RepoPath, CodeQuery),
    responses((status = 200, body = LastCommits), (status = 404, body = ApiErrorBody)))]
pub async fn last_commits(
    State(state): State<AppState>,
    caller: Caller,
    Path(p): Path<RepoPath>,
    Query(q): Query<CodeQuery>,
) -> ApiResult<axum::Json<LastCommits>> {
    let path = q.path.unwrap_or_default();
    let cache = state.last_commits.clone();
    let (mut answer, repo_id) = with_repo(
        &state,
        &caller,
        &p,
        q.git_ref.as_deref(),
        move |repo, commit, row| Ok((cache.answer(&row.id, repo, commit, &path)?, row.id.clone())),
    )
    .await?;
    let commits = answer.entries.iter_mut().filter_map(|e| e.commit.as_mut());
    mark_merges(&state, &repo_id, commits).await?;
    Ok(axum::Json(answer))
}

/// One commit, with its trailers.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/commits/{sha}", operation_id = "getCommit", tag = "code",
    params(CommitPath),
    responses((status = 200, body = Commit), (status = 404, body = ApiErrorBody)))]
pub async fn commit(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CommitPath>,
) -> ApiResult<axum::Json<Commit>> {
    let sha = &path.sha;
    if !(sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())) {
        return Err(ApiError::not_found("commit"));
    }
    let (mut commit, repo_id) = with_repo(
        &state,
        &caller,
        &path.repo(),
        Some(sha),
        |repo, commit, row| Ok((repo.commit(commit)?, row.id.clone())),
    )
    .await?;
    mark_merges(&state, &repo_id, std::iter::once(&mut commit)).await?;
    Ok(axum::Json(commit))
}

/// Sets `merged_branch` on the commits that are recorded merges of a branch into main.
async fn mark_merges<'a>(
    state: &AppState,
    repo_id: &str,
    commits: impl Iterator<Item = &'a mut Commit>,
) -> ApiResult<()> {
    let mut commits: Vec<&mut Commit> = commits.filter(|c| c.parents.len() > 1).collect();
    if commits.is_empty() {
        return Ok(());
    }
    let shas: Vec<String> = commits.iter().map(|c| c.sha.clone()).collect();
    let mut conn = state.store.read().await?;
    let found = merges::branches_of(conn.h(), repo_id, &shas).await?;
    for c in &mut commits {
        if let Some((_, branch)) = found.iter().find(|(sha, _)| *sha == c.sha) {
            c.merged_branch = Some(branch.clone());
        }
    }
    Ok(())
}

/// `/{owner}/{monorepo}/raw/{*path}` path parameters.
#[derive(Debug, Deserialize)]
pub struct RawMetaPath {
    owner: String,
    monorepo: String,
    /// Relative to `.svc/`.
    path: String,
}

/// `GET /{owner}/{monorepo}/raw/{*path}`: a live file of the meta layer (`.svc/<path>`).
pub async fn raw_meta(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(p): Path<RawMetaPath>,
) -> ApiResult<Response> {
    let meta = RepoPath {
        owner: p.owner,
        monorepo: p.monorepo,
        repo: "meta".into(),
    };
    raw(&state, &caller, &headers, &meta, format!(".svc/{}", p.path)).await
}

/// `/{owner}/{monorepo}/projects/{project}/raw/{*path}` path parameters.
#[derive(Debug, Deserialize)]
pub struct RawProjectPath {
    owner: String,
    monorepo: String,
    /// The repo.
    project: String,
    /// Relative to the repo's root.
    path: String,
}

/// `GET /{owner}/{monorepo}/projects/{project}/raw/{*path}`: a file of a repo's main.
pub async fn raw_project(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(p): Path<RawProjectPath>,
) -> ApiResult<Response> {
    let repo = RepoPath {
        owner: p.owner,
        monorepo: p.monorepo,
        repo: p.project,
    };
    raw(&state, &caller, &headers, &repo, p.path).await
}

async fn raw(
    state: &AppState,
    caller: &Caller,
    headers: &HeaderMap,
    repo: &RepoPath,
    path: String,
) -> ApiResult<Response> {
    let (blob, bytes) = with_repo(state, caller, repo, None, move |repo, commit, _| {
        repo.file(commit, &path)
    })
    .await?;
    Ok(blob_response(headers, blob, bytes))
}
