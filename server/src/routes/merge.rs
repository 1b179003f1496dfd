//! mergeBranch: a merge commit on main, gated by the checks (`merging` makes it), or a
//! place in the repo's merge queue (`merge_queue`) when it has one.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use svc_protocol::ApiErrorBody;
use svc_protocol::branch::{MergeResult, QueueEntry};

use crate::auth::Caller;
use crate::authz::Need;
use crate::checks::merge_queue_on;
use crate::error::ApiResult;
use crate::extract::{Agent, Json, Path, Query};
use crate::merging::{MergeQuery, Merger, land};
use crate::paths::BranchPath;
use crate::state::AppState;

/// Lands the branch on main with a merge commit authored as the caller.
///
/// On a repo with `merge_queue = true` in `.svc/svc.toml` the branch joins the repo's
/// merge queue instead: 202 with its entry (`listQueue`); it lands once its speculative
/// commit's checks pass. `force=1` lands at once past the gate and the queue.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/merge", operation_id = "mergeBranch", tag = "branches",
    params(BranchPath, MergeQuery),
    responses((status = 200, body = MergeResult),
        (status = 202, body = QueueEntry, description = "queued: the repo has a merge queue"),
        (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "conflicts (with `paths`), not_open, no_main, nothing_to_merge, unrelated, main_moved"),
        (status = 412, body = ApiErrorBody, description = "checks_not_green (with `checks`)"),
        (status = 503, body = ApiErrorBody, description = "checks_unknown (with `checks`)")))]
pub async fn merge(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
    Query(q): Query<MergeQuery>,
) -> ApiResult<Response> {
    let (repo, queued) = {
        let mut conn = state.store.read().await?;
        let (access, repo) = path.resolve(conn.h(), &caller, Need::Write).await?;
        let queued = !q.force && merge_queue_on(conn.h(), &state, &access.monorepo, &repo).await?;
        let queued = if queued {
            Some(path.live(conn.h(), &repo).await?)
        } else {
            None
        };
        (repo, queued)
    };
    let by = Merger {
        user_id: caller.user_id.clone(),
        login: caller.login.clone(),
        agent,
    };
    if let Some(branch) = queued {
        let entry = crate::merge_queue::enqueue(&state, &repo, &branch, &by).await?;
        return Ok((StatusCode::ACCEPTED, Json(entry)).into_response());
    }
    let _one_at_once = state.merge_lock(&repo.id).await?;
    let merged = land(&state, &repo.id, &path.branch, &by, q.force).await?;
    Ok(Json(merged).into_response())
}
