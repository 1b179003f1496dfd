//! A repo's tags as last recorded from git (`git::record`), newest first.

use super::{H, Result, on, placeholders};

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct TagRow {
    pub name: String,
    /// The commit it names (an annotated tag peeled).
    pub sha: String,
    pub created_at: i64,
}

/// Every tag of the repo.
pub async fn all(h: H<'_>, repo_id: &str) -> Result<Vec<TagRow>> {
    let found = all_in(h, &[repo_id]).await?;
    Ok(found.into_iter().map(|(_, tag)| tag).collect())
}

/// A tag of [`all_in`] with its repo.
#[derive(sqlx::FromRow)]
struct RepoTag {
    repo_id: String,
    #[sqlx(flatten)]
    tag: TagRow,
}

/// Every tag of several repos (a change's), as (repo id, tag).
pub async fn all_in(h: H<'_>, repo_ids: &[&str]) -> Result<Vec<(String, TagRow)>> {
    if repo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT repo_id, name, sha, created_at FROM tags WHERE repo_id IN ({})",
        placeholders(1, repo_ids.len())
    );
    let found: Vec<RepoTag> = super::rows_for(h, sql, repo_ids).await?;
    Ok(found.into_iter().map(|t| (t.repo_id, t.tag)).collect())
}

/// One page, newest first, after the `(created_at, name)` of the previous page's last.
pub async fn page(
    h: H<'_>,
    repo_id: &str,
    after: Option<(i64, &str)>,
    limit: i64,
) -> Result<Vec<TagRow>> {
    let (at, name) = after.unwrap_or((i64::MAX, ""));
    Ok(on!(h, c => sqlx::query_as(
        "SELECT name, sha, created_at FROM tags WHERE repo_id = $1
           AND (created_at < $2 OR (created_at = $2 AND name < $3))
         ORDER BY created_at DESC, name DESC LIMIT $4",
    )
    .bind(repo_id).bind(at).bind(name).bind(limit).fetch_all(c).await?))
}

pub async fn get(h: H<'_>, repo_id: &str, name: &str) -> Result<Option<TagRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT name, sha, created_at FROM tags WHERE repo_id = $1 AND name = $2",
    )
    .bind(repo_id).bind(name).fetch_optional(c).await?))
}

/// Records a new or moved tag.
pub async fn put(h: H<'_>, repo_id: &str, row: &TagRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO tags (repo_id, name, sha, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (repo_id, name) DO UPDATE SET sha = excluded.sha, created_at = excluded.created_at",
    )
    .bind(repo_id).bind(&row.name).bind(&row.sha).bind(row.created_at).execute(c).await?.rows_affected());
    Ok(())
}

pub async fn remove(h: H<'_>, repo_id: &str, name: &str) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM tags WHERE repo_id = $1 AND name = $2")
        .bind(repo_id).bind(name).execute(c).await?.rows_affected());
    Ok(())
}
