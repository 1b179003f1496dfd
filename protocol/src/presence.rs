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

/// One socket that said hello: who is connected, from which machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Connection {
    /// The socket's id.
    pub id: String,
    pub login: String,
    pub machine: String,
    /// The name of the credential the socket signed in with.
    pub credential: String,
    #[serde(with = "time::serde::rfc3339")]
    pub connected_at: time::OffsetDateTime,
}

/// The `presence` collection's row: everyone connected, plus the connection that changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PresenceRow {
    pub connections: Vec<Connection>,
    pub connection: Connection,
}

/// `GET {m}/machines` row (and `machine.updated`'s): one machine of one person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Machine {
    /// Who: the machine's person.
    pub login: String,
    pub machine: String,
    /// Ids of its branch worktrees, sorted.
    pub worktrees: Vec<String>,
    /// True while one of its sockets has said hello and is open.
    pub connected: bool,
    /// `hello`, `worktree.reported`, `worktree.removed`, `push` or `disconnected`.
    pub last_action_kind: String,
    #[serde(with = "time::serde::rfc3339")]
    pub last_action_at: time::OffsetDateTime,
}

/// `GET {m}/machines`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MachineList {
    pub items: Vec<Machine>,
}

/// A reported branch worktree (`GET {m}/worktrees` row, `worktree.reported`'s row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Worktree {
    pub id: String,
    /// Who reported it.
    pub login: String,
    pub machine: String,
    pub repo: String,
    pub branch: String,
    pub path: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub reported_at: time::OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: time::OffsetDateTime,
}

/// `PUT {m}/worktrees/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PutWorktree {
    /// Repo name in the monorepo.
    pub repo: String,
    pub branch: String,
    pub machine: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// `GET {m}/worktrees`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WorktreeList {
    pub items: Vec<Worktree>,
}

/// Most worktree ids one hello may carry.
pub const HELLO_WORKTREES_MAX: usize = 1000;
/// Longest worktree id.
pub const WORKTREE_ID_MAX: usize = 64;
/// Longest machine name.
pub const MACHINE_MAX: usize = 64;

/// Worktree ids are 1 to 64 characters of `A-Z a-z 0-9 _ -`.
pub fn valid_worktree_id(id: &str) -> bool {
    (1..=WORKTREE_ID_MAX).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
