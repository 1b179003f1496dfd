//! One merge at a time into a repo (merges and meta saves move main), across every server
//! process on the database. In a process, a mutex per repo; on PostgreSQL also an advisory
//! lock, taken in a transaction left open on a connection of a small pool of its own while
//! the merge is made, so a server that dies lets go of it with its connection.
//!
//! The ref update's compare-and-swap already keeps a racing merge from losing a commit;
//! the lock keeps the racers from wasting a merge each and answering `ref_moved` after
//! their retries run out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{Postgres, Transaction};
use tokio::sync::OwnedMutexGuard;

use crate::store;

/// Connections held for locks: the most repos one process merges into at once (others
/// wait for one). Apart from the main pool, so merges waiting here never starve the
/// requests and the merges themselves of connections.
const LOCK_CONNECTIONS: u32 = 4;

/// The locks of one server process.
pub struct RepoLocks {
    local: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// PostgreSQL only: where the advisory locks are held.
    pool: Option<PgPool>,
}

/// Held while a repo is maintained; on PostgreSQL another server seeing it held leaves the
/// repo to this one. Dropping it lets go.
pub struct Lease {
    _across: Option<Transaction<'static, Postgres>>,
}

/// Held while a merge is made; dropping it lets go (the transaction rolls back).
pub struct Held {
    _across: Option<Transaction<'static, Postgres>>,
    _local: Vec<OwnedMutexGuard<()>>,
}

impl RepoLocks {
    /// Locks for a server on `database_url` (connected when first needed).
    pub fn new(database_url: &str) -> RepoLocks {
        let postgres =
            database_url.starts_with("postgres://") || database_url.starts_with("postgresql://");
        let pool = postgres
            .then(|| {
                PgPoolOptions::new()
                    .max_connections(LOCK_CONNECTIONS)
                    .connect_lazy(database_url)
                    .ok()
            })
            .flatten();
        RepoLocks {
            local: Mutex::default(),
            pool,
        }
    }

    /// Waits for the repo's lock, first in this process, then across processes.
    pub async fn lock(&self, repo_id: &str) -> store::Result<Held> {
        self.lock_all(&[repo_id.to_owned()]).await
    }

    /// Waits for the locks of every repo of `repo_ids` (a change landing in several),
    /// taken in one fixed order (by id), so two callers wanting some of the same repos
    /// never wait on each other in a circle. Across processes they are held on one
    /// connection, so a change of many repos takes one of the few.
    pub async fn lock_all(&self, repo_ids: &[String]) -> store::Result<Held> {
        let mut ids: Vec<&String> = repo_ids.iter().collect();
        ids.sort();
        ids.dedup();
        let mut local = Vec::with_capacity(ids.len());
        for id in &ids {
            let mutex = match self.local.lock() {
                Ok(mut locks) => locks.entry((*id).clone()).or_default().clone(),
                Err(_) => Arc::default(),
            };
            local.push(mutex.lock_owned().await);
        }
        let across = match &self.pool {
            Some(pool) => {
                let mut tx = pool.begin().await?;
                for id in &ids {
                    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                        .bind(format!("merge:{id}"))
                        .execute(&mut *tx)
                        .await?;
                }
                Some(tx)
            }
            None => None,
        };
        Ok(Held {
            _across: across,
            _local: local,
        })
    }

    /// The repo's maintenance lease across processes: once another process lets go of
    /// it (`wait`), else now or never (None). Without PostgreSQL there is one server, and
    /// the lease is always had.
    pub async fn maintenance(&self, repo_id: &str, wait: bool) -> store::Result<Option<Lease>> {
        let Some(pool) = &self.pool else {
            return Ok(Some(Lease { _across: None }));
        };
        let mut tx = pool.begin().await?;
        let key = format!("maintain:{repo_id}");
        if wait {
            sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                .bind(key)
                .execute(&mut *tx)
                .await?;
            return Ok(Some(Lease { _across: Some(tx) }));
        }
        let (got,): (bool,) =
            sqlx::query_as("SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))")
                .bind(key)
                .fetch_one(&mut *tx)
                .await?;
        Ok(got.then_some(Lease { _across: Some(tx) }))
    }
}
