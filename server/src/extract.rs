//! Extractors whose rejections are API errors rather than axum's plain-text ones.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use svc_protocol::ErrorCode;

use crate::auth::{Caller, MaybeCaller};
use crate::error::ApiError;
use crate::state::AppState;

/// A JSON object body. Like axum's `Json`, a missing or wrong content type answers 415,
/// JSON that does not parse 400 and JSON of the wrong shape 422, all in the error shape;
/// unlike it, a body that is not an object (which serde would take positionally for a
/// struct) is a wrong shape too.
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Json<T>, ApiError> {
        if !is_json(req.headers()) {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorCode::UnsupportedMediaType,
                "send the body as Content-Type: application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            let code = if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ErrorCode::TooLarge
            } else {
                ErrorCode::BadRequest
            };
            ApiError::new(r.status(), code, r.body_text())
        })?;
        json_object(&bytes).map(Json)
    }
}

/// `application/json`, or any `application/*+json`, parameters aside.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or_default().trim();
    let essence = essence.to_ascii_lowercase();
    essence == "application/json"
        || essence
            .strip_prefix("application/")
            .is_some_and(|sub| sub.ends_with("+json"))
}

/// Parses a body that must be a JSON object: 400 when it is not JSON, 422 when it is JSON
/// of another kind or shape.
pub fn json_object<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let axum::Json(value) = axum::Json::<T>::from_bytes(bytes)?;
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::BadRequest,
            "the body must be a JSON object",
        ));
    }
    Ok(value)
}

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

/// A query flag such as `force=1`: `1` or `true` turn it on; `0`, `false`, an empty value
/// and an absent flag leave it off; anything else is refused (400), so a typo never
/// passes for "off". Use with `#[serde(default, deserialize_with =
/// "crate::extract::flag")]`.
pub fn flag<'de, D: serde::Deserializer<'de>>(value: D) -> Result<bool, D::Error> {
    let value = <String as serde::Deserialize>::deserialize(value)?;
    match value.as_str() {
        "1" | "true" => Ok(true),
        "0" | "false" | "" => Ok(false),
        other => Err(serde::de::Error::custom(format!(
            "a flag is 1 or 0, not {other:?}"
        ))),
    }
}

/// Longest `Idempotency-Key`.
pub const IDEMPOTENCY_KEY_MAX: usize = 255;

/// The `Idempotency-Key` header, if sent: 1 to [`IDEMPOTENCY_KEY_MAX`] visible ASCII
/// characters (as `HeaderValue::to_str` takes them), else 400 `bad_request`.
pub fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get("idempotency-key") {
        None => Ok(None),
        Some(v) => match v.to_str() {
            Ok(k) if !k.is_empty() && k.len() <= IDEMPOTENCY_KEY_MAX => Ok(Some(k.to_owned())),
            _ => Err(ApiError::bad_request(
                ErrorCode::BadRequest,
                format!(
                    "an Idempotency-Key is 1 to {IDEMPOTENCY_KEY_MAX} visible ASCII characters"
                ),
            )),
        },
    }
}

/// A list's `limit`: `default` when absent, else 1 to `max`; anything else answers 400.
pub fn page_limit(given: Option<i64>, default: i64, max: i64) -> Result<i64, ApiError> {
    let limit = given.unwrap_or(default);
    if (1..=max).contains(&limit) {
        Ok(limit)
    } else {
        Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("limit is 1 to {max}"),
        ))
    }
}

/// The agent acting through the caller's credential, if any: an agent session's own
/// (from its credential, whatever the header says or omits), else the `X-Svc-Agent`
/// header a person's credential may send for an agent running on their machine.
#[derive(Debug, Clone, Default)]
pub struct Agent(pub Option<String>);

/// Longest agent name kept.
const AGENT_MAX: usize = 64;

impl FromRequestParts<AppState> for Agent {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &AppState,
    ) -> Result<Agent, ApiError> {
        // The caller is authenticated once per request; a bad credential is the caller
        // extractor's to refuse.
        let caller = match parts.extensions.get::<Caller>() {
            Some(caller) => Some(caller.clone()),
            None => MaybeCaller::from_request_parts(parts, state)
                .await
                .ok()
                .and_then(|c| c.0),
        };
        if let Some(agent) = caller.as_ref().and_then(Caller::session_agent) {
            return Ok(Agent(Some(agent.to_owned())));
        }
        Ok(Agent(header_agent(&parts.headers)?))
    }
}

/// The `X-Svc-Agent` header's agent, checked.
pub fn header_agent(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get("x-svc-agent") else {
        return Ok(None);
    };
    let name = value.to_str().map(str::trim).unwrap_or_default();
    if name.is_empty() || name.len() > AGENT_MAX || name.chars().any(char::is_control) {
        return Err(ApiError::bad_request(
            ErrorCode::BadAgent,
            format!("X-Svc-Agent must be 1 to {AGENT_MAX} printable characters"),
        ));
    }
    Ok(Some(name.to_owned()))
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
            .map_err(|e| ApiError::bad_request(ErrorCode::BadUpgrade, e.body_text()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    #[derive(serde::Deserialize)]
    struct Flagged {
        #[serde(default, deserialize_with = "super::flag")]
        force: bool,
    }

    fn force(query: &str) -> Option<bool> {
        let uri = format!("/merge?{query}").parse().unwrap();
        axum::extract::Query::<Flagged>::try_from_uri(&uri)
            .ok()
            .map(|q| q.0.force)
    }

    #[test]
    fn a_flag_is_on_for_1_and_true_off_for_0_false_or_absent_and_else_refused() {
        assert_eq!(force("force=1"), Some(true));
        assert_eq!(force("force=true"), Some(true));
        for off in ["", "force=0", "force=false", "force=", "other=1"] {
            assert_eq!(force(off), Some(false), "{off}");
        }
        for bad in ["force=yes", "force=2", "force=TRUE"] {
            assert_eq!(force(bad), None, "{bad}");
        }
    }
}
