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
        #[cfg_attr(feature = "openapi", schema(value_type = Object))]
        input: Value,
    },
    ToolResult {
        id: String,
        #[cfg_attr(feature = "openapi", schema(value_type = Object))]
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
