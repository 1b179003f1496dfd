//! CI: connections to a CI service (Buildkite), the builds and jobs its webhooks report,
//! in one state vocabulary whatever the service's own words (kept in `service_state`).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// The one set every service's build and job states map onto.
///
/// Buildkite builds: `creating`, `scheduled`, `waiting` → `queued`; `running`, `failing`,
/// `canceling` → `running`; `blocked` → `blocked`; `passed` → `passed`; `failed`,
/// `waiting_failed` → `failed`; `canceled` → `canceled`; `skipped`, `not_run` → `skipped`.
///
/// Buildkite jobs: `pending`, `waiting`, `unblocked`, `limiting`, `limited`, `scheduled`,
/// `reserved`, `assigned`, `accepted`, `platform_limiting`, `platform_limited` →
/// `queued`; `running`, `canceling`, `timing_out` → `running`; `blocked` → `blocked`;
/// `finished` → `passed` with exit status 0, else `failed`; `passed` → `passed`;
/// `failed`, `blocked_failed`, `unblocked_failed`, `timed_out`, `expired` → `failed`;
/// `canceled` → `canceled`; `skipped`, `broken`, `waiting_failed` → `skipped`. An
/// unknown word is `queued` until a known one comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CiState {
    Queued,
    Blocked,
    Running,
    Passed,
    Failed,
    Canceled,
    Skipped,
}

impl CiState {
    pub const ALL: [CiState; 7] = [
        CiState::Queued,
        CiState::Blocked,
        CiState::Running,
        CiState::Passed,
        CiState::Failed,
        CiState::Canceled,
        CiState::Skipped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CiState::Queued => "queued",
            CiState::Blocked => "blocked",
            CiState::Running => "running",
            CiState::Passed => "passed",
            CiState::Failed => "failed",
            CiState::Canceled => "canceled",
            CiState::Skipped => "skipped",
        }
    }

    pub fn parse(s: &str) -> Option<CiState> {
        CiState::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// Finished: it never changes again.
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            CiState::Passed | CiState::Failed | CiState::Canceled | CiState::Skipped
        )
    }
}

/// A connection of a monorepo to a CI organization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiConnection {
    pub id: String,
    /// `buildkite`.
    pub service: String,
    /// The CI organization's slug.
    pub organization: String,
    /// Where the service sends its webhooks.
    pub webhook_url: String,
    /// How REST calls to the service authenticate: the server's own token.
    pub token: String,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
}

/// createCiConnection's answer: the connection and, this once, its webhook token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedCiConnection {
    #[serde(flatten)]
    pub connection: CiConnection,
    /// Set it as the webhook's token (or signing secret) in the service.
    pub webhook_token: String,
}

/// `POST {m}/ci/connections`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateCiConnection {
    /// `buildkite`.
    pub service: String,
    /// The CI organization's slug.
    pub organization: String,
}

/// A job of a build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiJob {
    pub id: String,
    pub name: Option<String>,
    pub state: CiState,
    /// The service's own word.
    pub service_state: String,
    pub exit_status: Option<i64>,
    pub web_url: Option<String>,
    #[serde(with = "crate::rfc3339_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub started_at: Option<OffsetDateTime>,
    #[serde(with = "crate::rfc3339_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub finished_at: Option<OffsetDateTime>,
    /// The job that retried this one, if any.
    pub retried_by: Option<String>,
}

/// A build as the service reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiBuild {
    pub id: String,
    pub connection: String,
    /// The pipeline's slug.
    pub pipeline: String,
    pub number: i64,
    pub state: CiState,
    /// The service's own word.
    pub service_state: String,
    pub branch: Option<String>,
    pub commit: Option<String>,
    pub message: Option<String>,
    pub web_url: Option<String>,
    /// The repo the build is of, when known.
    pub repo: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    #[serde(with = "crate::rfc3339_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub started_at: Option<OffsetDateTime>,
    #[serde(with = "crate::rfc3339_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub finished_at: Option<OffsetDateTime>,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub meta_data: serde_json::Value,
    /// The build this one rebuilt.
    pub rebuild_of: Option<String>,
    /// Its jobs (getCiBuild only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<Vec<CiJob>>,
}

/// A page of builds, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiBuildList {
    pub items: Vec<CiBuild>,
    pub next_cursor: Option<String>,
}

/// A pipeline seen in the monorepo's builds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiPipeline {
    pub connection: String,
    pub slug: String,
}

/// A repo's required checks, for the CI tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RepoRequiredChecks {
    pub repo: String,
    /// Null while the configuration cannot be read.
    pub required: Option<Vec<String>>,
}

/// getCi: the top of the CI tab.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiOverview {
    /// The services this server can talk to (configured in its settings).
    pub services: Vec<String>,
    pub connections: Vec<CiConnection>,
    pub pipelines: Vec<CiPipeline>,
    pub required_checks: Vec<RepoRequiredChecks>,
}

/// `POST {m}/ci/pipelines/{pipeline}/builds`: build a branch's head as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct StartCiBuild {
    pub branch: String,
    /// The repo of the branch; may be left out when the monorepo has one repo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
}

/// A build's annotation, as the service wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiAnnotation {
    pub id: String,
    pub context: Option<String>,
    /// `success`, `info`, `warning` or `error`.
    pub style: Option<String>,
    pub priority: Option<i64>,
    /// The service's HTML.
    pub body_html: String,
    #[serde(with = "crate::rfc3339_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub created_at: Option<OffsetDateTime>,
}

/// The first 100 annotations of a build.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiAnnotationList {
    pub items: Vec<CiAnnotation>,
}

/// A file a build's job uploaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiArtifact {
    pub id: String,
    /// The job that uploaded it.
    pub job: Option<String>,
    pub path: String,
    pub file_size: Option<i64>,
    pub mime_type: Option<String>,
    pub sha1sum: Option<String>,
    /// The service's word (`new`, `finished`, …).
    pub state: Option<String>,
    /// svc's own download link: a 302 to the service's short-lived URL.
    pub download_url: String,
}

/// The first 100 artifacts of a build.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiArtifactList {
    pub items: Vec<CiArtifact>,
}

/// getCiPipeline: a pipeline's configuration as last read from the service, and its
/// newest builds.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CiPipelineDetail {
    pub connection: String,
    pub slug: String,
    pub name: Option<String>,
    pub web_url: Option<String>,
    /// The repository the service builds from.
    pub repository: Option<String>,
    pub default_branch: Option<String>,
    /// The pipeline's steps as the service keeps them (YAML), or null before a first
    /// read succeeded.
    pub configuration: Option<String>,
    /// When the configuration was last read from the service (at most every 5 minutes).
    #[serde(with = "crate::rfc3339_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub configuration_read_at: Option<OffsetDateTime>,
    /// Why the last read failed; the configuration is then the last copy.
    pub configuration_error: Option<String>,
    /// Its newest builds (up to 30).
    pub builds: Vec<CiBuild>,
}
