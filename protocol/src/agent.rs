//! Agent sessions: coding agents the server runs as their user, and their transcripts.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

/// What a session is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SessionKind {
    /// Works on a branch and pushes to it.
    Task,
    /// Reads a branch and posts one review on it.
    Review,
    /// Answers its person from read tools; no checkout.
    Chat,
}

impl SessionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Task => "task",
            Self::Review => "review",
            Self::Chat => "chat",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "task" => Some(Self::Task),
            "review" => Some(Self::Review),
            "chat" => Some(Self::Chat),
            _ => None,
        }
    }
}

/// Where a session is in its life: launching → running → idle (its run ended well),
/// failed, or stopped. A follow-up message runs an idle or stopped session again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    Launching,
    Running,
    Idle,
    Stopped,
    Failed,
}

impl SessionState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Launching => "launching",
            Self::Running => "running",
            Self::Idle => "idle",
            Self::Stopped => "stopped",
            Self::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "launching" => Some(Self::Launching),
            "running" => Some(Self::Running),
            "idle" => Some(Self::Idle),
            "stopped" => Some(Self::Stopped),
            "failed" => Some(Self::Failed),
            _ => None,
        }
    }

    /// Whether a run is going (or about to).
    pub fn is_live(self) -> bool {
        matches!(self, Self::Launching | Self::Running)
    }
}

/// Who speaks in a transcript message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = MessageRole))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    Tool,
}

/// One part of a transcript message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Part {
    Text {
        text: String,
    },
    Thinking {
        text: String,
    },
    ToolCall {
        id: String,
        name: String,
        /// The tool's arguments: an object of any keys.
        #[cfg_attr(
            feature = "openapi",
            schema(value_type = std::collections::HashMap<String, Value>)
        )]
        input: Value,
    },
    ToolResult {
        id: String,
        /// Any JSON value: an object, or the tool's text as a string.
        output: Value,
        is_error: bool,
    },
}

/// A transcript message as a runner's output gives it, before the server numbers and
/// times it (also the line format `svc-jsonl`, whose `index` and `at` are ignored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewMessage {
    pub role: Role,
    pub parts: Vec<Part>,
}

/// A transcript message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Message {
    /// Its place in the transcript, from 0.
    pub index: i64,
    pub role: Role,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
    pub parts: Vec<Part>,
}

/// A model a session may use (`GET {m}/agent-models`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentModel {
    /// What launchAgent's `model` names.
    pub id: String,
    /// The runner (coding agent) it runs with.
    pub runner: String,
    /// Whether sessions use it when they name none.
    pub default: bool,
}

/// `GET {m}/agent-models`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentModelList {
    pub items: Vec<AgentModel>,
}

/// An agent session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Session {
    pub id: String,
    pub kind: SessionKind,
    pub state: SessionState,
    /// Why it failed or stopped.
    pub reason: Option<String>,
    /// The repo's name (none for a chat in a monorepo).
    pub repo: Option<String>,
    pub branch: Option<String>,
    pub model: String,
    pub prompt: String,
    /// The login of the person it acts for.
    pub launcher: String,
    /// The name of its `cloud-` credential.
    pub credential: Option<String>,
    /// The issue it addresses.
    pub issue: Option<i64>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: OffsetDateTime,
}

/// `POST {m}/agents` (launchAgent).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewSession {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 65536))]
    pub prompt: String,
    /// The branch to work on: made off main when new, used as is when it exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The repo; may be left out in a plain repo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// One of agentModels' ids; the default when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// `GET {m}/agents` and `GET {m}/chats`: newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SessionList {
    pub items: Vec<Session>,
}

/// `GET {m}/agents/{id}/transcript`: oldest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Transcript {
    pub items: Vec<Message>,
}

/// `POST {m}/agents/{id}/messages` (sendAgent).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct FollowUp {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 65536))]
    pub message: String,
}

/// `POST {m}/chats` (newChat): a conversation with the repository assistant.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewChat {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 65536))]
    pub message: String,
    /// The repo it is about; may be left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// `POST {m}/issues/{number}/agent` (addressIssueWithAgent).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct IssueAgent {
    /// What to tell the session beyond the issue itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The branch (default `issue-<number>-<slug of the title>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The repo, when the issue's project is not one repo; may be left out in a plain repo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// `POST {r}/branches/{branch}/review-agent` (reviewWithAgent).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReviewAgent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// A frame of agentLive (`GET {m}/agents/{id}/live`): the transcript from message index
/// `from`. The first frame starts at 0 and holds the transcript so far; later ones
/// append what the runner says next.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LiveFrame {
    Messages { from: i64, messages: Vec<Message> },
}
