//! enableAutoMerge / disableAutoMerge: arm a branch to merge itself once its gate passes,
//! or disarm it (`auto_merge` says how it is merged and disarmed).

use axum::extract::State;
use axum::http::StatusCode;
use svc_protocol::ApiErrorBody;
use svc_protocol::branch::AutoMerge;

use crate::auth::Caller;
use crate::authz::Need;
use crate::auto_merge::{self, BY_HAND};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path};
use crate::git::record::Actor;
use crate::merging::Merger;
use crate::paths::BranchPath;
use crate::state::AppState;
use crate::store::branches;

/// Arms the open branch to merge itself: within seconds of its required checks passing
/// the server merges it, as the caller (with the agent, when an agent session's
/// credential or `X-Svc-Agent` names one). Arming again replaces who armed it;
/// `auto_merge.enabled` follows.
#[utoipa::path(put, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/auto-merge", operation_id = "enableAutoMerge", tag = "branches",
    params(BranchPath),
    responses((status = 200, body = AutoMerge), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "not_open")))]
pub async fn enable(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
) -> ApiResult<Json<AutoMerge>> {
    let by = Merger {
        user_id: caller.user_id.clone(),
        login: caller.login.clone(),
        agent,
    };
    let mut tx = state.store.begin().await?;
    let (_, repo) = path.resolve(tx.h(), &caller, Need::Write).await?;
    let row = path.live(tx.h(), &repo).await?;
    if row.state != "open" {
        return Err(auto_merge::not_open(&row));
    }
    let armed = auto_merge::arm(&mut tx, &repo, &row, &by).await?;
    tx.commit().await?;
    // Its gate may pass already.
    state.auto_merge.poke(&repo.id);
    auto_merge::view(&armed)
        .map(Json)
        .ok_or_else(|| ApiError::internal("the arming was not stored"))
}

/// Disarms the branch (`auto_merge.disabled` with reason `by_hand`); a branch not armed
/// stays as it is.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/auto-merge", operation_id = "disableAutoMerge", tag = "branches",
    params(BranchPath),
    responses((status = 204), (status = 404, body = ApiErrorBody)))]
pub async fn disable(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let (_, repo) = path.resolve(tx.h(), &caller, Need::Write).await?;
    let row = path.live(tx.h(), &repo).await?;
    if branches::disarm(tx.h(), &repo.id, &row.name).await? {
        let actor = Actor {
            login: Some(caller.login.clone()),
            agent,
        };
        let ev = auto_merge::disabled_event(&repo, &row, BY_HAND, Some(&actor));
        crate::git::record::append(tx.h(), &repo, &[ev], crate::store::now_ms()).await?;
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
