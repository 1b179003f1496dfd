//! Extractors whose rejections are API errors rather than axum's plain-text ones.

use axum::extract::FromRequest;
use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// A JSON body; bad JSON answers 400 `bad_request` in the error shape.
#[derive(Debug, FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct Json<T>(pub T);

impl<T: serde::Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// Query parameters; bad ones answer 400 `bad_request`.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct Query<T>(pub T);

/// Path parameters; bad ones answer 400 `bad_request`.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct Path<T>(pub T);

/// The `X-Svc-Agent` header: the agent acting through the caller's credential, if any.
#[derive(Debug, Clone, Default)]
pub struct Agent(pub Option<String>);

/// Longest agent name kept.
const AGENT_MAX: usize = 64;

impl<S: Send + Sync> FromRequestParts<S> for Agent {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Agent, ApiError> {
        let Some(value) = parts.headers.get("x-svc-agent") else {
            return Ok(Agent(None));
        };
        let name = value.to_str().map(str::trim).unwrap_or_default();
        if name.is_empty() || name.len() > AGENT_MAX || name.chars().any(char::is_control) {
            return Err(ApiError::bad_request(
                "bad_agent",
                format!("X-Svc-Agent must be 1 to {AGENT_MAX} printable characters"),
            ));
        }
        Ok(Agent(Some(name.to_owned())))
    }
}

/// A WebSocket upgrade when the request asks for one (`Upgrade: websocket`), so one route
/// serves both JSON pages and a socket.
pub struct Upgrade(pub Option<axum::extract::ws::WebSocketUpgrade>);

impl<S: Send + Sync> FromRequestParts<S> for Upgrade {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Upgrade, ApiError> {
        let asks = parts
            .headers
            .get(axum::http::header::UPGRADE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
        if !asks {
            return Ok(Upgrade(None));
        }
        axum::extract::ws::WebSocketUpgrade::from_request_parts(parts, state)
            .await
            .map(|ws| Upgrade(Some(ws)))
            .map_err(|e| ApiError::bad_request("bad_upgrade", e.body_text()))
    }
}
