//! Artifact bytes on disk: `<data dir>/artifacts/<artifact id>/<sha256>`, written whole
//! (a temporary file renamed into place) before the rows naming them commit, so a row
//! never names missing bytes; an artifact's delete removes its folder after its commit.

use std::path::{Path, PathBuf};

use crate::error::{ApiError, ApiResult};

/// The artifact's folder.
pub fn dir(data_dir: &Path, artifact_id: &str) -> PathBuf {
    data_dir.join("artifacts").join(artifact_id)
}

/// Writes bytes under their SHA-256 unless the artifact has them already.
pub async fn put(data_dir: &Path, artifact_id: &str, sha256: &str, bytes: &[u8]) -> ApiResult<()> {
    let dir = dir(data_dir, artifact_id);
    let path = dir.join(sha256);
    if tokio::fs::try_exists(&path).await.unwrap_or(false) {
        return Ok(());
    }
    tokio::fs::create_dir_all(&dir)
        .await
        .map_err(|e| ApiError::internal(format!("cannot make {}: {e}", dir.display())))?;
    let part = dir.join(format!("{sha256}.{}.part", crate::token::new_id("")));
    let written = async {
        tokio::fs::write(&part, bytes).await?;
        tokio::fs::rename(&part, &path).await
    }
    .await;
    if let Err(e) = written {
        let _ = tokio::fs::remove_file(&part).await;
        return Err(ApiError::internal(format!(
            "cannot write an artifact file: {e}"
        )));
    }
    Ok(())
}

/// The bytes of one file.
pub async fn read(data_dir: &Path, artifact_id: &str, sha256: &str) -> ApiResult<Vec<u8>> {
    let path = dir(data_dir, artifact_id).join(sha256);
    tokio::fs::read(&path)
        .await
        .map_err(|e| ApiError::internal(format!("cannot read {}: {e}", path.display())))
}

/// Removes an artifact's bytes (after the commit that deleted it); a failure only leaves
/// bytes behind.
pub async fn remove(data_dir: &Path, artifact_id: &str) {
    match tokio::fs::remove_dir_all(dir(data_dir, artifact_id)).await {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::warn!(artifact = artifact_id, error = %e, "cannot remove an artifact's bytes")
        }
    }
}
