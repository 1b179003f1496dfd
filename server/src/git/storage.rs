//! Where bare repositories live: `<data dir>/repos/<repo id>.git`, named by permanent
//! ids, never by labels, so renames and transfers touch nothing on disk.

use std::path::{Path, PathBuf};

use tokio::process::Command;

pub fn repo_dir(data_dir: &Path, repo_id: &str) -> PathBuf {
    data_dir.join("repos").join(format!("{repo_id}.git"))
}

/// Makes an empty bare repository whose default branch is `main`.
pub async fn init_bare(dir: &Path) -> std::io::Result<()> {
    let out = Command::new("git")
        .args(["init", "--quiet", "--bare", "--initial-branch=main"])
        .arg(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .await?;
    if !out.status.success() {
        return Err(std::io::Error::other(format!(
            "git init failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    // Pushes are checked by the door; git must not refuse force pushes on its own, and
    // housekeeping runs on our schedule, not in the middle of a push.
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(dir)
        .args(["config", "--local", "gc.auto", "0"])
        .output()
        .await?;
    if !out.status.success() {
        return Err(std::io::Error::other("git config failed"));
    }
    Ok(())
}

/// Removes a repository directory; a missing one is already removed.
pub async fn remove(dir: &Path) {
    match tokio::fs::remove_dir_all(dir).await {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::error!(dir = %dir.display(), error = %e, "cannot remove a repository"),
    }
}
