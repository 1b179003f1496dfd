//! Agent sessions: coding agents the server runs as their user.

use axum::extract::State;
use svc_protocol::ApiErrorBody;
use svc_protocol::agent::AgentModelList;

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::ApiResult;
use crate::extract::{Json, Path};
use crate::paths::MonorepoPath;
use crate::state::AppState;

/// The models a session may use here (the server's `[[agents.models]]`), the default
/// first. Empty when the server runs no coding agents.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/agent-models", tag = "agents",
    params(MonorepoPath),
    responses((status = 200, body = AgentModelList), (status = 404, body = ApiErrorBody)))]
pub async fn models(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<AgentModelList>> {
    let mut conn = state.store.read().await?;
    path.access(conn.h(), &caller, Need::Read).await?;
    Ok(Json(AgentModelList {
        items: state.config.agents.listed(),
    }))
}
