//! Where bare repositories live: `<data dir>/repos/<repo id>.git`, named by permanent
//! ids, never by labels, so renames and transfers touch nothing on disk.

use std::path::{Path, PathBuf};

pub fn repo_dir(data_dir: &Path, repo_id: &str) -> PathBuf {
    data_dir.join("repos").join(format!("{repo_id}.git"))
}

/// Makes an empty bare repository whose default branch is `main`.
pub async fn init_bare(dir: &Path) -> std::io::Result<()> {
    if let Some(parent) = dir.parent() {
        tokio::fs::create_dir_all(parent).await?;
    }
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || super::read::Repo::init_bare(&dir).map(drop))
        .await
        .map_err(std::io::Error::other)?
        .map_err(std::io::Error::other)
}

/// Removes a repository directory; a missing one is already removed.
pub async fn remove(dir: &Path) {
    match tokio::fs::remove_dir_all(dir).await {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::error!(dir = %dir.display(), error = %e, "cannot remove a repository"),
    }
}
