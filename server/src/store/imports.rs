//! Imports: their state while the history comes in. The repo itself is written only
//! when an import is done.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ImportRow {
    pub id: String,
    pub monorepo_id: String,
    /// The repo's folder, as asked.
    pub path: String,
    /// The repo's name (the path with `/` as `-`).
    pub name: String,
    /// The repo being filled: an existing empty one's id, or the new one's.
    pub repo_id: String,
    /// `waiting`, `running`, `done` or `failed`.
    pub state: String,
    pub error: Option<String>,
    pub created_by: String,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str =
    "id, monorepo_id, path, name, repo_id, state, error, created_by, created_at, updated_at";

pub async fn insert(h: H<'_>, row: &ImportRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO imports (id, monorepo_id, path, name, repo_id, state, error, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&row.id).bind(&row.monorepo_id).bind(&row.path).bind(&row.name).bind(&row.repo_id)
    .bind(&row.state).bind(&row.error).bind(&row.created_by).bind(row.created_at).bind(row.updated_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

pub async fn get(h: H<'_>, monorepo_id: &str, id: &str) -> Result<Option<ImportRow>> {
    let sql = format!("SELECT {COLUMNS} FROM imports WHERE monorepo_id = $1 AND id = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).bind(id).fetch_optional(c).await?),
    )
}

/// Moves the import from `from` to `to` (with `error` when it failed); answers whether
/// it was in `from`, so two requests cannot both take one waiting import.
pub async fn set_state(
    h: H<'_>,
    id: &str,
    from: &str,
    to: &str,
    error: Option<&str>,
    now: i64,
) -> Result<bool> {
    let n = on!(h, c => sqlx::query(
        "UPDATE imports SET state = $3, error = $4, updated_at = $5 WHERE id = $1 AND state = $2",
    )
    .bind(id).bind(from).bind(to).bind(error).bind(now)
    .execute(c).await?.rows_affected());
    Ok(n == 1)
}

/// At start on SQLite (the only process): imports a stopped server was running failed.
pub async fn fail_running(h: H<'_>, now: i64) -> Result<u64> {
    Ok(on!(h, c => sqlx::query(
        "UPDATE imports SET state = 'failed', error = 'the server stopped during the import; import again', updated_at = $1
         WHERE state = 'running'",
    )
    .bind(now)
    .execute(c).await?.rows_affected()))
}
