//! Liveness and the API description.

use axum::Json;
use axum::extract::State;
use svc_protocol::Health;

use crate::state::AppState;

/// Liveness: answers while the process serves.
#[utoipa::path(get, path = "/healthz", operation_id = "healthz", tag = "meta", security(()),
    responses((status = 200, body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health {
        ok: true,
        version: env!("CARGO_PKG_VERSION").to_owned(),
    })
}

/// This document: every `/v1` route, generated from the code.
#[utoipa::path(get, path = "/v1/openapi.json", operation_id = "getOpenapi", tag = "meta", security(()),
    responses((status = 200, description = "OpenAPI 3.1 document")))]
pub async fn openapi_json(State(state): State<AppState>) -> Json<serde_json::Value> {
    Json(super::openapi_for(state.config.base_url.as_str()))
}
