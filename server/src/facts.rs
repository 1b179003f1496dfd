//! Branch facts (`ahead`, `behind`, `base`, the merge dry run) computed in the background.
//!
//! Every push and every main move queues the branches it concerns; a few workers take
//! them one at a time, and a per-branch lock keeps one computation per (repo, branch) at
//! once, whoever asks (the queue, a list, or `getBranch?fresh=1`). Facts are stored only
//! while the branch still has the head they were computed for, with the main they were
//! computed against, so a reader can always tell whether they are stale; each stored
//! computation emits `branch.updated` in its transaction.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use svc_protocol::event::ZERO_SHA;
use tokio::sync::mpsc;

use crate::git::record::{self, Recorded};
use crate::git::storage;
use crate::pokes::Pokes;
use crate::store::branches::{self, BranchRow, Facts};
use crate::store::{self, Store, now_ms, repos};

/// Computations running at once (the machine's cores are shared with requests).
const WORKERS: usize = 2;
/// Branches pushed this recently get fresh facts when main moves.
pub const RECENT_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// Plus this many of the most recently pushed open branches.
pub const SWEEP: i64 = 100;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("git: {0}")]
    Git(String),
}

type Key = (String, String);

/// The queue and the per-branch locks of one server process.
pub struct Worker {
    store: Store,
    data_dir: PathBuf,
    queued: Mutex<HashSet<Key>>,
    locks: Mutex<HashMap<Key, Arc<tokio::sync::Mutex<()>>>>,
    tx: mpsc::UnboundedSender<Key>,
    /// Told when an armed branch's facts are stored (its merge may go now).
    auto_merge: Arc<Pokes>,
}

/// True when the facts are for `head` against `main`.
pub fn fresh(b: &BranchRow, main: Option<&str>) -> bool {
    b.facts.facts_head.as_deref() == Some(b.head.as_str())
        && b.facts.facts_main.as_deref() == Some(main.unwrap_or(ZERO_SHA))
}

impl Worker {
    /// Starts the workers; they stop when the last handle is dropped.
    pub fn start(store: Store, data_dir: PathBuf, auto_merge: Arc<Pokes>) -> Arc<Worker> {
        let (tx, rx) = mpsc::unbounded_channel();
        let worker = Arc::new(Worker {
            store,
            data_dir,
            queued: Mutex::default(),
            locks: Mutex::default(),
            tx,
            auto_merge,
        });
        let rx = Arc::new(tokio::sync::Mutex::new(rx));
        for _ in 0..WORKERS {
            let (weak, rx) = (Arc::downgrade(&worker), rx.clone());
            tokio::spawn(async move {
                loop {
                    let Some(key) = rx.lock().await.recv().await else {
                        return;
                    };
                    let Some(worker) = weak.upgrade() else { return };
                    if let Ok(mut q) = worker.queued.lock() {
                        q.remove(&key);
                    }
                    if let Err(e) = worker.compute(&key.0, &key.1).await {
                        tracing::warn!(repo = %key.0, branch = %key.1, error = %e, "cannot compute branch facts");
                    }
                }
            });
        }
        worker
    }

    /// Queues one branch (once, however often it is asked before a worker takes it).
    pub fn enqueue(&self, repo_id: &str, branch: &str) {
        let key = (repo_id.to_owned(), branch.to_owned());
        let new = self.queued.lock().is_ok_and(|mut q| q.insert(key.clone()));
        if new {
            // The receiver lives as long as the workers; a send error means shutdown.
            let _ = self.tx.send(key);
        }
    }

    /// Queues what a recording changed: the moved branches, and after a main move the
    /// branches that should have fresh facts.
    pub async fn after_record(&self, repo_id: &str, recorded: &Recorded) {
        self.after_records(&[(repo_id, recorded)]).await;
    }

    /// The same for several repos' recordings (a change's), with one read of the
    /// branches wanting facts for every main that moved.
    pub async fn after_records(&self, all: &[(&str, &Recorded)]) {
        for (repo_id, recorded) in all {
            for b in &recorded.moved {
                self.enqueue(repo_id, b);
            }
        }
        let mains: Vec<&str> = all
            .iter()
            .filter(|(_, r)| r.main_moved)
            .map(|(id, _)| *id)
            .collect();
        self.sweep_all(&mains).await;
    }

    /// Queues the open branches pushed in the last 7 days and the 100 most recent.
    pub async fn sweep(&self, repo_id: &str) {
        self.sweep_all(&[repo_id]).await;
    }

    /// The same in each of several repos, read at once.
    async fn sweep_all(&self, repo_ids: &[&str]) {
        if repo_ids.is_empty() {
            return;
        }
        let found = match self.store.read().await {
            Ok(mut conn) => {
                let since = now_ms() - RECENT_MS;
                branches::wanting_facts(conn.h(), repo_ids, since, SWEEP).await
            }
            Err(e) => Err(e),
        };
        match found {
            Ok(found) => found.iter().for_each(|(repo, n)| self.enqueue(repo, n)),
            Err(e) => {
                tracing::warn!(repos = ?repo_ids, error = %e, "cannot list branches for facts")
            }
        }
    }

