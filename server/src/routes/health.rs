//! Liveness and the API description.

use axum::Json;
use svc_protocol::Health;

/// Liveness: answers while the process serves.
#[utoipa::path(get, path = "/healthz", tag = "meta", security(()),
    responses((status = 200, body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health {
        ok: true,
        version: env!("CARGO_PKG_VERSION").to_owned(),
    })
}

/// This document: every `/v1` route, generated from the code.
#[utoipa::path(get, path = "/v1/openapi.json", tag = "meta", security(()),
    responses((status = 200, description = "OpenAPI 3.1 document")))]
pub async fn openapi_json() -> Json<&'static serde_json::Value> {
    Json(super::openapi())
}
