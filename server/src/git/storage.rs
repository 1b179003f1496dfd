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

/// Packs kept before a repository is repacked into one pack with a bitmap.
const MAX_PACKS: usize = 4;

/// Repositories being repacked now: one repack per repository at a time.
static REPACKING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Repacks a repository that pushes have left in many packs. Each push adds a pack;
/// without a repack every clone searches deltas across all of them (seconds of CPU per
/// clone), and without a bitmap it counts objects the slow way.
pub async fn maintain(dir: PathBuf) {
    let packs = match std::fs::read_dir(dir.join("objects/pack")) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "pack"))
            .count(),
        Err(_) => return,
    };
    if packs < MAX_PACKS {
        return;
    }
    {
        let Ok(mut busy) = REPACKING.lock() else {
            return;
        };
        if busy.contains(&dir) {
            return;
        }
        busy.push(dir.clone());
    }
    let out = tokio::process::Command::new("git")
        .arg("--git-dir")
        .arg(&dir)
        .args(["repack", "-a", "-d", "-b", "-q"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .await;
    match out {
        Ok(out) if !out.status.success() => {
            tracing::warn!(dir = %dir.display(), stderr = %String::from_utf8_lossy(&out.stderr).trim(), "repack failed");
        }
        Err(e) => tracing::warn!(dir = %dir.display(), error = %e, "cannot run git repack"),
        Ok(_) => tracing::info!(dir = %dir.display(), packs, "repacked"),
    }
    if let Ok(mut busy) = REPACKING.lock() {
        busy.retain(|d| d != &dir);
    }
}
