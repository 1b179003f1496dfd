//! Events: every change, with its `seq` in the monorepo's log.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// Upsert or delete of one row of a client-side collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Upsert,
    Delete,
}

/// One event of a monorepo's stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Event {
    pub seq: i64,
    pub kind: String,
    pub monorepo: String,
    pub monorepo_id: String,
    /// The repo it concerns (`meta` for the meta layer), if any.
    pub repo: Option<String>,
    pub collection: String,
    pub key: String,
    pub op: Op,
    /// The changed row in its REST shape.
    pub row: serde_json::Value,
    /// True when `row` holds stored fields only (branches): refetch for the rest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// For pushes and main moves: the commit before (zeros for a new branch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// For pushes and main moves: the new commit (zeros when deleted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// Login of who caused it, when known.
    pub actor: Option<String>,
    /// The agent (`X-Svc-Agent`) that acted for `actor`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// The kind's own fields: issue events carry `number`, `body_version`, `items` (the
    /// timeline items the change made; a comment body over 16 KB is null), `removed`,
    /// `comment`, `reactions` (and `body` when opened); `label.updated` carries `from`;
    /// a `merged` event and its main's `default_head.updated` carry `change`, the id of
    /// the change (mergeChange) they landed with; `auto_merge.disabled` carries `reason` (`pushed_by_other`, `by_hand`,
    /// `access_lost`, or `merge_refused:<error code>` like `merge_refused:conflicts`).
    #[serde(flatten)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// The body fields of a stored event that [`Event::details`] carries.
pub const DETAIL_FIELDS: &[&str] = &[
    "number",
    "body_version",
    "items",
    "removed",
    "comment",
    "reactions",
    "body",
    "from",
    "change",
    "reason",
];

/// The stored fields of a branch, as events carry them (`partial: true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BranchRow {
    pub repo: String,
    pub name: String,
    pub head: String,
    pub author: Option<String>,
    pub pusher: Option<String>,
    pub state: String,
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub pushed_at: OffsetDateTime,
}

/// The `default_heads` row: a repo's main.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DefaultHeadRow {
    pub repo: String,
    pub default_branch: String,
    pub default_head: Option<String>,
}

/// A commit id of all zeros: "no commit" in `before`/`head`.
pub const ZERO_SHA: &str = "0000000000000000000000000000000000000000";

/// The monorepo socket's protocol version, sent in `caught_up` so a client can tell
/// which frames to expect.
pub const SOCKET_PROTOCOL: u32 = 1;

/// A frame the server sends on a monorepo event socket (`GET {m}/events` upgraded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerFrame {
    /// One event, live or from the catch-up.
    Event(Box<Event>),
    /// More than 500 events came after `since`: refetch, then resume from `seq`.
    Resync { seq: i64, oldest_seq: i64 },
    /// The catch-up is done; live events follow. `feed_n` with the `feed` topic.
    CaughtUp {
        seq: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feed_n: Option<i64>,
    },
    /// The answer to a `hello`: this socket's presence.
    HelloOk(crate::presence::HelloOk),
    /// An activity line (`feed` topic), numbered `n` in the order lines go out.
    Feed { n: i64, event: serde_json::Value },
    /// More than 500 feed lines came after `feed_since`: refetch, then reconnect with
    /// `feed_n`.
    FeedResync { feed_n: i64 },
    /// A frame was not understood or a hello was refused; the socket stays open.
    Error { message: String },
}

/// A frame a client sends on a monorepo event socket (besides the text `ping`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientFrame {
    Hello(crate::presence::Hello),
}

/// Close codes of event sockets.
pub mod close {
    /// The monorepo was deleted.
    pub const DELETED: u16 = 4404;
    /// Access was lost (removed, left the org, transferred away, credential revoked):
    /// do not reconnect.
    pub const ACCESS_LOST: u16 = 4403;
    /// The socket fell too far behind the live stream; reconnect with `since`.
    pub const TOO_SLOW: u16 = 4408;
}
