//! The person-wide activity feed: lines across all of a person's monorepos, as JSON
//! pages (`GET /v1/events`) and on the person's activity socket (the same path with
//! `Upgrade: websocket`).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// One activity line: enough to render it on a home page without refetching.
///
/// Lines name people (logins), machines and worktrees; never an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedEvent {
    /// The monorepo's current label.
    pub monorepo: String,
    pub monorepo_id: String,
    /// The event's seq in the monorepo's log; `(monorepo_id, seq)` names the line.
    pub seq: i64,
    /// The line's number on the monorepo's `feed` topic.
    pub n: i64,
    /// `push`, `branch.opened`, `branch.deleted`, `merged`, `review`, `status`,
    /// `worktree.reported`, `worktree.removed`, `meta.saved`, or
    /// `artifact_comment.added` for a comment that mentions someone.
    pub kind: String,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// Login of who did it, when known.
    pub actor: Option<String>,
    #[serde(flatten)]
    pub details: FeedDetails,
}

/// The kind-specific part of a line; absent fields do not apply to its kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedDetails {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The branch's title, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Pushes and merges: the commit before (zeros for a new branch). For `merged`, the
    /// branch head that was merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Pushes: the new head; `merged`: the merge commit on main.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// Pushes and opened branches: commits the push brought (capped at 10,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits: Option<i64>,
    /// A review's state (`comment`, `approve`, `request_changes`) or a status's
    /// (`pending`, `success`, `failure`, `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// A status's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The commit a status is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_id: Option<i64>,
    /// The start of a review's body (at most 200 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// `meta.saved`: the file's path; `artifact_comment.added`: the artifact's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `artifact_comment.added`: the members the comment mentions (only such comments
    /// are activity).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<String>,
}

/// `GET /v1/events`: newest first by the display key `(at, monorepo_id, seq)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActivityPage {
    pub items: Vec<FeedEvent>,
    /// Opaque: "older than the last line"; pass it back as `cursor`. Null at the end.
    pub next: Option<String>,
    /// Labels of monorepos whose logs this page did not read (more than 20 active);
    /// ask for them with `in`.
    pub skipped: Vec<String>,
}

/// What a `contributed` frame counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ContributionKind {
    Commit,
    Branch,
    Review,
}

/// A frame the server sends on the person's activity socket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ActivityServerFrame {
    /// A line, replayed or live. The same `(monorepo_id, seq)` may come again fuller:
    /// replace it.
    Event { landed: i64, event: Box<FeedEvent> },
    /// More than 500 lines landed after `since` (or some were pruned): refetch the first
    /// page; `caught_up` follows.
    Resync { landed: i64 },
    /// The replay is done; keep the highest `landed` seen and send it on reconnect.
    CaughtUp { landed: i64 },
    /// A monorepo's summary line changed (its `FeedSummary`).
    Summary {
        monorepo: String,
        monorepo_id: String,
        #[cfg_attr(feature = "openapi", schema(value_type = crate::needs::MonorepoSummary))]
        summary: crate::needs::FeedSummary,
    },
    /// Branches that entered or left needs-you; `more` when over 50 changed.
    Needs {
        monorepo: String,
        monorepo_id: String,
        changed: Vec<crate::needs::NeedChange>,
        more: bool,
    },
    /// The person joined a monorepo; `large` when it has over 100 members (its lines
    /// come from its own event socket's `feed` topic).
    Joined {
        monorepo: String,
        monorepo_id: String,
        large: bool,
    },
    Left {
        monorepo: String,
        monorepo_id: String,
    },
    /// The person's own work was counted; `hour` is the UTC hour `YYYY-MM-DDTHH`.
    Contributed {
        monorepo: String,
        monorepo_id: String,
        hour: String,
        kind: ContributionKind,
        n: i64,
    },
    /// The frame was not understood; the socket stays open.
    Error { message: String },
}

/// A frame a client sends on the person's activity socket (besides the text `ping`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ActivityClientFrame {
    /// Replay lines that landed after `since`; without it, none.
    Hello {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<i64>,
    },
}
