//! Artifacts: versioned documents and images on a branch. An upload is taken whole in
//! memory (10 MiB at most, refused from its `Content-Length` before a byte is read),
//! checked file by file, its bytes written by SHA-256 under the artifact's folder (so
//! versions sharing an image store it once) before the rows and their event commit.

pub mod blobs;
pub mod comments;
pub mod document;
pub mod kinds;
pub mod upload;

use std::collections::HashMap;

use serde_json::json;
use svc_protocol::artifact::{Artifact, ArtifactFile, ArtifactKind, ArtifactVersion};

use crate::git::record::Pending;
use crate::store::artifacts::{ArtifactRow, FileRow, VersionRow};
use crate::store::time_of;

/// An artifact with the given versions and their files, in its REST shape.
pub fn view(a: &ArtifactRow, repo: &str, versions: &[VersionRow], files: &[FileRow]) -> Artifact {
    let mut by_version: HashMap<(&str, i64), Vec<ArtifactFile>> = HashMap::new();
    for f in files {
        by_version
            .entry((f.artifact_id.as_str(), f.n))
            .or_default()
            .push(ArtifactFile {
                path: f.path.clone(),
                sha256: f.sha256.clone(),
                size: f.size,
                content_type: f.content_type.clone(),
            });
    }
    Artifact {
        id: a.id.clone(),
        name: a.name.clone(),
        kind: ArtifactKind::parse(&a.kind).unwrap_or(ArtifactKind::Document),
        repo: repo.to_owned(),
        branch: a.branch.clone(),
        created_at: time_of(a.created_at),
        updated_at: time_of(a.updated_at),
        versions: versions
            .iter()
            .filter(|v| v.artifact_id == a.id)
            .map(|v| ArtifactVersion {
                n: v.n,
                created_at: time_of(v.created_at),
                created_by: v.created_by.clone(),
                sha256: v.sha256.clone(),
                size: v.size,
                files: by_version
                    .remove(&(v.artifact_id.as_str(), v.n))
                    .unwrap_or_default(),
            })
            .collect(),
    }
}

/// `artifact.added`, `artifact.versioned` (the artifact with its newest version) or
/// `artifact.deleted` (`{repo, branch, id, name}`), keyed `<repo>/<branch>/<name>`.
pub fn event(
    kind: &'static str,
    artifact: &Artifact,
    actor: &crate::git::record::Actor,
) -> Pending {
    let (op, row) = if kind == "artifact.deleted" {
        let row = json!({"repo": artifact.repo, "branch": artifact.branch,
            "id": artifact.id, "name": artifact.name});
        ("delete", row)
    } else {
        ("upsert", json!(artifact))
    };
    let key = format!("{}/{}/{}", artifact.repo, artifact.branch, artifact.name);
    let body = json!({"row": row, "branch": artifact.branch, "actor": actor.login,
        "agent": actor.agent});
    (kind, "artifacts", key, op, body)
}
