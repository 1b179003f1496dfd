//! Reviews of branches: comments and approvals, oldest first.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ReviewRow {
    pub id: i64,
    pub repo_id: String,
    pub branch: String,
    pub state: String,
    pub body: String,
    pub author: String,
    pub agent: Option<String>,
    pub head: String,
    pub created_at: i64,
}

const COLUMNS: &str = "id, repo_id, branch, state, body, author, agent, head, created_at";

/// Inserts the review (its `id` is ignored) and answers the stored row.
pub async fn insert(h: H<'_>, r: &ReviewRow) -> Result<ReviewRow> {
    let sql = format!(
        "INSERT INTO reviews (repo_id, branch, state, body, author, agent, head, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {COLUMNS}"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(&r.repo_id).bind(&r.branch).bind(&r.state).bind(&r.body).bind(&r.author)
        .bind(&r.agent).bind(&r.head).bind(r.created_at)
        .fetch_one(c).await?))
}

/// A page of a branch's reviews, oldest first, after review `after`.
pub async fn page(
    h: H<'_>,
    repo_id: &str,
    branch: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<ReviewRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM reviews WHERE repo_id = $1 AND branch = $2 AND id > $3 ORDER BY id LIMIT $4"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(branch).bind(after).bind(limit).fetch_all(c).await?))
}
