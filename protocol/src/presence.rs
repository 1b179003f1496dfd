//! Presence: which machines of which people are connected to a monorepo, and their
//! branch worktrees.

use serde::{Deserialize, Serialize};

/// `{type: "hello"}`: this socket's machine and the ids of its branch worktrees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Hello {
    /// Default: the credential's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    #[serde(default)]
    pub worktrees: Vec<String>,
}

/// `{type: "hello_ok"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HelloOk {
    pub machine: String,
    pub worktrees: Vec<String>,
    /// Machines connected to the monorepo now, this one included.
    pub machines_active: i64,
    /// Worktrees of the connected machines.
    pub worktrees_active: i64,
}
