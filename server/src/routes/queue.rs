//! listQueue / leaveQueue: a repo's merge queue (`merge_queue` runs it), and taking a
//! branch out of it by hand.

use axum::extract::State;
use axum::http::StatusCode;
use svc_protocol::ApiErrorBody;
use svc_protocol::branch::Queue;

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::ApiResult;
use crate::extract::{Agent, Json, Path};
use crate::git::record::Actor;
use crate::merge_queue;
use crate::paths::{BranchPath, RepoPath};
use crate::state::AppState;

/// The repo's merge queue.
///
/// The entries in it, front first (`position` 1), each with its speculative commit once
/// made, then the latest 20 out of it (landed, or left with a `reason`).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/queue", operation_id = "listQueue", tag = "branches",
    params(RepoPath),
    responses((status = 200, body = Queue), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
) -> ApiResult<Json<Queue>> {
    let repo = {
        let mut conn = state.store.read().await?;
        path.resolve(conn.h(), &caller, Need::Read).await?.1
    };
    let entries = merge_queue::list(&state, &repo).await?;
    Ok(Json(Queue { entries }))
}

/// Takes the branch out of its repo's merge queue.
///
/// `queue.left` follows with reason `by_hand`; the entries behind it are tested again
/// without it. A branch not in the queue stays as it is.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/queue", operation_id = "leaveQueue", tag = "branches",
    params(BranchPath),
    responses((status = 204), (status = 404, body = ApiErrorBody)))]
pub async fn leave(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
) -> ApiResult<StatusCode> {
    let (repo, branch) = {
        let mut conn = state.store.read().await?;
        let repo = path.resolve(conn.h(), &caller, Need::Write).await?.1;
        let branch = path.live(conn.h(), &repo).await?;
        (repo, branch)
    };
    let actor = Actor {
        login: Some(caller.login.clone()),
        agent,
    };
    merge_queue::leave_by_hand(&state, &repo, &branch.name, &actor).await?;
    Ok(StatusCode::NO_CONTENT)
}
