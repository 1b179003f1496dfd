//! Recent answers of [`monorepos::by_label_with_role`]: the label a request names, the
//! monorepo it resolves to and the caller's role there. Authorizing a request then costs
//! a map lookup instead of a database round trip (~50 µs on SQLite).
//!
//! SQLite only, where this process makes every commit through [`super::Tx::commit`],
//! which bumps the generation: an answer is trusted only until the next commit, so a
//! removal counts from the next request as before. A read that raced a commit is never
//! kept (the generation it started under is gone). No answer is older than [`TTL`],
//! which bounds what a commit of another process on the same file (an operator's
//! `svc-server user add` accepting invites) can leave stale. Only reads outside a
//! transaction use it: a write authorizes against its own snapshot. Outsiders' misses
//! are not kept.
//!
//! [`monorepos::by_label_with_role`]: super::monorepos::by_label_with_role

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::monorepos::LabelAccess;

/// How long an answer is trusted at most: well inside the 15 s within which a removal
/// must take effect, even for a change this process did not commit.
const TTL: Duration = Duration::from_secs(5);
/// Answers kept; past this the cache starts over.
const CAPACITY: usize = 10_000;

/// (person, owner, name), the label as the request wrote it, lower case.
type Key = (String, String, String);

#[derive(Default)]
pub struct AccessCache {
    entries: Mutex<HashMap<Key, (LabelAccess, u64, Instant)>>,
    generation: AtomicU64,
}

impl AccessCache {
    /// The answer for `key`, when nothing committed since it was read.
    pub fn get(&self, user_id: &str, owner: &str, name: &str) -> Option<LabelAccess> {
        let generation = self.generation();
        let entries = self.entries.lock().ok()?;
        // The map is keyed by owned strings; a lookup by borrowed parts would need a
        // custom key type for no measurable gain at this size.
        let key = (user_id.to_owned(), owner.to_owned(), name.to_owned());
        entries
            .get(&key)
            .filter(|(_, at_generation, at)| *at_generation == generation && at.elapsed() < TTL)
            .map(|(answer, _, _)| answer.clone())
    }

    /// The generation to pass to [`AccessCache::put`]: read it before the database.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Keeps an answer read when the generation was `generation`, unless a write
    /// committed since (the answer may predate it).
    pub fn put(
        &self,
        generation: u64,
        user_id: &str,
        owner: &str,
        name: &str,
        answer: LabelAccess,
    ) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        if self.generation() != generation {
            return;
        }
        if entries.len() >= CAPACITY {
            entries.clear();
        }
        let key = (user_id.to_owned(), owner.to_owned(), name.to_owned());
        entries.insert(key, (answer, generation, Instant::now()));
    }

    /// Forgets every answer: a write committed.
    pub fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        if let Ok(mut entries) = self.entries.lock() {
            entries.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::monorepos::MonorepoRow;

    fn answer(role: &str) -> LabelAccess {
        LabelAccess {
            monorepo: MonorepoRow {
                id: "m_1".into(),
                owner: "acme".into(),
                name: "web".into(),
                kind: "monorepo".into(),
                created_at: 0,
            },
            role: Some(role.into()),
        }
    }

    #[test]
    fn an_answer_lasts_until_the_next_commit() {
        let cache = AccessCache::default();
        let g = cache.generation();
        cache.put(g, "u", "acme", "web", answer("owner"));
        assert_eq!(
            cache
                .get("u", "acme", "web")
                .and_then(|a| a.role)
                .as_deref(),
            Some("owner")
        );
        assert!(cache.get("v", "acme", "web").is_none(), "keyed by person");
        cache.changed();
        assert!(cache.get("u", "acme", "web").is_none());
    }

    #[test]
    fn a_read_that_raced_a_commit_is_not_kept() {
        let cache = AccessCache::default();
        let g = cache.generation();
        cache.changed();
        cache.put(g, "u", "acme", "web", answer("member"));
        assert!(cache.get("u", "acme", "web").is_none());
    }

    #[test]
    fn an_answer_expires() {
        let cache = AccessCache::default();
        let g = cache.generation();
        cache.put(g, "u", "acme", "web", answer("member"));
        if let Ok(mut entries) = cache.entries.lock() {
            for (_, _, at) in entries.values_mut() {
                *at -= TTL;
            }
        }
        assert!(cache.get("u", "acme", "web").is_none());
    }
}
