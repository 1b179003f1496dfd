//! The CI webhook receiver: `POST /v1/ci/webhooks/{connection_id}`, authenticated by the
//! connection's webhook token (a signature over the timestamp and body, or the plain
//! token), not by a credential.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;

use crate::ci::signature::{self, Checked};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::paths::CiWebhookPath;
use crate::state::AppState;
use crate::store::ci;

/// The largest webhook body taken.
pub const BODY_MAX: usize = 5 * 1024 * 1024;

/// Bodies over this (or of unannounced length) are read a few at a time: one costs the
/// server several copies of itself until applied, and anyone who knows a webhook URL
/// may send them before any signature is checked.
const LARGE: u64 = 256 * 1024;

/// How many large bodies are read and applied at once; the others wait their turn.
static LARGE_BODIES: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(4);

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooLarge,
        "a CI webhook body is at most 5 MiB",
    )
}

/// Takes one webhook of the CI service (`ping`, `build.*`, `job.*`, as the headers
/// `X-Ci-Event` or `X-Buildkite-Event` name it). `X-Ci-Signature` / `X-Buildkite-Signature`
/// `timestamp=<t>,signature=<hex>` is HMAC-SHA256 keyed by the webhook token over
/// `<t>.<body>`, refused when over 5 minutes off; else `X-Ci-Token` / `X-Buildkite-Token`
/// is the token itself. Build, job and the build's commit status are written with their
/// events before the answer; a state never moves back.
#[utoipa::path(post, path = "/v1/ci/webhooks/{connection_id}", operation_id = "receiveCiWebhook", tag = "ci",
    params(CiWebhookPath),
    security(("ciWebhookToken" = []), ("ciWebhookSignature" = [])),
    request_body(content = std::collections::HashMap<String, serde_json::Value>, content_type = "application/json",
        description = "the CI service's webhook payload, an object of its own keys"),
    responses((status = 200, description = "taken"), (status = 400, body = ApiErrorBody),
        (status = 401, body = ApiErrorBody, description = "a signature or token that does not match, or a stale timestamp"),
        (status = 404, body = ApiErrorBody, description = "no such connection (or it was disconnected)"),
        (status = 413, body = ApiErrorBody, description = "too_large: over 5 MiB")))]
pub async fn receive(
    State(state): State<AppState>,
    Path(path): Path<CiWebhookPath>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Json<serde_json::Value>> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_MAX as u64) {
        return Err(too_large());
    }
    // (The semaphore is never closed, so the permit is always had.)
    let _turn = match declared {
        Some(n) if n <= LARGE => None,
        _ => LARGE_BODIES.acquire().await.ok(),
    };
    let connection = {
        let mut conn = state.store.read().await?;
        ci::connection(conn.h(), &path.connection_id)
            .await?
            .ok_or_else(|| ApiError::not_found("CI connection"))?
    };
    let bytes = axum::body::to_bytes(body, BODY_MAX)
        .await
        .map_err(|_| too_large())?;
    let now = crate::store::now_ms() / 1000;
    let checked: Checked = signature::check(&headers, &bytes, &connection.webhook_token, now)
        .map_err(|why| ApiError::unauthorized(format!("the webhook is refused: {why}")))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::bad_request(ErrorCode::BadRequest, format!("the body is not JSON: {e}"))
    })?;
    let event = ["x-ci-event", "x-buildkite-event"]
        .iter()
        .find_map(|n| headers.get(*n).and_then(|v| v.to_str().ok()))
        .map(str::to_owned)
        .or_else(|| value["event"].as_str().map(str::to_owned))
        .ok_or_else(|| ApiError::bad_request(ErrorCode::BadRequest, "no X-Ci-Event"))?;
    crate::ci::apply(
        &state,
        &connection,
        &event,
        &value,
        crate::ci::Source::Webhook(checked),
    )
    .await?;
    crate::crash::point("ci.applied");
    Ok(Json(serde_json::json!({"ok": true})))
}
