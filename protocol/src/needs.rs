//! The web home's person-wide views: the needs-you list (`GET /v1/branches`), the
//! monorepo summary line (`GET /v1/monorepos?summary=1` and the person socket's
//! `summary` frame) and the needs-you changes of the socket's `needs` frame.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::monorepo::{Monorepo, MonorepoList};

/// Why a branch needs its person: `conflicts`, `failing`, `ready` checked in this order,
/// or where it is in a merge queue (`queued`, `left_queue`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum NeedState {
    /// The stored dry run for the current head conflicts with main.
    Conflicts,
    /// A check on the head failed or errored.
    Failing,
    /// Facts for the current main and head say clean, and the merge gate passes.
    Ready,
    /// In its repo's merge queue: `queue` says where and how its tested commit does.
    Queued,
    /// It left the merge queue since its last push (`queue` says why: its tested commit's
    /// checks failed, it conflicted with the entries ahead, it timed out...).
    LeftQueue,
}

impl NeedState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Conflicts => "conflicts",
            Self::Failing => "failing",
            Self::Ready => "ready",
            Self::Queued => "queued",
            Self::LeftQueue => "left_queue",
        }
    }
}

/// One of the person's open branches that needs them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NeedRow {
    /// `<owner>/<name>` label.
    pub monorepo: String,
    pub monorepo_id: String,
    /// Repo name.
    pub repo: String,
    pub branch: String,
    pub state: NeedState,
    pub head: String,
    pub title: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub pushed_at: OffsetDateTime,
    /// Conflicting paths (`conflicts` only; null otherwise).
    pub paths: Option<Vec<String>>,
    /// Its merge queue entry (`queued` and `left_queue` only; null otherwise).
    #[serde(default)]
    pub queue: Option<crate::branch::QueueEntry>,
}

/// The newest of a person's open assigned issues in one monorepo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IssueNeed {
    pub number: u64,
    pub title: String,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

/// Open issues assigned to the person in one monorepo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IssuesNeed {
    pub monorepo: String,
    pub monorepo_id: String,
    /// How many are open and assigned.
    pub open: u64,
    pub newest: IssueNeed,
}

/// `GET /v1/branches`: ordered `conflicts`, `failing`, `left_queue`, `ready`, `queued`,
/// then most recently pushed first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NeedsList {
    pub items: Vec<NeedRow>,
    /// Per monorepo, most recently updated first.
    pub issues: Vec<IssuesNeed>,
    /// Labels of the monorepos left out (past the 50 most recently active).
    pub skipped: Vec<String>,
}

/// A monorepo's one summary line on the web home, for the person asking. The activity
/// fields are null until the monorepo has had activity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MonorepoSummary {
    /// Time of the monorepo's latest event.
    #[serde(with = "crate::rfc3339_opt")]
    pub active_at: Option<OffsetDateTime>,
    /// The latest activity line's kind (`push`, `merged`, `review`, ...).
    pub last_kind: Option<String>,
    /// Login of who did it.
    pub last_actor: Option<String>,
    /// Repo it happened in, when it has one.
    pub last_repo: Option<String>,
    /// Branch it concerns, when it has one.
    pub last_branch: Option<String>,
    #[serde(with = "crate::rfc3339_opt")]
    pub last_at: Option<OffsetDateTime>,
    /// Open branches across its repos.
    pub open_branches: u64,
    /// The person's branches that need them.
    pub needs_you: u64,
    pub machines_connected: u64,
}

/// The person socket's `summary` frame carries the same line.
pub type FeedSummary = MonorepoSummary;

/// A listed monorepo with its summary line.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MonorepoHomeItem {
    #[serde(flatten)]
    pub monorepo: Monorepo,
    pub summary: MonorepoSummary,
}

/// `GET /v1/monorepos?summary=1`: most recently active first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MonorepoHome {
    pub items: Vec<MonorepoHomeItem>,
    pub next_cursor: Option<String>,
}

/// `GET /v1/monorepos`: the plain list (`view: "list"`), or the home view with `summary=1`
/// (`view: "home"`). `view` tells the two apart even when `items` is empty.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "view", rename_all = "snake_case")]
pub enum MonorepoListing {
    Home(MonorepoHome),
    #[serde(rename = "list")]
    Plain(MonorepoList),
}

/// A branch that entered, moved within or left the needs-you list (`state` null: left).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NeedChange {
    pub repo: String,
    pub branch: String,
    pub state: Option<NeedState>,
}
