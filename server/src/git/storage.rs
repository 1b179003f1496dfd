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

/// A ref lock older than this was left by a git killed in the middle of a ref update
/// (a live git holds its ref locks for milliseconds).
pub const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(10);

/// Removes the ref locks (`refs/**.lock`, `packed-refs.lock`, `HEAD.lock`) that a git
/// killed in the middle of a ref update left in any repository, once they are stale:
/// else every later push to that ref fails with "cannot lock ref". Answers how many.
pub fn remove_stale_locks(data_dir: &Path) -> usize {
    let Ok(repos) = std::fs::read_dir(data_dir.join("repos")) else {
        return 0;
    };
    let mut removed = 0;
    for repo in repos.flatten() {
        let dir = repo.path();
        let mut locks = vec![dir.join("packed-refs.lock"), dir.join("HEAD.lock")];
        let mut folders = vec![dir.join("refs")];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
                match entry.file_type() {
                    Ok(t) if t.is_dir() => folders.push(entry.path()),
                    Ok(_) if entry.file_name().to_string_lossy().ends_with(".lock") => {
                        locks.push(entry.path());
                    }
                    _ => {}
                }
            }
        }
        for lock in locks {
            let stale = std::fs::symlink_metadata(&lock)
                .and_then(|m| m.modified())
                .is_ok_and(|at| at.elapsed().is_ok_and(|age| age > STALE_LOCK));
            if stale && std::fs::remove_file(&lock).is_ok() {
                tracing::warn!(lock = %lock.display(), "removed a ref lock a killed git left");
                removed += 1;
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::{STALE_LOCK, remove_stale_locks};

    #[test]
    fn stale_ref_locks_go_and_fresh_ones_stay() {
        let data = tempfile::tempdir().expect("temp dir");
        let repo = data.path().join("repos/r_1.git");
        std::fs::create_dir_all(repo.join("refs/heads/feature")).expect("mkdir");
        let old = std::time::SystemTime::now() - STALE_LOCK * 2;
        let stale = [
            repo.join("refs/heads/feature/x.lock"),
            repo.join("packed-refs.lock"),
        ];
        for path in &stale {
            let f = std::fs::File::create(path).expect("lock");
            f.set_modified(old).expect("mtime");
        }
        let fresh = repo.join("refs/heads/main.lock");
        std::fs::write(&fresh, b"").expect("lock");
        std::fs::write(repo.join("refs/heads/main"), b"").expect("ref");
        assert_eq!(remove_stale_locks(data.path()), 2);
        assert!(stale.iter().all(|p| !p.exists()));
        assert!(fresh.exists(), "a live git's lock stays");
        assert!(repo.join("refs/heads/main").exists());
    }
}
