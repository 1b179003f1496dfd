//! Issues and labels: monorepo-wide, numbered from 1 per monorepo.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// The eight theme colours a label may have (none is red).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum LabelColor {
    Orange,
    Blue,
    Teal,
    Purple,
    Green,
    Yellow,
    Pink,
    Gray,
}

impl LabelColor {
    pub const ALL: [LabelColor; 8] = [
        LabelColor::Orange,
        LabelColor::Blue,
        LabelColor::Teal,
        LabelColor::Purple,
        LabelColor::Green,
        LabelColor::Yellow,
        LabelColor::Pink,
        LabelColor::Gray,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LabelColor::Orange => "orange",
            LabelColor::Blue => "blue",
            LabelColor::Teal => "teal",
            LabelColor::Purple => "purple",
            LabelColor::Green => "green",
            LabelColor::Yellow => "yellow",
            LabelColor::Pink => "pink",
            LabelColor::Gray => "gray",
        }
    }

    pub fn parse(s: &str) -> Option<LabelColor> {
        LabelColor::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// A label, with how many open issues carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Label {
    pub name: String,
    pub color: LabelColor,
    pub description: Option<String>,
    pub open_issues: i64,
}

/// `GET {m}/labels`: every label, by name (at most 500).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LabelList {
    pub items: Vec<Label>,
}

/// `POST {m}/labels` (owners).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateLabel {
    /// 1 to 50 characters, no commas (lists of labels are comma-separated).
    #[cfg_attr(
        feature = "openapi",
        schema(min_length = 1, max_length = 50, pattern = r"^[^,]*\S[^,]*$")
    )]
    pub name: String,
    pub color: LabelColor,
    /// Up to 200 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 200))]
    pub description: Option<String>,
}

/// `PATCH {m}/labels/{name}` (owners): omitted fields are kept, a `null` description
/// clears it; a new `name` moves the label on every issue.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UpdateLabel {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(min_length = 1, max_length = 50, pattern = r"^[^,]*\S[^,]*$")
    )]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<LabelColor>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::deserialize"
    )]
    #[cfg_attr(feature = "openapi", schema(max_length = 200, value_type = Option<String>))]
    pub description: Option<Option<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum IssueState {
    Open,
    Closed,
}

impl IssueState {
    pub fn as_str(self) -> &'static str {
        match self {
            IssueState::Open => "open",
            IssueState::Closed => "closed",
        }
    }

    pub fn parse(s: &str) -> Option<IssueState> {
        match s {
            "open" => Some(IssueState::Open),
            "closed" => Some(IssueState::Closed),
            _ => None,
        }
    }
}

/// Why an issue was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StateReason {
    Completed,
    NotPlanned,
}

impl StateReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StateReason::Completed => "completed",
            StateReason::NotPlanned => "not_planned",
        }
    }

    pub fn parse(s: &str) -> Option<StateReason> {
        match s {
            "completed" => Some(StateReason::Completed),
            "not_planned" => Some(StateReason::NotPlanned),
            _ => None,
        }
    }
}

/// An issue in a list: no body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IssueRow {
    pub number: i64,
    pub title: String,
    pub state: IssueState,
    pub state_reason: Option<StateReason>,
    /// The author's login.
    pub author: String,
    /// The repo (by name) the issue is about, if any.
    pub project: Option<String>,
    /// Label names, sorted.
    pub labels: Vec<String>,
    /// Assignees' logins, sorted.
    pub assignees: Vec<String>,
    /// How many comments it has.
    pub comments: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    #[serde(with = "crate::rfc3339_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub closed_at: Option<OffsetDateTime>,
}

/// The reaction contents, in the fixed order they are listed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ReactionContent {
    #[serde(rename = "+1")]
    PlusOne,
    #[serde(rename = "-1")]
    MinusOne,
    #[serde(rename = "laugh")]
    Laugh,
    #[serde(rename = "hooray")]
    Hooray,
    #[serde(rename = "confused")]
    Confused,
    #[serde(rename = "heart")]
    Heart,
    #[serde(rename = "rocket")]
    Rocket,
    #[serde(rename = "eyes")]
    Eyes,
}

