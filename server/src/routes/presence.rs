//! Machines and reported worktrees of a monorepo.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::presence::{MachineList, PutWorktree, Worktree, WorktreeList};

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path, Query};
use crate::paths::{MonorepoPath, WorktreePath};
use crate::presence::{
    self, Report, check_machine, check_worktree_id, machine_view, worktree_view,
};
use crate::state::AppState;
use crate::store::{presence as rows, repos};

const BRANCH_MAX: usize = 255;
const PATH_MAX: usize = 4096;

/// One machine per row: who, its worktrees, whether it is connected, its last action.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/machines", operation_id = "listMachines", tag = "presence",
    params(MonorepoPath),
    responses((status = 200, body = MachineList), (status = 404, body = ApiErrorBody)))]
pub async fn machines(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<MachineList>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let rows = rows::machines(conn.h(), &access.monorepo.id).await?;
    Ok(Json(MachineList {
        items: rows.iter().map(machine_view).collect(),
    }))
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    /// Only this machine's worktrees.
    pub(crate) machine: Option<String>,
}

/// The reported worktrees, by machine then id.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/worktrees", operation_id = "listWorktrees", tag = "presence",
    params(MonorepoPath, ListQuery),
    responses((status = 200, body = WorktreeList), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Query(q): Query<ListQuery>,
) -> ApiResult<Json<WorktreeList>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let machine = q.machine.as_deref().map(str::trim);
    let rows = rows::worktrees(conn.h(), &access.monorepo.id, machine).await?;
    Ok(Json(WorktreeList {
        items: rows.iter().map(worktree_view).collect(),
    }))
}

fn bad(message: String) -> ApiError {
    ApiError::bad_request(ErrorCode::BadRequest, message)
}

/// A printable text of 1 to `max` characters, trimmed.
fn check_text<'a>(what: &str, s: &'a str, max: usize) -> ApiResult<&'a str> {
    let s = s.trim();
    if s.is_empty() || s.chars().count() > max || s.chars().any(char::is_control) {
        return Err(bad(format!(
            "{what} must be 1 to {max} printable characters"
        )));
    }
    Ok(s)
}

/// Reports a branch worktree (any member): 201 when the id is new, 200 when updated.
#[utoipa::path(put, path = "/v1/monorepos/{owner}/{monorepo}/worktrees/{id}", operation_id = "putWorktree", tag = "presence",
    request_body = PutWorktree,
    params(WorktreePath),
    responses((status = 201, body = Worktree), (status = 200, body = Worktree),
        (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn put(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(worktree): Path<WorktreePath>,
    Json(body): Json<PutWorktree>,
) -> ApiResult<(StatusCode, Json<Worktree>)> {
    check_worktree_id(&worktree.id).map_err(bad)?;
    let machine = check_machine(&body.machine).map_err(bad)?;
    let branch = check_text("branch", &body.branch, BRANCH_MAX)?;
    let path = body
        .path
        .as_deref()
        .map(|p| check_text("path", p, PATH_MAX))
        .transpose()?;
    let mut tx = state.store.begin().await?;
    let access = worktree.access(tx.h(), &caller, Need::Write).await?;
    let repo = repos::by_name(tx.h(), &access.monorepo.id, body.repo.trim())
        .await?
        .ok_or_else(|| ApiError::not_found("repo"))?;
    let report = Report {
        monorepo_id: &access.monorepo.id,
        id: &worktree.id,
        user_id: &caller.user_id,
        login: &caller.login,
        agent: agent.as_deref(),
        machine: &machine,
        repo_id: &repo.id,
        branch,
        path,
    };
    let (row, new) = presence::report(tx.h(), &report).await?;
    tx.commit().await?;
    let status = if new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(worktree_view(&row))))
}

/// Removes a reported worktree (any member).
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/worktrees/{id}", operation_id = "removeWorktree", tag = "presence",
    params(WorktreePath),
    responses((status = 204), (status = 404, body = ApiErrorBody)))]
pub async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<WorktreePath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Write).await?;
    if !presence::remove(
        tx.h(),
        &access.monorepo.id,
        &path.id,
        &caller.login,
        agent.as_deref(),
    )
    .await?
    {
        return Err(ApiError::not_found("worktree"));
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
