//! Storage: one interface over SQLite (the embedded default) and PostgreSQL (scale-out).
//!
//! Queries are written once, in SQL both backends accept (`$1` placeholders, `RETURNING`,
//! `ON CONFLICT`, times as unix milliseconds), against [`H`], a borrowed connection of
//! either backend; [`on!`](crate::store::on) expands a query body once per backend so each
//! arm is typed by its own driver. Each backend module owns its connection setup and its
//! migrations.

pub mod access_cache;
pub mod agents;
pub mod artifacts;
pub mod branches;
pub mod ci;
pub mod credentials;
pub mod deployments;
pub mod device;
pub mod events;
pub mod feed;
pub mod hooks;
pub mod imports;
pub mod issues;
pub mod labels;
pub mod login_states;
pub mod merges;
pub mod monorepos;
pub mod orgs;
mod postgres;
pub mod presence;
pub mod queue;
pub mod releases;
pub mod repos;
pub mod reviews;
pub mod sign_in_links;
mod sqlite;
pub mod statuses;
pub mod tags;
pub mod users;

use std::sync::Arc;

use sqlx::{PgConnection, Postgres, Sqlite, SqliteConnection, Transaction, pool::PoolConnection};

use access_cache::AccessCache;

/// A storage failure. Only [`Error::is_unique_violation`] is ever inspected by callers.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("database migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("{0}")]
    Setup(String),
}

impl Error {
    /// True when a UNIQUE or PRIMARY KEY constraint refused the write.
    pub fn is_unique_violation(&self) -> bool {
        matches!(self, Error::Sqlx(sqlx::Error::Database(e)) if e.is_unique_violation())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The service's database.
#[derive(Clone)]
pub struct Store {
    backend: Backend,
    /// Recent authorizations, valid until the next commit ([`access_cache`]); SQLite
    /// only, where this process makes every commit.
    access_cache: Option<Arc<AccessCache>>,
}

/// The pools of either backend.
#[derive(Clone)]
pub enum Backend {
    Sqlite(sqlite::Pools),
    Postgres(sqlx::PgPool),
}

/// A borrowed connection of either backend; every query function takes one.
pub struct H<'a> {
    pub db: Db<'a>,
    /// Present outside a transaction, for the queries [`AccessCache`] answers.
    pub access_cache: Option<&'a AccessCache>,
}

/// The backend's own connection type.
pub enum Db<'a> {
    Sqlite(&'a mut SqliteConnection),
    Postgres(&'a mut PgConnection),
}

/// Runs `$body` with `$c` bound to the backend's own connection type.
macro_rules! on {
    ($h:expr, $c:ident => $body:expr) => {
        match $h.db {
            $crate::store::Db::Sqlite($c) => $body,
            $crate::store::Db::Postgres($c) => $body,
        }
    };
}
pub(crate) use on;

/// A pooled connection for reads outside a transaction.
pub struct Conn {
    db: PooledDb,
    access_cache: Option<Arc<AccessCache>>,
}

enum PooledDb {
    Sqlite(PoolConnection<Sqlite>),
    Postgres(PoolConnection<Postgres>),
}

/// A write transaction: a change and its events commit together or not at all.
pub struct Tx {
    db: TxDb,
    /// Told of the commit, which may change any answer it holds.
    access_cache: Option<Arc<AccessCache>>,
}

enum TxDb {
    /// With the bell its commit rings.
    Sqlite(
        Transaction<'static, Sqlite>,
        Arc<tokio::sync::watch::Sender<u64>>,
    ),
    Postgres(Transaction<'static, Postgres>),
}

impl H<'_> {
    /// Borrows again for one more query, keeping `self` usable afterwards.
    pub fn reborrow(&mut self) -> H<'_> {
        let db = match &mut self.db {
            Db::Sqlite(c) => Db::Sqlite(c),
            Db::Postgres(c) => Db::Postgres(c),
        };
        H {
            db,
            access_cache: self.access_cache,
        }
    }
}

impl Conn {
    pub fn h(&mut self) -> H<'_> {
        let db = match &mut self.db {
            PooledDb::Sqlite(c) => Db::Sqlite(c),
            PooledDb::Postgres(c) => Db::Postgres(c),
        };
        H {
            db,
            access_cache: self.access_cache.as_deref(),
        }
    }
}

