//! PostgreSQL backend: how svc scales out (several stateless servers on one database).

use sqlx::postgres::{PgPool, PgPoolOptions};

use super::Result;

pub async fn open(url: &str) -> Result<PgPool> {
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .connect(url)
        .await?;
    sqlx::migrate!("./migrations/postgres").run(&pool).await?;
    Ok(pool)
}
