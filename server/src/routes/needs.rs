//! listNeeds: the caller's branches that need them, across their monorepos.

use axum::extract::State;
use svc_protocol::ApiErrorBody;
use svc_protocol::needs::NeedsList;

use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::Json;
use crate::needs;
use crate::state::AppState;

/// The needs-you list: the caller's open branches in `conflicts`, `failing` or `ready`,
/// and those in a merge queue (`queued`) or that left one since their last push
/// (`left_queue`, with the entry and its reason),
/// across their 50 most recently active monorepos (the rest named in `skipped`), from
/// stored facts and statuses.
#[utoipa::path(get, path = "/v1/branches", operation_id = "listNeeds", tag = "needs",
    responses((status = 200, body = NeedsList), (status = 401, body = ApiErrorBody)))]
pub async fn list(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<NeedsList>> {
    let mut conn = state.store.read().await?;
    let list = needs::list(conn.h(), &state, &caller.user_id, &caller.login).await?;
    Ok(Json(list))
}
