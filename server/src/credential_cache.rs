//! Recently checked credentials, so an authenticated request does not pay a database
//! round trip (~50 µs on SQLite, ~130 µs on PostgreSQL over loopback) every time.
//!
//! Revocation stays immediate: the process that revokes evicts at once, and on
//! PostgreSQL the revoking transaction sends `NOTIFY svc_credentials` that every other
//! server process evicts on. While that listener is not connected the cache is bypassed,
//! and a generation counter keeps a read that raced an eviction from being cached.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::socket_gate::SocketGates;
use crate::store::credentials::TokenMatch;

/// How long an entry is trusted without the database: bounds the staleness no eviction
/// covers, which is a revocation written by another process on SQLite (`svc-server user
/// disable` beside a running server): the 15 s the specification allows other servers.
const TTL: Duration = Duration::from_secs(15);
/// Entries kept; past this the cache starts over.
const CAPACITY: usize = 10_000;
/// The PostgreSQL channel revocations are announced on.
pub const CHANNEL: &str = "svc_credentials";

pub struct CredentialCache {
    /// The open sockets of each credential, shut when it is evicted.
    pub sockets: Arc<SocketGates>,
    entries: Mutex<HashMap<Vec<u8>, (TokenMatch, Instant)>>,
    generation: AtomicU64,
    trusted: AtomicBool,
}

impl CredentialCache {
    /// `trusted` from the start only when no other process can revoke (SQLite).
    pub fn new(trusted: bool) -> CredentialCache {
        CredentialCache {
            sockets: Arc::default(),
            entries: Mutex::default(),
            generation: AtomicU64::new(0),
            trusted: AtomicBool::new(trusted),
        }
    }

    pub fn get(&self, hash: &[u8]) -> Option<TokenMatch> {
        if !self.trusted.load(Ordering::Acquire) {
            return None;
        }
        let entries = self.entries.lock().ok()?;
        entries
            .get(hash)
            .filter(|(_, at)| at.elapsed() < TTL)
            .map(|(row, _)| row.clone())
    }

    /// The generation to pass to [`CredentialCache::put`] after reading the database.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Caches a row read when the generation was `generation`, unless an eviction
    /// happened since (the row may be a revoked credential's).
    pub fn put(&self, generation: u64, row: TokenMatch) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        if self.generation.load(Ordering::Acquire) != generation
            || !self.trusted.load(Ordering::Acquire)
        {
            return;
        }
        if entries.len() >= CAPACITY {
            entries.clear();
        }
        entries.insert(row.token_hash.clone(), (row, Instant::now()));
    }

    /// Forgets a credential by id (revoked, here or in another process) and shuts its
    /// open sockets.
    pub fn evict(&self, credential_id: &str) {
        if let Ok(mut entries) = self.entries.lock() {
            self.generation.fetch_add(1, Ordering::AcqRel);
            entries.retain(|_, (row, _)| row.id != credential_id);
        }
        self.sockets.shut(credential_id);
    }

    /// Stops trusting (or trusts again) the cache; entries are dropped either way.
    pub fn set_trusted(&self, trusted: bool) {
        if let Ok(mut entries) = self.entries.lock() {
            self.generation.fetch_add(1, Ordering::AcqRel);
            entries.clear();
        }
        self.trusted.store(trusted, Ordering::Release);
    }
}

/// Follows revocations made by other server processes on PostgreSQL.
pub async fn follow_revocations(pool: sqlx::PgPool, cache: Arc<CredentialCache>) {
    loop {
        let listener = async {
            let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await?;
            listener.listen(CHANNEL).await?;
            Ok::<_, sqlx::Error>(listener)
        };
        match listener.await {
            Ok(mut listener) => {
                cache.set_trusted(true);
                while let Ok(note) = listener.recv().await {
                    cache.evict(note.payload());
                }
                tracing::warn!(
                    "lost the revocation listener; checking every credential in the database until it is back"
                );
            }
            Err(e) => tracing::warn!(error = %e, "cannot listen for revocations"),
        }
        cache.set_trusted(false);
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}
