//! Commit statuses: the latest per (commit, context).

use super::{H, Result, on};

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StatusRow {
    pub repo_id: String,
    pub sha: String,
    pub context: String,
    pub state: String,
    pub target_url: Option<String>,
    pub description: Option<String>,
    pub creator: String,
    pub app: Option<String>,
    pub created_at: i64,
}

const COLUMNS: &str =
    "repo_id, sha, context, state, target_url, description, creator, app, created_at";

/// Replaces the context's status on the commit; answers the state it had before.
pub async fn put(h: H<'_>, s: &StatusRow) -> Result<Option<String>> {
    Ok(on!(h, c => {
        let before: Option<String> = sqlx::query_scalar(
            "SELECT state FROM statuses WHERE repo_id = $1 AND sha = $2 AND context = $3",
        )
        .bind(&s.repo_id).bind(&s.sha).bind(&s.context).fetch_optional(&mut *c).await?;
        sqlx::query(
            "INSERT INTO statuses (repo_id, sha, context, state, target_url, description, creator, app, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (repo_id, sha, context) DO UPDATE SET state = excluded.state,
               target_url = excluded.target_url, description = excluded.description,
               creator = excluded.creator, app = excluded.app, created_at = excluded.created_at",
        )
        .bind(&s.repo_id).bind(&s.sha).bind(&s.context).bind(&s.state).bind(&s.target_url)
        .bind(&s.description).bind(&s.creator).bind(&s.app).bind(s.created_at)
        .execute(&mut *c).await?;
        before
    }))
}

/// How many contexts the commit has.
pub async fn count(h: H<'_>, repo_id: &str, sha: &str) -> Result<i64> {
    Ok(
        on!(h, c => sqlx::query_scalar("SELECT COUNT(*) FROM statuses WHERE repo_id = $1 AND sha = $2")
        .bind(repo_id).bind(sha).fetch_one(c).await?),
    )
}

/// The statuses on any of `shas` in any of `repo_ids` (a superset of the pairs a
/// caller wants, which it filters: one query for many repos' heads).
pub async fn of_any(h: H<'_>, repo_ids: &[String], shas: &[String]) -> Result<Vec<StatusRow>> {
    if repo_ids.is_empty() || shas.is_empty() {
        return Ok(Vec::new());
    }
    let repos = super::placeholders(1, repo_ids.len());
    let list = super::placeholders(1 + repo_ids.len(), shas.len());
    let sql = format!(
        "SELECT {COLUMNS} FROM statuses WHERE repo_id IN ({repos}) AND sha IN ({list})
         ORDER BY repo_id, sha, context"
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for v in repo_ids.iter().chain(shas) {
            q = q.bind(v);
        }
        q.fetch_all(c).await?
    }))
}

/// The statuses of several commits, by commit then context.
pub async fn of(h: H<'_>, repo_id: &str, shas: &[String]) -> Result<Vec<StatusRow>> {
    if shas.is_empty() {
        return Ok(Vec::new());
    }
    let list = super::placeholders(2, shas.len());
    let sql = format!(
        "SELECT {COLUMNS} FROM statuses WHERE repo_id = $1 AND sha IN ({list}) ORDER BY sha, context"
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id);
        for s in shas {
            q = q.bind(s);
        }
        q.fetch_all(c).await?
    }))
}
