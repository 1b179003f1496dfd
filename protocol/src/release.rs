//! Releases, tags and deployments, per repo. A published release locks its tag: git can
//! no longer move or delete it.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::branch::Checks;

/// The most bytes one release file may have.
pub const FILE_MAX: u64 = 100_000_000;
/// The most files one release may have.
pub const FILES_MAX: usize = 20;
/// Releases in one page of listReleases.
pub const PAGE: usize = 30;
/// The tag name that names the newest published release in download paths.
pub const LATEST: &str = "latest";

/// One file of a release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReleaseFile {
    pub name: String,
    pub size: u64,
    /// SHA-256 of the bytes, 64 lower-case hex digits.
    pub sha256: String,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub uploaded_at: OffsetDateTime,
    /// Where to download it (`GET`, with the credential unless the repo's releases are
    /// public).
    pub download_url: String,
}

/// A release: a tag at a commit on main, with notes and files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Release {
    pub tag: String,
    pub title: Option<String>,
    pub notes: String,
    pub draft: bool,
    /// The release commit, on main.
    pub commit: String,
    /// Who made the release.
    pub author: String,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    #[serde(with = "crate::rfc3339_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub published_at: Option<OffsetDateTime>,
    pub files: Vec<ReleaseFile>,
    /// The commit's checks (getRelease only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Checks>,
}

/// `POST {r}/releases`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateRelease {
    /// The tag: an existing tag's commit is the release commit; else one is made.
    pub tag: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// A commit on main (full sha) or the default branch's name; default: main's head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Keep it a draft: no checks asked, no tag made until published.
    #[serde(default)]
    pub draft: bool,
    /// Append notes from the merges since the last published release.
    #[serde(default)]
    pub generate_notes: bool,
}

/// `PATCH {r}/releases/{tag}`: omitted fields are kept; a null title clears it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct UpdateRelease {
    #[serde(
        default,
        deserialize_with = "crate::nullable::deserialize",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub title: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// A page of releases, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReleaseList {
    pub items: Vec<Release>,
    pub next_cursor: Option<String>,
}

/// Release notes written from the merges since the last published release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReleaseNotes {
    /// The release's tag, when the notes are for a release or a tag.
    pub tag: Option<String>,
    /// The commit the notes lead up to.
    pub commit: Option<String>,
    /// The last published release before it, whose commit the merges are counted from.
    pub previous: Option<String>,
    pub notes: String,
}

/// A tag of the repo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Tag {
    pub name: String,
    /// The commit the tag names (an annotated tag peeled).
    pub commit: String,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    /// The release of this tag, if any.
    pub release: Option<TagRelease>,
}

/// The release a tag belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TagRelease {
    pub title: Option<String>,
    pub draft: bool,
}

/// A page of tags, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TagList {
    pub items: Vec<Tag>,
    pub next_cursor: Option<String>,
}

/// A recorded deployment (the service never deploys).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Deployment {
    pub id: i64,
    pub environment: String,
    pub sha: String,
    /// The published release's tag, if any.
    pub release: Option<String>,
    pub url: Option<String>,
    pub description: Option<String>,
    pub created_by: String,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
}

/// `POST {r}/deployments`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateDeployment {
    /// Where it went: 1 to 100 characters.
    pub environment: String,
    /// The deployed commit; default: the release's commit, else main's head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha: Option<String>,
    /// A published release's tag; default: the newest published release at `sha`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A page of deployments, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeploymentList {
    pub items: Vec<Deployment>,
    pub next_cursor: Option<String>,
}

/// getRepoSummary: the repo's main and its latest published release.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RepoSummary {
    pub repo: String,
    pub main: MainSummary,
    pub release: Option<Release>,
}

/// Main's head with its checks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MainSummary {
    /// Main's head; null before the first push.
    pub commit: Option<String>,
    pub checks: Option<Checks>,
    /// The checks state, or `not_built` when nothing reported and nothing is required.
    pub build_state: String,
    /// The newest CI build on main (a CiBuild; none until CI reports one).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub build: Option<serde_json::Value>,
}
