//! PostgreSQL backend: how svc scales out (several stateless servers on one database).

use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::{PgPool, PgPoolOptions};

use super::Result;

/// How long a pooled connection may sit unused before it is checked on being taken.
const PING_AFTER_IDLE: Duration = Duration::from_secs(30);

pub async fn open(url: &str) -> Result<PgPool> {
    // A liveness ping before every acquire would add a round trip to every request
    // (several to a CI webhook): ping only a connection that sat idle long enough for
    // the server or the network to have dropped it.
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for > PING_AFTER_IDLE {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        .connect(url)
        .await?;
    sqlx::migrate!("./migrations/postgres").run(&pool).await?;
    Ok(pool)
}
