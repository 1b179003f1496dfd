//! Importing an existing project's whole history into a repo (`/imports`).

use serde::{Deserialize, Serialize};

use crate::monorepo::Repo;

/// Where an import is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ImportState {
    /// Waiting for its bundle (`PUT .../imports/{id}/bundle`).
    Waiting,
    /// The server is fetching or checking the history.
    Running,
    /// The history is in: `repo` is the repo.
    Done,
    /// Nothing came in; `error` says why.
    Failed,
}

impl ImportState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Running => "running",
            Self::Done => "done",
            Self::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "waiting" => Some(Self::Waiting),
            "running" => Some(Self::Running),
            "done" => Some(Self::Done),
            "failed" => Some(Self::Failed),
            _ => None,
        }
    }
}

/// `POST {m}/imports`: the repo to fill and, for the server to fetch it, the
/// project's git URL (http or https). Without `url` the history comes as a bundle.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateImport {
    /// The repo's folder from the monorepo's root, like `services/api` (`.` in a plain
    /// repo). A new repo, or an existing one with no history yet.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// An import: nothing of it is visible in the repo until it is `done`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Import {
    pub id: String,
    pub path: String,
    pub state: ImportState,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The repo, once done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<Repo>,
}
