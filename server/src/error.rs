//! API errors: every failure answers `{"error": {"code", "message"}}` with its status.
//! Every conversion into [`ApiError`] lives here, so `?` works alike in all handlers.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use svc_protocol::branch::Checks;
use svc_protocol::{ApiErrorBody, ErrorBody, ErrorCode};

use crate::git::{diff, merge, read, write};

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: ErrorCode,
    pub message: String,
    /// Paths the error is about (conflicts).
    pub paths: Option<Vec<String>>,
    /// The Checks object a refused merge was judged by.
    pub checks: Option<Box<Checks>>,
    /// The current version, for 409 `edited`; the branch's head, for 409 `head_moved`.
    pub current: Option<String>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            paths: None,
            checks: None,
            current: None,
        }
    }

    pub fn with_paths(self, paths: Vec<String>) -> Self {
        Self {
            paths: Some(paths),
            ..self
        }
    }

    pub fn with_current(self, current: Option<String>) -> Self {
        Self { current, ..self }
    }

    pub fn with_checks(self, checks: Checks) -> Self {
        Self {
            checks: Some(Box::new(checks)),
            ..self
        }
    }

    pub fn bad_request(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 400 `bad_cursor`: a list's `cursor` that is not one of its own `next_cursor`s.
    pub fn bad_cursor() -> Self {
        Self::bad_request(
            ErrorCode::BadCursor,
            "this cursor was not made by this list",
        )
    }

    /// 404 for anything unknown or not visible to the caller.
    pub fn not_found(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NotFound,
            format!("{what} not found"),
        )
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, message)
    }

    pub fn forbidden(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, code, message)
    }

    pub fn conflict(code: ErrorCode, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, message)
    }

    /// A failure of ours: logged in full, answered without detail.
    pub fn internal(err: impl std::fmt::Display) -> Self {
        tracing::error!(error = %err, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            "internal error; it has been logged",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ApiErrorBody {
            error: ErrorBody {
                code: self.code.as_str().to_owned(),
                message: self.message,
                paths: self.paths,
                checks: self.checks.map(|c| *c),
                current: self.current,
            },
        };
        (self.status, axum::Json(body)).into_response()
    }
}

impl From<crate::store::Error> for ApiError {
    fn from(err: crate::store::Error) -> Self {
        Self::internal(err)
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        let status = r.status();
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::TooLarge,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
            _ => ErrorCode::BadRequest,
        };
        Self::new(status, code, r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        Self::bad_request(ErrorCode::BadRequest, r.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> Self {
        Self::bad_request(ErrorCode::BadRequest, r.body_text())
    }
}

impl From<read::Error> for ApiError {
    fn from(e: read::Error) -> Self {
        match e {
            read::Error::NotFound(what) => ApiError::not_found(&what),
            read::Error::BadCursor => ApiError::bad_request(
                ErrorCode::BadCursor,
                "this cursor was not made by this list",
            ),
            read::Error::Git(why) => ApiError::internal(why),
        }
    }
}

impl From<diff::Error> for ApiError {
    fn from(e: diff::Error) -> Self {
        match e {
            diff::Error::NotFound(what) => ApiError::not_found(&what),
            diff::Error::Git(why) => ApiError::internal(why),
        }
    }
}

impl From<write::Error> for ApiError {
    fn from(e: write::Error) -> Self {
        let unprocessable = |code, message: String, path: String| {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, message).with_paths(vec![path])
        };
        match e {
            write::Error::NoSuchPath(path) => unprocessable(
                ErrorCode::NoSuchPath,
                format!("there is no file at {path} to delete; nothing was written"),
                path,
            ),
            write::Error::Blocked { path, why } => unprocessable(
                ErrorCode::BadPath,
                format!("{path} {why}: it cannot be written as a file; nothing was written"),
                path,
            ),
            write::Error::Read(e) => e.into(),
        }
    }
}

impl From<merge::Error> for ApiError {
    fn from(e: merge::Error) -> Self {
        match e {
            merge::Error::NotFound(what) => ApiError::not_found(&what),
            merge::Error::Conflicts(paths) => ApiError::conflict(
                ErrorCode::Conflicts,
                format!("conflicts with main in: {}", paths.join(", ")),
            )
            .with_paths(paths),
            merge::Error::Unrelated { .. } => ApiError::conflict(
                ErrorCode::Unrelated,
                "the branch shares no history with main, so it cannot be merged",
            ),
            merge::Error::NothingToMerge { head, .. } => ApiError::conflict(
                ErrorCode::NothingToMerge,
                format!("main has {head} already: there is nothing to merge"),
            ),
            merge::Error::RefMoved(name) => ApiError::conflict(
                ErrorCode::RefMoved,
                format!("{name} moved meanwhile; try again"),
            ),
            merge::Error::RefExists(name) => {
                ApiError::conflict(ErrorCode::BranchExists, format!("{name} already exists"))
            }
            merge::Error::RefClash { name, existing } => {
                let short = |n: &str| n.strip_prefix("refs/heads/").unwrap_or(n).to_owned();
                let (name, existing) = (short(&name), short(&existing));
                ApiError::conflict(
                    ErrorCode::BranchExists,
                    format!(
                        "{name} clashes with the existing branch {existing} (git cannot hold both): pick another name or delete {existing}"
                    ),
                )
            }
            merge::Error::BadRefName(name) => ApiError::bad_request(
                ErrorCode::BadBranchName,
                format!("{name:?} is not a valid git branch name"),
            ),
            merge::Error::Git(why) => ApiError::internal(why),
        }
    }
}
