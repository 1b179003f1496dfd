//! Repositories kept open between requests: opening one (reading its configuration,
//! finding its packs) costs more than a small read itself.
//!
//! An open repository sees new refs and loose objects by itself, and new packs when an
//! object is missing; but it would keep packs a repack removed mapped for as long as it
//! lives. So one is reopened once its `objects/pack` folder changed (packs added or
//! removed), and kept only while among the most recently used.
//!
//! The process keeps one set ([`open`]): its repositories on disk are one set, and every
//! reader of the git layer (requests, recordings, workers) shares it without a handle
//! threaded through each.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};
use std::time::SystemTime;

use super::read::{Error, Repo};

/// Repositories kept open at most.
const KEPT: usize = 128;

/// The repository at `dir`, from the process's open repositories.
pub fn open(dir: &Path) -> Result<Repo, Error> {
    static OPEN: LazyLock<OpenRepos> = LazyLock::new(OpenRepos::default);
    OPEN.get(dir)
}

#[derive(Default)]
pub struct OpenRepos {
    open: Mutex<HashMap<PathBuf, Kept>>,
}

struct Kept {
    packs_changed: SystemTime,
    repo: Repo,
    used: u64,
}

/// When the packs of the repository at `dir` last changed.
fn packs_changed(dir: &Path) -> Option<SystemTime> {
    std::fs::metadata(dir.join("objects").join("pack"))
        .and_then(|m| m.modified())
        .ok()
}

impl OpenRepos {
    /// The repository at `dir`, open.
    pub fn get(&self, dir: &Path) -> Result<Repo, Error> {
        let Some(changed) = packs_changed(dir) else {
            // Not a repository (or not one we can stat): let opening say why.
            return Repo::open(dir);
        };
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let tick = open.values().map(|k| k.used).max().unwrap_or(0) + 1;
        if let Some(kept) = open.get_mut(dir)
            && kept.packs_changed == changed
        {
            kept.used = tick;
            return Ok(kept.repo.clone());
        }
        drop(open);
        let repo = Repo::open(dir)?;
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() >= KEPT
            && !open.contains_key(dir)
            && let Some(oldest) = open
                .iter()
                .min_by_key(|(_, k)| k.used)
                .map(|(p, _)| p.clone())
        {
            open.remove(&oldest);
        }
        open.insert(
            dir.to_path_buf(),
            Kept {
                packs_changed: changed,
                repo: repo.clone(),
                used: tick,
            },
        );
        Ok(repo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_is_reopened_when_its_packs_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.git");
        Repo::init_bare(&path).unwrap();
        let repos = OpenRepos::default();
        repos.get(&path).unwrap();
        repos.get(&path).unwrap();
        assert_eq!(repos.open.lock().unwrap().len(), 1);
        let before = repos.open.lock().unwrap()[&path].packs_changed;
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(path.join("objects/pack/x.keep"), b"").unwrap();
        repos.get(&path).unwrap();
        assert_ne!(repos.open.lock().unwrap()[&path].packs_changed, before);
        assert!(repos.get(&dir.path().join("missing.git")).is_err());
    }
}
