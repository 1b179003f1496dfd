//! The CLI ↔ daemon control protocol: one JSON object per line over the daemon's Unix
//! socket, tagged by `type`, each request carrying the protocol version it speaks.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// The control protocol's version; a daemon answers `error` to any other.
pub const DAEMON_PROTOCOL: u32 = 1;

/// A line the CLI sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// What the daemon follows and how that goes.
    Status { protocol: u32 },
    /// Re-read the clone and worktree registries now (the CLI changed them).
    Reload { protocol: u32 },
    /// Stop the daemon; it answers `stopping` and exits.
    Stop { protocol: u32 },
}

/// A line the daemon answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    Status(Status),
    Reloaded,
    Stopping,
    /// The request was not understood (bad JSON, another protocol version).
    Error {
        message: String,
    },
}

/// `status`: the daemon and each monorepo it follows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub protocol: u32,
    pub pid: u32,
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    pub uptime_secs: u64,
    /// The machine name sent in hellos and worktree reports.
    pub machine: String,
    pub monorepos: Vec<Followed>,
}

/// How a monorepo's event socket is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Connection {
    Connecting,
    Connected,
    /// Waiting to reconnect after a failure (`error` says which).
    Retrying,
    /// Not followed any more: access lost or the monorepo deleted (`error` says which).
    Stopped,
}

/// One followed monorepo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Followed {
    pub server: String,
    /// `<owner>/<name>`.
    pub monorepo: String,
    pub monorepo_id: String,
    /// Where it is cloned on this machine.
    pub paths: Vec<String>,
    pub connection: Connection,
    /// The last event `seq` seen; a reconnect resumes after it.
    pub seq: Option<i64>,
    /// The last main checkout moved by the daemon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_main_move: Option<MainMove>,
    /// Repos whose main checkout is left alone because it has local changes or is not on
    /// main, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<Held>,
    /// The last failure, if the socket is not connected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Repos added to the monorepo after it was cloned, laid out here by the daemon.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub laid_out: Vec<LaidOut>,
    /// Ids of this machine's branch worktrees of the monorepo, as sent in the last hello.
    #[serde(default)]
    pub worktrees: Vec<String>,
    /// The last meta sync of each clone's `.svc/` (none for a plain repo).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub syncs: Vec<LastSync>,
}

/// A main checkout fast-forwarded to `head`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MainMove {
    pub repo: String,
    pub head: String,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

/// A repo added to the monorepo after it was cloned, cloned by the daemon at its path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaidOut {
    pub repo: String,
    pub path: String,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
}

/// A main checkout not fast-forwarded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub repo: String,
    pub path: String,
    pub reason: String,
}

/// The last sync of one clone's `.svc/` with the meta layer that changed something or
/// failed (else the first one), run by the daemon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastSync {
    /// The clone.
    pub path: String,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// The last sync of the clone, whatever it did.
    #[serde(with = "time::serde::rfc3339")]
    pub checked_at: OffsetDateTime,
    pub outcome: SyncOutcome,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(flatten)]
    pub changes: MetaChanges,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncOutcome {
    Synced,
    /// Synced, but a file was edited here and on another machine: see `conflicts`.
    Conflicts,
    Failed,
}

/// What one sync changed (paths relative to `.svc/`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaChanges {
    /// The meta layer's version now in `.svc/`.
    #[serde(default)]
    pub version: Option<String>,
    /// Local changes saved to the server.
    #[serde(default)]
    pub saved: Vec<String>,
    /// Files written from the server.
    #[serde(default)]
    pub downloaded: Vec<String>,
    /// Files removed because the server removed them.
    #[serde(default)]
    pub deleted: Vec<String>,
    #[serde(default)]
    pub conflicts: Vec<MetaConflict>,
}

/// A file edited here and elsewhere: the server's copy is at `path`, the local edit at
/// `copy` (null when the local edit was a deletion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaConflict {
    pub path: String,
    pub copy: Option<String>,
}
