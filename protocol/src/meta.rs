//! The meta layer (`.svc/` on the meta repo's main): listing, content-addressed
//! uploads and saves, for `svc sync` and the daemon.

use serde::{Deserialize, Serialize};

/// `GET {m}/meta/files`: the live meta layer at one version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetaFiles {
    /// The meta repo's main commit; null before the first save.
    pub version: Option<String>,
    /// Every file under `.svc/`, by path.
    pub files: Vec<MetaFile>,
}

/// One file of the meta layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetaFile {
    /// Relative to `.svc/`.
    pub path: String,
    pub size: u64,
    /// Hex SHA-256 of the content, so clients compare local files without git.
    pub sha256: String,
    /// The git blob id.
    pub blob: String,
}

/// `POST {m}/meta/blobs/missing`: which of these contents the server lacks.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BlobQuery {
    pub sha256: Vec<String>,
}

/// The contents to upload with `PUT {m}/meta/blobs/{sha256}` before saving.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MissingBlobs {
    pub missing: Vec<String>,
}

/// `PUT {m}/meta/blobs/{sha256}`: the stored content.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StoredBlob {
    pub sha256: String,
    pub blob: String,
    pub size: u64,
}

/// `POST {m}/meta/saves`: one commit on the meta repo's main.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SaveRequest {
    /// The version the changes were made on (null: none synced yet).
    pub base: Option<String>,
    /// The machine saving, for the `Svc-Machine` trailer and the history.
    #[serde(default)]
    pub machine: Option<String>,
    pub changes: Vec<MetaChange>,
}

/// One path to write (`sha256` of an uploaded content) or delete (`sha256` null).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetaChange {
    pub path: String,
    pub sha256: Option<String>,
}

/// What a save wrote.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SaveResult {
    /// The meta layer's version after the save.
    pub version: Option<String>,
    /// The paths that changed (already equal paths are left out).
    pub saved: Vec<String>,
}

/// The row of a `meta.saved` event (collection `meta_files`, key = path): a history
/// entry, no bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetaSavedRow {
    pub path: String,
    /// Null for a deleted file.
    pub sha256: Option<String>,
    pub size: Option<u64>,
    pub version: String,
    pub machine: Option<String>,
    pub actor: String,
}

/// `GET {m}/meta/history`: `meta.saved` entries, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetaHistory {
    pub items: Vec<MetaHistoryEntry>,
    /// Pass as `cursor` for older entries; null at the end.
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetaHistoryEntry {
    /// The event's `seq`.
    pub seq: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub at: time::OffsetDateTime,
    pub row: MetaSavedRow,
}