impl ReactionContent {
    pub const ALL: [ReactionContent; 8] = [
        ReactionContent::PlusOne,
        ReactionContent::MinusOne,
        ReactionContent::Laugh,
        ReactionContent::Hooray,
        ReactionContent::Confused,
        ReactionContent::Heart,
        ReactionContent::Rocket,
        ReactionContent::Eyes,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReactionContent::PlusOne => "+1",
            ReactionContent::MinusOne => "-1",
            ReactionContent::Laugh => "laugh",
            ReactionContent::Hooray => "hooray",
            ReactionContent::Confused => "confused",
            ReactionContent::Heart => "heart",
            ReactionContent::Rocket => "rocket",
            ReactionContent::Eyes => "eyes",
        }
    }

    pub fn parse(s: &str) -> Option<ReactionContent> {
        ReactionContent::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// One reaction content given at least once, with whether the caller gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Reaction {
    pub content: ReactionContent,
    pub count: i64,
    pub me: bool,
}

/// A branch linked to an issue: its merge closes the issue.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IssueLink {
    pub repo: String,
    pub branch: String,
}

/// A whole issue: the row with its body, links, participants and reactions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Issue {
    #[serde(flatten)]
    pub row: IssueRow,
    pub body: String,
    /// 1 at creation, +1 per body edit: send it back as `base_version`.
    pub body_version: i64,
    pub links: Vec<IssueLink>,
    /// Everyone who wrote, commented or is assigned, by login.
    pub participants: Vec<String>,
    pub reactions: Vec<Reaction>,
}

/// `GET {m}/issues`: a page, with the open and closed counts for the same filters.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IssueList {
    pub items: Vec<IssueRow>,
    pub next_cursor: Option<String>,
    pub open_count: i64,
    pub closed_count: i64,
}

/// `POST {m}/issues`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateIssue {
    /// 1 to 256 characters.
    #[cfg_attr(
        feature = "openapi",
        schema(min_length = 1, max_length = 256, pattern = r"\S")
    )]
    pub title: String,
    /// Markdown, up to 65,536 bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 65536))]
    pub body: Option<String>,
    /// Names of existing labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// Logins of the monorepo's people.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assignees: Vec<String>,
    /// A repo of the monorepo, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Branches to link at once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link: Vec<IssueLink>,
}

/// Add/remove lists of `PATCH {m}/issues/{number}`: set operations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub struct SetChange<T> {
    #[serde(default = "Vec::new", skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<T>,
    #[serde(default = "Vec::new", skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<T>,
}

impl<T> Default for SetChange<T> {
    fn default() -> Self {
        SetChange {
            add: Vec::new(),
            remove: Vec::new(),
        }
    }
}

/// `PATCH {m}/issues/{number}`: any of the fields, each change its own timeline item,
/// the call one event.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UpdateIssue {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(min_length = 1, max_length = 256, pattern = r"\S")
    )]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 65536))]
    pub body: Option<String>,
    /// The `body_version` the new body was written on: a body that moved since is 409
    /// `edited` with `current`. Without it the last writer wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_version: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<IssueState>,
    /// With `state: closed`; default `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_reason: Option<StateReason>,
    /// A repo by name; `null` clears it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::deserialize"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub project: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<SetChange<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignees: Option<SetChange<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<SetChange<IssueLink>>,
}

/// A comment on an issue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IssueComment {
    pub id: i64,
    pub author: String,
    pub body: String,
    pub reactions: Vec<Reaction>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

/// `POST {m}/issues/{number}/comments` and `PATCH .../comments/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CommentBody {
    /// Markdown, 1 to 65,536 bytes.
    #[cfg_attr(
        feature = "openapi",
        schema(min_length = 1, max_length = 65536, pattern = r"\S")
    )]
    pub body: String,
}

/// One timeline item: a comment, or an event of the issue (`closed`, `reopened`,
/// `renamed`, `edited`, `labeled`, `unlabeled`, `assigned`, `unassigned`, `linked`,
/// `unlinked`, `project_changed`) with its own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TimelineItem {
    pub id: i64,
    /// `comment` or the event.
    pub kind: String,
    /// Who did it (login).
    pub actor: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// A comment's body (null in live events when over 16 KB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::rfc3339_opt"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub updated_at: Option<OffsetDateTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reactions: Option<Vec<Reaction>>,
    /// The event's own fields (`label`, `assignee`, `from`/`to`, `state_reason`, `merge`,
    /// `repo`/`branch`).
    #[serde(flatten)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// `GET {m}/issues/{number}/timeline`: oldest first; `total` counts every item.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Timeline {
    pub items: Vec<TimelineItem>,
    pub next_cursor: Option<String>,
    pub total: i64,
}
