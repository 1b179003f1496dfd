//! Last commits per folder, cached by (repo, commit, path): a walk that runs out of its
//! request budget goes on in the background, and the retry reads its result.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use gix::ObjectId;
use svc_protocol::code::LastCommits;

use super::read::{Budget, Error, LastCommitsWalk, Repo};

/// Walks kept at once; the oldest-started is dropped past this.
const CAPACITY: usize = 256;
/// What a caller is told to wait before asking again.
pub const RETRY_AFTER_MS: u64 = 250;

struct Walking {
    walk: Mutex<LastCommitsWalk>,
    running: AtomicBool,
    started: u64,
}

type Key = (String, ObjectId, String);

#[derive(Default)]
pub struct Cache {
    walks: Mutex<(HashMap<Key, Arc<Walking>>, u64)>,
}

impl Cache {
    /// Answers within one request's budget; an unfinished walk continues in the background.
    /// Blocking: call it from `spawn_blocking`.
    pub fn answer(
        self: &Arc<Self>,
        repo_id: &str,
        repo: &Repo,
        commit: ObjectId,
        path: &str,
    ) -> Result<LastCommits, Error> {
        let key = (repo_id.to_owned(), commit, path.to_owned());
        let walking = match self.get(&key) {
            Some(w) => w,
            None => self.insert(key, LastCommitsWalk::new(repo, commit, path)?),
        };
        let mut answer = {
            let mut walk = walking
                .walk
                .lock()
                .map_err(|_| Error::Git("a last-commits walk panicked".into()))?;
            if !walk.is_done() && !walking.running.load(Ordering::Acquire) {
                walk.step(Budget::LAST_COMMITS)?;
            }
            walk.answer()
        };
        if !answer.complete {
            answer.retry_after_ms = Some(RETRY_AFTER_MS);
            if !walking.running.swap(true, Ordering::AcqRel) {
                let walking = Arc::clone(&walking);
                std::thread::spawn(move || {
                    if let Ok(mut walk) = walking.walk.lock()
                        && let Err(e) = walk.step(Budget::UNLIMITED)
                    {
                        tracing::warn!(error = %e, "background last-commits walk failed");
                    }
                    walking.running.store(false, Ordering::Release);
                });
            }
        }
        Ok(answer)
    }

    fn get(&self, key: &Key) -> Option<Arc<Walking>> {
        self.walks.lock().ok()?.0.get(key).cloned()
    }

    fn insert(&self, key: Key, walk: LastCommitsWalk) -> Arc<Walking> {
        let Ok(mut guard) = self.walks.lock() else {
            return Arc::new(Walking {
                walk: Mutex::new(walk),
                running: AtomicBool::new(false),
                started: 0,
            });
        };
        let (walks, counter) = &mut *guard;
        *counter += 1;
        if walks.len() >= CAPACITY
            && let Some(oldest) = walks
                .iter()
                .min_by_key(|(_, w)| w.started)
                .map(|(k, _)| k.clone())
        {
            walks.remove(&oldest);
        }
        let walking = Arc::new(Walking {
            walk: Mutex::new(walk),
            running: AtomicBool::new(false),
            started: *counter,
        });
        walks.entry(key).or_insert(walking).clone()
    }
}
