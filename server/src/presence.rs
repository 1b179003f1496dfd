//! Presence: a socket's `hello` marks its machine connected with its branch worktrees;
//! closing the socket ends it. (Skeleton: filled in by the presence work.)

use svc_protocol::presence::{Hello, HelloOk};

use crate::app::AppState;

/// One event socket of one credential on one monorepo.
#[derive(Debug, Clone)]
pub struct Session {
    /// Unique per socket (across processes).
    pub socket_id: String,
    pub monorepo_id: String,
    pub user_id: String,
    pub login: String,
    pub credential_id: String,
    pub credential_name: String,
}

/// Why a hello was not taken; the message goes back in an `error` frame.
#[derive(Debug, thiserror::Error)]
pub enum HelloError {
    #[error("{0}")]
    Invalid(String),
    #[error("cannot record presence: {0}")]
    Internal(String),
}

/// Takes a hello: replaces the socket's last one and answers its presence.
pub async fn hello(_state: &AppState, _s: &Session, hello: Hello) -> Result<HelloOk, HelloError> {
    let _ = hello;
    Err(HelloError::Internal("presence is not built yet".into()))
}

/// The socket closed: its presence ends.
pub async fn closed(_state: &AppState, _s: &Session) {}
