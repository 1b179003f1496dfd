//! Background repository maintenance: when, and who. What is done is the git layer's
//! (`git::maintain`: survey, plan, git commands).
//!
//! Pushes, merges and meta saves queue their repo; a repo is maintained once it has been
//! quiet for [`DEBOUNCE`] (or [`MAX_DELAY`] after it was first queued), and an hourly
//! sweep queues every repo. One worker per process maintains one repo at a time. A
//! repo's maintenance holds a lock file in the repo (`svc-maintain.lock`, an `flock`
//! that dies with its process, so `svc-server maintain` and the server never maintain one
//! repo at once) and on PostgreSQL a lease (an advisory lock): a repo another server is
//! maintaining is left to it. Deleting unreachable objects also holds the repo's merge
//! lock, so no merge or meta save writes objects meanwhile (see `Plan::expires`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime};

use crate::git::maintain::{self, Plan, Repack};
use crate::git::storage;
use crate::repo_lock::RepoLocks;

/// Quiet time after the last write before a repo is maintained.
pub const DEBOUNCE: Duration = Duration::from_secs(2);
/// The longest a queued repo waits, however busy it stays.
pub const MAX_DELAY: Duration = Duration::from_secs(60);
/// How often every repo is looked at (and first, this long after start).
const SWEEP: Duration = Duration::from_secs(60 * 60);
const FIRST_SWEEP: Duration = Duration::from_secs(60);

/// How a maintenance decides what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// From the repo's state, the least work that keeps it fast.
    Heuristic,
    /// Everything (an operator asked): prune, full repack, commit-graph anew.
    Eager,
}

/// What one repo's maintenance did.
#[derive(Debug)]
pub enum Outcome {
    Done(Plan),
    /// Another process is maintaining the repo.
    Busy,
    /// The repo has no directory (deleted meanwhile).
    Missing,
}