impl Tx {
    pub fn h(&mut self) -> H<'_> {
        let db = match &mut self.db {
            TxDb::Sqlite(t, _) => Db::Sqlite(t),
            TxDb::Postgres(t) => Db::Postgres(t),
        };
        H {
            db,
            access_cache: None,
        }
    }

    pub async fn commit(self) -> Result<()> {
        match self.db {
            TxDb::Sqlite(t, bell) => {
                t.commit().await?;
                if let Some(cache) = &self.access_cache {
                    cache.changed();
                }
                bell.send_modify(|n| *n = n.wrapping_add(1));
            }
            TxDb::Postgres(t) => t.commit().await?,
        }
        Ok(())
    }
}

impl Store {
    /// Opens (creating when needed) the database at `url` and runs its migrations.
    /// `postgres://` and `postgresql://` select PostgreSQL; anything else is SQLite.
    pub async fn open(url: &str) -> Result<Store> {
        let backend = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres(postgres::open(url).await?)
        } else {
            Backend::Sqlite(sqlite::open(url).await?)
        };
        // On PostgreSQL other processes commit too: a cached answer could outlive their
        // changes (a removal through another server), so every request reads afresh.
        let access_cache = match backend {
            Backend::Sqlite(_) => Some(Arc::default()),
            Backend::Postgres(_) => None,
        };
        Ok(Store {
            backend,
            access_cache,
        })
    }

    /// The backend's name, for logs and the health answer.
    pub fn backend(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// The PostgreSQL pool, where several server processes may share the database.
    pub fn postgres(&self) -> Option<&sqlx::PgPool> {
        match &self.backend {
            Backend::Sqlite(_) => None,
            Backend::Postgres(p) => Some(p),
        }
    }

    /// The backend's pools.
    pub fn backend_pools(&self) -> &Backend {
        &self.backend
    }

    pub async fn read(&self) -> Result<Conn> {
        let db = match &self.backend {
            Backend::Sqlite(p) => PooledDb::Sqlite(p.read.acquire().await?),
            Backend::Postgres(p) => PooledDb::Postgres(p.acquire().await?),
        };
        Ok(Conn {
            db,
            access_cache: self.access_cache.clone(),
        })
    }

    pub async fn begin(&self) -> Result<Tx> {
        let db = match &self.backend {
            Backend::Sqlite(p) => TxDb::Sqlite(p.write.begin().await?, p.bell.clone()),
            Backend::Postgres(p) => TxDb::Postgres(p.begin().await?),
        };
        Ok(Tx {
            db,
            access_cache: self.access_cache.clone(),
        })
    }

    pub async fn close(&self) {
        match &self.backend {
            Backend::Sqlite(p) => {
                p.write.close().await;
                p.read.close().await;
            }
            Backend::Postgres(p) => p.close().await,
        }
    }
}

/// Now, in unix milliseconds: how every time is stored.
pub fn now_ms() -> i64 {
    ms_of(time::OffsetDateTime::now_utc())
}

pub fn ms_of(t: time::OffsetDateTime) -> i64 {
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

/// A stored time as a date-time; out-of-range values clamp to the epoch.
pub fn time_of(ms: i64) -> time::OffsetDateTime {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
}

/// A `, `-separated column list with each column prefixed by `alias.`, for joins.
pub fn qualified(columns: &str, alias: &str) -> String {
    columns
        .split(", ")
        .map(|c| format!("{alias}.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rows `sql` answers with `binds` bound to `$1`, `$2`, ... in order: for the reads
/// that take a list (several repos' rows at once).
pub async fn rows_for<T>(h: H<'_>, sql: String, binds: &[&str]) -> Result<Vec<T>>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
        + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
        + Send
        + Unpin,
{
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()));
        for b in binds {
            q = q.bind(*b);
        }
        q.fetch_all(c).await?
    }))
}

/// `(repo_id = $first AND <column> = $first+1) OR ...`: `n` (repo id, value) pairs.
pub fn repo_pairs(first: usize, n: usize, column: &str) -> String {
    (0..n)
        .map(|i| {
            let at = first + 2 * i;
            format!("(repo_id = ${at} AND {column} = ${})", at + 1)
        })
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// `$first, $first+1, ...`: `n` placeholders for an `IN (...)` list.
pub fn placeholders(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}
