//! Recorded deployments of a repo (the service never deploys), newest first.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DeploymentRow {
    pub id: i64,
    pub environment: String,
    pub sha: String,
    pub release: Option<String>,
    pub url: Option<String>,
    pub description: Option<String>,
    pub created_by: String,
    pub created_at: i64,
}

const COLUMNS: &str = "id, environment, sha, release, url, description, created_by, created_at";

/// Records one and answers it with its id.
pub async fn insert(h: H<'_>, repo_id: &str, row: &DeploymentRow) -> Result<DeploymentRow> {
    let sql = format!(
        "INSERT INTO deployments (repo_id, environment, sha, release, url, description, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {COLUMNS}"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(&row.environment).bind(&row.sha).bind(&row.release).bind(&row.url)
        .bind(&row.description).bind(&row.created_by).bind(row.created_at)
        .fetch_one(c).await?))
}

/// One page, newest first, below the id `before`.
pub async fn page(
    h: H<'_>,
    repo_id: &str,
    before: Option<i64>,
    limit: i64,
) -> Result<Vec<DeploymentRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM deployments WHERE repo_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(before.unwrap_or(i64::MAX)).bind(limit).fetch_all(c).await?))
}
