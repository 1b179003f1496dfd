//! SQLite backend: one file in WAL mode, one writer connection (so write transactions
//! queue instead of failing with SQLITE_BUSY) and a small pool of readers.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use tokio::sync::watch;

use super::Result;

#[derive(Clone)]
pub struct Pools {
    pub write: SqlitePool,
    pub read: SqlitePool,
    /// Rung after every committed write transaction: what live readers wait on.
    pub bell: Arc<watch::Sender<u64>>,
}

/// Rows a query's thread may read ahead of the task taking them.
const ROW_BUFFER: usize = 1024;

pub async fn open(url: &str) -> Result<Pools> {
    let options = SqliteConnectOptions::from_str(url)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10))
        // Rows cross from the connection's thread to the task through a bounded channel;
        // at sqlx's 50 a long list keeps the thread stopping and being woken per row.
        .row_buffer_size(ROW_BUFFER);
    let write = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options.clone())
        .await?;
    sqlx::migrate!("./migrations/sqlite").run(&write).await?;
    // A connection to a local file does not go stale: pinging it before each use (the
    // pool's default) would cost a worker round trip on every request.
    let read = SqlitePoolOptions::new()
        .max_connections(8)
        .test_before_acquire(false)
        .connect_with(options.read_only(true))
        .await?;
    Ok(Pools {
        write,
        read,
        bell: Arc::new(watch::channel(0).0),
    })
}
