//! Branches as stored: heads recorded from the git door, authors, state.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct BranchRow {
    pub repo_id: String,
    pub name: String,
    pub head: String,
    pub author: Option<String>,
    pub pusher: Option<String>,
    pub state: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub created_at: i64,
    pub pushed_at: i64,
}

const COLUMNS: &str =
    "repo_id, name, head, author, pusher, state, title, description, created_at, pushed_at";

/// The repo's branches that git still has (open or merged), by name.
pub async fn live(h: H<'_>, repo_id: &str) -> Result<Vec<BranchRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM branches WHERE repo_id = $1 AND state <> 'deleted' ORDER BY name"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).fetch_all(c).await?))
}

pub async fn get(h: H<'_>, repo_id: &str, name: &str) -> Result<Option<BranchRow>> {
    let sql = format!("SELECT {COLUMNS} FROM branches WHERE repo_id = $1 AND name = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).bind(name).fetch_optional(c).await?),
    )
}

/// Writes the whole row (insert or replace).
pub async fn put(h: H<'_>, row: &BranchRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO branches (repo_id, name, head, author, pusher, state, title, description, created_at, pushed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (repo_id, name) DO UPDATE SET head = excluded.head, author = excluded.author,
           pusher = excluded.pusher, state = excluded.state, title = excluded.title,
           description = excluded.description, created_at = excluded.created_at, pushed_at = excluded.pushed_at",
    )
    .bind(&row.repo_id).bind(&row.name).bind(&row.head).bind(&row.author).bind(&row.pusher)
    .bind(&row.state).bind(&row.title).bind(&row.description).bind(row.created_at).bind(row.pushed_at)
    .execute(c).await?.rows_affected());
    Ok(())
}
