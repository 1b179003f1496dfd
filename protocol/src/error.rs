//! The error shape: `{"error": {"code", "message", ...}}`.

use serde::{Deserialize, Serialize};

/// The body of every error answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApiErrorBody {
    pub error: ErrorBody,
}

/// What went wrong: a stable machine `code` and a sentence for people.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// The error's code (the `ErrorCode` schema lists them); a string on the wire so that
    /// older clients read codes added later.
    #[cfg_attr(feature = "openapi", schema(value_type = crate::ErrorCode))]
    pub code: String,
    pub message: String,
    /// Paths the error is about, when it concerns files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
    /// The Checks object a refused merge or release was judged by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<crate::branch::Checks>,
    /// The current version a stale `base` lost against (409 `edited`), or the branch's
    /// head now (409 `head_moved`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
}
