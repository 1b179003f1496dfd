//! mergeBranch: a merge commit on main, gated by the checks (`merging` makes it).

use axum::extract::State;
use svc_protocol::ApiErrorBody;
use svc_protocol::branch::MergeResult;

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::ApiResult;
use crate::extract::{Agent, Json, Path, Query};
use crate::merging::{MergeQuery, Merger, land};
use crate::paths::BranchPath;
use crate::state::AppState;

/// Lands the branch on main with a merge commit authored as the caller.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/merge", operation_id = "mergeBranch", tag = "branches",
    params(BranchPath, MergeQuery),
    responses((status = 200, body = MergeResult), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "conflicts (with `paths`), not_open, no_main, nothing_to_merge, unrelated, main_moved"),
        (status = 412, body = ApiErrorBody, description = "checks_not_green (with `checks`)"),
        (status = 503, body = ApiErrorBody, description = "checks_unknown (with `checks`)")))]
pub async fn merge(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
    Query(q): Query<MergeQuery>,
) -> ApiResult<Json<MergeResult>> {
    let repo_id = {
        let mut conn = state.store.read().await?;
        path.resolve(conn.h(), &caller, Need::Write).await?.1.id
    };
    let by = Merger {
        user_id: caller.user_id.clone(),
        login: caller.login.clone(),
        agent,
    };
    let _one_at_once = state.merge_lock(&repo_id).await?;
    land(&state, &repo_id, &path.branch, &by, q.force)
        .await
        .map(Json)
}
