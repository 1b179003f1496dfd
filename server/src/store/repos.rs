//! Repos: each a bare repository on disk named by its permanent id.

use super::{H, Result, on, placeholders};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RepoRow {
    pub id: String,
    pub monorepo_id: String,
    pub name: String,
    pub path: String,
    pub is_meta: bool,
    pub default_branch: String,
    pub default_head: Option<String>,
    pub releases_public: bool,
    pub created_at: i64,
    /// When main last moved (0 before).
    pub default_head_at: i64,
}

const COLUMNS: &str = "id, monorepo_id, name, path, is_meta, default_branch, default_head, releases_public, created_at, default_head_at";

pub async fn insert(h: H<'_>, row: &RepoRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO repos (id, monorepo_id, name, path, is_meta, default_branch, default_head, releases_public, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&row.id).bind(&row.monorepo_id).bind(&row.name).bind(&row.path).bind(row.is_meta)
    .bind(&row.default_branch).bind(&row.default_head).bind(row.releases_public).bind(row.created_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

/// Every repo of the monorepo, the meta layer included, by name.
pub async fn all(h: H<'_>, monorepo_id: &str) -> Result<Vec<RepoRow>> {
    let sql = format!("SELECT {COLUMNS} FROM repos WHERE monorepo_id = $1 ORDER BY name");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).fetch_all(c).await?))
}

/// Every repo of each of `monorepo_ids`, by monorepo and name.
pub async fn all_in(h: H<'_>, monorepo_ids: &[String]) -> Result<Vec<RepoRow>> {
    if monorepo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {COLUMNS} FROM repos WHERE monorepo_id IN ({}) ORDER BY monorepo_id, name",
        placeholders(1, monorepo_ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in monorepo_ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

pub async fn by_name(h: H<'_>, monorepo_id: &str, name: &str) -> Result<Option<RepoRow>> {
    let sql = format!("SELECT {COLUMNS} FROM repos WHERE monorepo_id = $1 AND name = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).bind(name).fetch_optional(c).await?),
    )
}

pub async fn by_id(h: H<'_>, id: &str) -> Result<Option<RepoRow>> {
    let sql = format!("SELECT {COLUMNS} FROM repos WHERE id = $1");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(c).await?))
}

/// Every repo of every monorepo, for reconciling refs at start-up.
pub async fn every(h: H<'_>) -> Result<Vec<RepoRow>> {
    let sql = format!("SELECT {COLUMNS} FROM repos ORDER BY id");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_all(c).await?))
}

/// Re-reads the repo with its row locked (PostgreSQL) so ref recording is serial.
pub async fn lock(h: H<'_>, id: &str) -> Result<Option<RepoRow>> {
    let sql = format!(
        "UPDATE repos SET default_branch = default_branch WHERE id = $1 RETURNING {COLUMNS}"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(c).await?))
}

pub async fn set_default_head(h: H<'_>, id: &str, head: Option<&str>, at: i64) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE repos SET default_head = $2, default_head_at = $3 WHERE id = $1")
        .bind(id).bind(head).bind(at).execute(c).await?.rows_affected());
    Ok(())
}

pub async fn set_releases_public(h: H<'_>, id: &str, public: bool) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE repos SET releases_public = $2 WHERE id = $1")
        .bind(id).bind(public).execute(c).await?.rows_affected());
    Ok(())
}
