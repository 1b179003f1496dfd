//! Artifacts: versioned documents (Markdown or HTML, with their images) and images kept on
//! a branch, and the comment threads anchored in them.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// What an artifact is, from its file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ArtifactKind {
    /// `.md`, `.markdown`, `.html`, `.htm`.
    Document,
    /// `.png`, `.jpg`, `.jpeg`, `.gif`, `.webp`, `.svg`.
    Image,
}

impl ArtifactKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Document => "document",
            Self::Image => "image",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "document" => Some(Self::Document),
            "image" => Some(Self::Image),
            _ => None,
        }
    }
}

/// One file of a version: the document or image itself (its path is the artifact's
/// name), or an image the document uses (its path from the document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ArtifactFile {
    pub path: String,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
    pub size: i64,
    pub content_type: String,
}

/// One upload of an artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ArtifactVersion {
    /// From 1.
    pub n: i64,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    /// Login of who uploaded it.
    pub created_by: String,
    /// The main file's SHA-256.
    pub sha256: String,
    /// All its files' bytes.
    pub size: i64,
    pub files: Vec<ArtifactFile>,
}

/// An artifact on a branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Artifact {
    pub id: String,
    /// Its file's name, like `design.md`.
    pub name: String,
    pub kind: ArtifactKind,
    pub repo: String,
    pub branch: String,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: OffsetDateTime,
    /// Every version, oldest first (getArtifact); the newest only in a list.
    pub versions: Vec<ArtifactVersion>,
}

/// The branch's artifacts, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ArtifactList {
    pub items: Vec<Artifact>,
}

/// Where a thread sits in a document: the block and the character range of the words it
/// is about, with those words and their surroundings to find them again in a new version.
/// A `quote` is stored as `{blockId: "external", start: 0, end: 0, exact: <quote>}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Anchor {
    #[serde(rename = "blockId")]
    pub block_id: String,
    pub start: i64,
    pub end: i64,
    pub exact: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suffix: Option<String>,
}

/// A thread's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ThreadState {
    Open,
    Resolved,
}

impl ThreadState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Resolved => "resolved",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "open" => Some(Self::Open),
            "resolved" => Some(Self::Resolved),
            _ => None,
        }
    }
}

/// A comment on an artifact: a thread's root, or a reply in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ArtifactComment {
    pub id: String,
    /// The artifact's id.
    pub artifact: String,
    /// The thread's root id (its own for a root).
    pub thread: String,
    /// The version it was written on.
    pub version: i64,
    /// Where the thread sits (roots); null for the whole artifact or a reply.
    pub anchor: Option<Anchor>,
    /// Null for a deleted root that keeps its replies.
    pub body: Option<String>,
    pub author: String,
    /// Members it mentions with `@login`.
    pub mentions: Vec<String>,
    /// The thread's state (roots only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<ThreadState>,
    /// Replies in the thread (roots only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_count: Option<i64>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: OffsetDateTime,
    /// +1 per body edit; send it back as `base_version`.
    pub body_version: i64,
}

/// `POST .../artifacts/{name}/comments`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewArtifactComment {
    /// Markdown, 1 byte to 64 KiB.
    pub body: String,
    /// The version it is about; the newest when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Anchor>,
    /// Plain words the thread is about (instead of `anchor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// A comment of the thread this one replies in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_reply_to: Option<String>,
}

/// `PATCH {r}/artifact-comments/{id}`: a new body (yours), or a thread's state (any
/// member).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ArtifactCommentUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The `body_version` the edit was made on; a stale one answers 409 `edited`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_version: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<ThreadState>,
}

/// A thread: its root and its replies, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ArtifactThread {
    pub root: ArtifactComment,
    pub replies: Vec<ArtifactComment>,
    /// The artifact's name (listBranchArtifactThreads spans artifacts).
    pub artifact_name: String,
}

/// Threads, roots oldest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ArtifactThreadList {
    pub items: Vec<ArtifactThread>,
}