    /// Computes the facts of `branches`, one after another, for at most `budget` in all
    /// (a list answering from stored facts). A computation still running when the budget
    /// ends goes on in the background and stores its facts when done (`branch.updated`);
    /// the branches not begun are queued.
    pub async fn compute_within(
        self: &Arc<Self>,
        repo_id: &str,
        branches: &[String],
        budget: Duration,
    ) {
        let deadline = Instant::now() + budget;
        for (i, branch) in branches.iter().enumerate() {
            let left = deadline.saturating_duration_since(Instant::now());
            if !left.is_zero() {
                let (worker, repo, name) = (self.clone(), repo_id.to_owned(), branch.clone());
                let task = tokio::spawn(async move { worker.compute(&repo, &name).await });
                match tokio::time::timeout(left, task).await {
                    Ok(Ok(Err(e))) => {
                        tracing::warn!(repo = %repo_id, %branch, error = %e, "cannot compute branch facts");
                    }
                    Ok(_) => {}
                    Err(_) => {
                        branches[i + 1..]
                            .iter()
                            .for_each(|b| self.enqueue(repo_id, b));
                        return;
                    }
                }
                continue;
            }
            branches[i..].iter().for_each(|b| self.enqueue(repo_id, b));
            return;
        }
    }

    fn lock_of(&self, key: &Key) -> Arc<tokio::sync::Mutex<()>> {
        match self.locks.lock() {
            Ok(mut locks) => locks.entry(key.clone()).or_default().clone(),
            Err(_) => Arc::default(),
        }
    }

    /// Computes and stores the branch's facts unless they are fresh; answers whether it
    /// stored new ones.
    pub async fn compute(&self, repo_id: &str, branch: &str) -> Result<bool, Error> {
        let key = (repo_id.to_owned(), branch.to_owned());
        let lock = self.lock_of(&key);
        let stored = {
            let _one_at_once = lock.lock().await;
            self.compute_locked(repo_id, branch).await
        };
        if let Ok(mut locks) = self.locks.lock()
            && locks.get(&key).is_some_and(|l| Arc::strong_count(l) <= 2)
        {
            locks.remove(&key);
        }
        stored
    }

    async fn compute_locked(&self, repo_id: &str, branch: &str) -> Result<bool, Error> {
        let (repo, row) = {
            let mut conn = self.store.read().await?;
            let Some(repo) = repos::by_id(conn.h(), repo_id).await? else {
                return Ok(false);
            };
            let Some(row) = branches::get(conn.h(), repo_id, branch).await? else {
                return Ok(false);
            };
            (repo, row)
        };
        // A merged branch's facts stay as they were when it merged: recomputed at
        // every later main move, they only cost a write and an event each (the soak
        // saw them slow listBranches to seconds).
        if row.state != "open" || fresh(&row, repo.default_head.as_deref()) {
            return Ok(false);
        }
        let dir = storage::repo_dir(&self.data_dir, repo_id);
        let (main, head) = (repo.default_head.clone(), row.head.clone());
        let facts = tokio::task::spawn_blocking(move || compute_git(&dir, main.as_deref(), &head))
            .await
            .map_err(|e| Error::Git(e.to_string()))??;
        let mut tx = self.store.begin().await?;
        if !branches::set_facts(tx.h(), repo_id, branch, &facts).await? {
            return Ok(false);
        }
        let mut armed = false;
        if let Some(b) = branches::get(tx.h(), repo_id, branch).await? {
            let nobody = record::Actor::default();
            record::branch_updated(tx.h(), &repo.monorepo_id, &repo.name, &b, &nobody).await?;
            armed = b.auto_merge.armed();
        }
        tx.commit().await?;
        if armed {
            self.auto_merge.poke(repo_id);
        }
        Ok(true)
    }
}

/// The facts of `head` against `main` (none: the repo has no main yet).
fn compute_git(dir: &std::path::Path, main: Option<&str>, head: &str) -> Result<Facts, Error> {
    let git = |e: crate::git::read::Error| Error::Git(e.to_string());
    let repo = crate::git::open_repos::open(dir).map_err(git)?;
    let head_id = repo
        .commit_exists(head)
        .map_err(git)?
        .ok_or_else(|| Error::Git(format!("the branch head {head} is missing")))?;
    let main_id = match main {
        Some(m) => Some(
            repo.commit_exists(m)
                .map_err(git)?
                .ok_or_else(|| Error::Git(format!("main's head {m} is missing")))?,
        ),
        None => None,
    };
    let mut facts = Facts {
        facts_head: Some(head.to_owned()),
        facts_main: Some(main.unwrap_or(ZERO_SHA).to_owned()),
        facts_at: Some(now_ms()),
        mergeable: Some("clean".into()),
        ..Facts::default()
    };
    if let Some(main_id) = main_id {
        let got = repo.branch_facts(main_id, head_id).map_err(git)?;
        facts.base = got.base.map(|b| b.to_string());
        facts.ahead = Some(i64::from(got.ahead));
        facts.behind = Some(i64::from(got.behind));
        let check = got.check;
        if !check.clean {
            facts.mergeable = Some("conflicts".into());
            facts.conflicts = Some(json!(check.conflicts).to_string());
        }
    }
    Ok(facts)
}
