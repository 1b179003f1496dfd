//! Storage: one interface over SQLite (the embedded default) and PostgreSQL (scale-out).
//!
//! Queries are written once, in SQL both backends accept (`$1` placeholders, `RETURNING`,
//! `ON CONFLICT`, times as unix milliseconds), against [`H`], a borrowed connection of
//! either backend; [`on!`](crate::store::on) expands a query body once per backend so each
//! arm is typed by its own driver. Each backend module owns its connection setup and its
//! migrations.

pub mod branches;
pub mod credentials;
pub mod device;
pub mod events;
pub mod feed;
pub mod login_states;
pub mod merges;
pub mod monorepos;
pub mod orgs;
mod postgres;
pub mod presence;
pub mod repos;
pub mod reviews;
mod sqlite;
pub mod statuses;
pub mod users;

use sqlx::{PgConnection, Postgres, Sqlite, SqliteConnection, Transaction, pool::PoolConnection};

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
pub enum Store {
    Sqlite(sqlite::Pools),
    Postgres(sqlx::PgPool),
}

/// A borrowed connection of either backend; every query function takes one.
pub enum H<'a> {
    Sqlite(&'a mut SqliteConnection),
    Postgres(&'a mut PgConnection),
}

/// Runs `$body` with `$c` bound to the backend's own connection type.
macro_rules! on {
    ($h:expr, $c:ident => $body:expr) => {
        match $h {
            $crate::store::H::Sqlite($c) => $body,
            $crate::store::H::Postgres($c) => $body,
        }
    };
}
pub(crate) use on;

/// A pooled connection for reads outside a transaction.
pub enum Conn {
    Sqlite(PoolConnection<Sqlite>),
    Postgres(PoolConnection<Postgres>),
}

/// A write transaction: a change and its events commit together or not at all.
pub enum Tx {
    /// With the bell its commit rings.
    Sqlite(
        Transaction<'static, Sqlite>,
        std::sync::Arc<tokio::sync::watch::Sender<u64>>,
    ),
    Postgres(Transaction<'static, Postgres>),
}

impl H<'_> {
    /// Borrows again for one more query, keeping `self` usable afterwards.
    pub fn reborrow(&mut self) -> H<'_> {
        match self {
            H::Sqlite(c) => H::Sqlite(c),
            H::Postgres(c) => H::Postgres(c),
        }
    }
}

impl Conn {
    pub fn h(&mut self) -> H<'_> {
        match self {
            Conn::Sqlite(c) => H::Sqlite(c),
            Conn::Postgres(c) => H::Postgres(c),
        }
    }
}

impl Tx {
    pub fn h(&mut self) -> H<'_> {
        match self {
            Tx::Sqlite(t, _) => H::Sqlite(t),
            Tx::Postgres(t) => H::Postgres(t),
        }
    }

    pub async fn commit(self) -> Result<()> {
        match self {
            Tx::Sqlite(t, bell) => {
                t.commit().await?;
                bell.send_modify(|n| *n = n.wrapping_add(1));
            }
            Tx::Postgres(t) => t.commit().await?,
        }
        Ok(())
    }
}

impl Store {
    /// Opens (creating when needed) the database at `url` and runs its migrations.
    /// `postgres://` and `postgresql://` select PostgreSQL; anything else is SQLite.
    pub async fn open(url: &str) -> Result<Store> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Store::Postgres(postgres::open(url).await?))
        } else {
            Ok(Store::Sqlite(sqlite::open(url).await?))
        }
    }

    /// The backend's name, for logs and the health answer.
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }

    pub async fn read(&self) -> Result<Conn> {
        Ok(match self {
            Store::Sqlite(p) => Conn::Sqlite(p.read.acquire().await?),
            Store::Postgres(p) => Conn::Postgres(p.acquire().await?),
        })
    }

    pub async fn begin(&self) -> Result<Tx> {
        Ok(match self {
            Store::Sqlite(p) => Tx::Sqlite(p.write.begin().await?, p.bell.clone()),
            Store::Postgres(p) => Tx::Postgres(p.begin().await?),
        })
    }

    pub async fn close(&self) {
        match self {
            Store::Sqlite(p) => {
                p.write.close().await;
                p.read.close().await;
            }
            Store::Postgres(p) => p.close().await,
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

/// `$first, $first+1, ...`: `n` placeholders for an `IN (...)` list.
pub fn placeholders(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}