impl Outcome {
    pub fn describe(&self) -> String {
        match self {
            Outcome::Done(plan) => plan.describe(),
            Outcome::Busy => "skipped: another process is maintaining it".to_owned(),
            Outcome::Missing => "skipped: no repository on disk".to_owned(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] maintain::Error),
    #[error(transparent)]
    Store(#[from] crate::store::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Maintains the repo `repo_id` now. `may_expire` is false where merges of another
/// process cannot be held off (`svc-server maintain` on SQLite): unreachable objects
/// are then kept.
pub async fn maintain_repo(
    data_dir: &Path,
    locks: &RepoLocks,
    repo_id: &str,
    mode: Mode,
    may_expire: bool,
) -> Result<Outcome, Error> {
    let dir = storage::repo_dir(data_dir, repo_id);
    if !dir.is_dir() {
        return Ok(Outcome::Missing);
    }
    // An operator's maintenance waits for one running; the background one moves on.
    let wait = mode == Mode::Eager;
    let lock_file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("svc-maintain.lock"))?;
    let lock_file = if wait {
        tokio::task::spawn_blocking(move || lock_file.lock().map(|()| lock_file))
            .await
            .map_err(std::io::Error::other)??
    } else if lock_file.try_lock().is_ok() {
        lock_file
    } else {
        return Ok(Outcome::Busy);
    };
    let Some(_lease) = locks.maintenance(repo_id, wait).await? else {
        return Ok(Outcome::Busy);
    };
    let survey = {
        let dir = dir.clone();
        tokio::task::spawn_blocking(move || {
            let now = SystemTime::now();
            maintain::remove_stale_files(&dir, now);
            maintain::survey(&dir, now)
        })
        .await
        .map_err(std::io::Error::other)??
    };
    let mut plan = match mode {
        Mode::Heuristic => maintain::plan(&survey, SystemTime::now()),
        Mode::Eager if survey.packs == 0 && survey.loose == 0 => Plan::default(),
        Mode::Eager => Plan {
            prune: true,
            repack: Some(Repack::Full { expire: true }),
            graph: Some(maintain::GraphWrite::Replace),
        },
    };
    if !may_expire {
        plan = plan.keeping_objects();
    }
    if plan.is_empty() {
        return Ok(Outcome::Done(plan));
    }
    let _writers_held_off = match plan.expires() {
        true => Some(locks.lock(repo_id).await?),
        false => None,
    };
    let started = Instant::now();
    maintain::execute(&dir, &plan).await?;
    tracing::info!(repo = %repo_id, done = %plan.describe(), ms = started.elapsed().as_millis() as u64, "maintained");
    drop(lock_file);
    Ok(Outcome::Done(plan))
}

/// The queue and the one worker of a server process.
pub struct Maintenance {
    data_dir: PathBuf,
    locks: Arc<RepoLocks>,
    /// Queued repos: (first queued, last queued).
    queued: Mutex<HashMap<String, (Instant, Instant)>>,
    wake: Arc<tokio::sync::Notify>,
}

impl Maintenance {
    /// Starts the worker and the sweep; they stop when the last handle is dropped.
    pub fn start(data_dir: PathBuf, locks: Arc<RepoLocks>) -> Arc<Maintenance> {
        let m = Arc::new(Maintenance {
            data_dir,
            locks,
            queued: Mutex::default(),
            wake: Arc::default(),
        });
        tokio::spawn(work(Arc::downgrade(&m)));
        tokio::spawn(sweep(Arc::downgrade(&m)));
        m
    }

    /// A push, merge or meta save wrote into `repo_id`: maintain it once it is quiet.
    pub fn after_write(&self, repo_id: &str) {
        let now = Instant::now();
        if let Ok(mut q) = self.queued.lock() {
            q.entry(repo_id.to_owned())
                .and_modify(|(_, last)| *last = now)
                .or_insert((now, now));
        }
        self.wake.notify_one();
    }

    /// The next repo to maintain and when it is due (the earliest).
    fn next(&self) -> Option<(String, Instant)> {
        let q = self.queued.lock().ok()?;
        q.iter()
            .map(|(id, (first, last))| (id.clone(), due(*first, *last)))
            .min_by_key(|(_, at)| *at)
    }
}

/// When a repo first queued at `first` and last at `last` is due.
pub fn due(first: Instant, last: Instant) -> Instant {
    (last + DEBOUNCE).min(first + MAX_DELAY)
}

async fn work(m: Weak<Maintenance>) {
    let Some(notify) = m.upgrade().map(|m| m.wake.clone()) else {
        return;
    };
    loop {
        let Some(strong) = m.upgrade() else { return };
        let wake = notify.notified();
        match strong.next() {
            Some((repo_id, at)) if at <= Instant::now() => {
                if let Ok(mut q) = strong.queued.lock() {
                    q.remove(&repo_id);
                }
                let (data_dir, locks) = (strong.data_dir.clone(), strong.locks.clone());
                drop(strong);
                match maintain_repo(&data_dir, &locks, &repo_id, Mode::Heuristic, true).await {
                    Ok(_) => {}
                    Err(e) => tracing::warn!(repo = %repo_id, error = %e, "maintenance failed"),
                }
            }
            Some((_, at)) => {
                drop(strong);
                let _ = tokio::time::timeout_at(at.into(), wake).await;
            }
            None => {
                drop(strong);
                // Woken by a write; the timeout lets the worker see its handle dropped.
                let _ = tokio::time::timeout(SWEEP, wake).await;
            }
        }
    }
}

/// Queues every repo on disk, soon after start and then hourly.
async fn sweep(m: Weak<Maintenance>) {
    tokio::time::sleep(FIRST_SWEEP).await;
    loop {
        let Some(strong) = m.upgrade() else { return };
        let repos = strong.data_dir.join("repos");
        let ids: Vec<String> = tokio::task::spawn_blocking(move || {
            std::fs::read_dir(repos)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.strip_suffix(".git").map(str::to_owned)
                })
                .collect()
        })
        .await
        .unwrap_or_default();
        ids.iter().for_each(|id| strong.after_write(id));
        drop(strong);
        tokio::time::sleep(SWEEP).await;
    }
}

#[cfg(test)]
mod tests {
    use super::{DEBOUNCE, MAX_DELAY, due};
    use std::time::{Duration, Instant};

    #[test]
    fn a_repo_is_due_once_quiet_but_never_later_than_the_max_delay() {
        let t0 = Instant::now();
        assert_eq!(due(t0, t0), t0 + DEBOUNCE);
        let busy = t0 + Duration::from_secs(30);
        assert_eq!(due(t0, busy), busy + DEBOUNCE);
        let very_busy = t0 + MAX_DELAY;
        assert_eq!(due(t0, very_busy), t0 + MAX_DELAY);
    }
}
