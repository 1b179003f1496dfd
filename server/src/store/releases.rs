//! Releases and their files, per repo. A draft sorts by creation, a published release by
//! its publish time (`sort_at`).

use super::{H, Result, on, placeholders};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ReleaseRow {
    pub id: i64,
    pub repo_id: String,
    pub tag: String,
    pub title: Option<String>,
    pub notes: String,
    pub sha: String,
    pub author: String,
    pub draft: bool,
    pub created_at: i64,
    pub published_at: Option<i64>,
    pub sort_at: i64,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct FileRow {
    pub release_id: i64,
    pub name: String,
    pub size: i64,
    pub sha256: String,
    /// The file's bytes: `<data dir>/releases/<blob>`.
    pub blob: String,
    pub uploaded_at: i64,
}

const COLUMNS: &str =
    "id, repo_id, tag, title, notes, sha, author, draft, created_at, published_at, sort_at";
const FILE_COLUMNS: &str = "release_id, name, size, sha256, blob, uploaded_at";

/// Makes one and answers it with its id; a second release of one tag is a unique
/// violation.
pub async fn insert(h: H<'_>, row: &ReleaseRow) -> Result<ReleaseRow> {
    let sql = format!(
        "INSERT INTO releases (repo_id, tag, title, notes, sha, author, draft, created_at, published_at, sort_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING {COLUMNS}"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(&row.repo_id).bind(&row.tag).bind(&row.title).bind(&row.notes).bind(&row.sha)
        .bind(&row.author).bind(row.draft).bind(row.created_at).bind(row.published_at).bind(row.sort_at)
        .fetch_one(c).await?))
}

pub async fn by_tag(h: H<'_>, repo_id: &str, tag: &str) -> Result<Option<ReleaseRow>> {
    let sql = format!("SELECT {COLUMNS} FROM releases WHERE repo_id = $1 AND tag = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).bind(tag).fetch_optional(c).await?),
    )
}

/// The newest published release, optionally only among those published before `before`.
pub async fn latest(h: H<'_>, repo_id: &str, before: Option<i64>) -> Result<Option<ReleaseRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM releases WHERE repo_id = $1 AND NOT draft AND published_at < $2
         ORDER BY published_at DESC, id DESC LIMIT 1"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(before.unwrap_or(i64::MAX)).fetch_optional(c).await?))
}

/// The newest published release at the commit `sha`.
pub async fn latest_at(h: H<'_>, repo_id: &str, sha: &str) -> Result<Option<ReleaseRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM releases WHERE repo_id = $1 AND NOT draft AND sha = $2
         ORDER BY published_at DESC, id DESC LIMIT 1"
    );
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).bind(sha).fetch_optional(c).await?),
    )
}

/// One page, newest first, after the `(sort_at, id)` of the previous page's last.
pub async fn page(
    h: H<'_>,
    repo_id: &str,
    after: Option<(i64, i64)>,
    limit: i64,
) -> Result<Vec<ReleaseRow>> {
    let (at, id) = after.unwrap_or((i64::MAX, i64::MAX));
    let sql = format!(
        "SELECT {COLUMNS} FROM releases WHERE repo_id = $1 AND (sort_at < $2 OR (sort_at = $2 AND id < $3))
         ORDER BY sort_at DESC, id DESC LIMIT $4"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(at).bind(id).bind(limit).fetch_all(c).await?))
}

/// The tags of the repo's releases among `names`, with whether each is a draft.
pub async fn of_tags(h: H<'_>, repo_id: &str, names: &[String]) -> Result<Vec<ReleaseRow>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {COLUMNS} FROM releases WHERE repo_id = $1 AND tag IN ({})",
        placeholders(2, names.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id);
        for n in names {
            q = q.bind(n);
        }
        q.fetch_all(c).await?
    }))
}

/// Sets the title and notes.
pub async fn update(h: H<'_>, id: i64, title: Option<&str>, notes: &str) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE releases SET title = $2, notes = $3 WHERE id = $1")
        .bind(id).bind(title).bind(notes).execute(c).await?.rows_affected());
    Ok(())
}

/// Marks a draft published at `at`.
pub async fn publish(h: H<'_>, id: i64, at: i64) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE releases SET draft = FALSE, published_at = $2, sort_at = $2 WHERE id = $1")
        .bind(id).bind(at).execute(c).await?.rows_affected());
    Ok(())
}

/// Deletes a release with its file rows (the blobs are the caller's to remove).
pub async fn delete(h: H<'_>, id: i64) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM releases WHERE id = $1").bind(id).execute(c).await?.rows_affected());
    Ok(())
}

/// Locks the release row (PostgreSQL), so file counts and replacements are decided one
/// at a time; SQLite has one writer.
pub async fn lock(h: H<'_>, id: i64) -> Result<bool> {
    Ok(
        on!(h, c => sqlx::query("UPDATE releases SET id = id WHERE id = $1")
        .bind(id).execute(c).await?.rows_affected())
            == 1,
    )
}

/// The files of each of `ids`, by name.
pub async fn files(h: H<'_>, ids: &[i64]) -> Result<Vec<FileRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {FILE_COLUMNS} FROM release_files WHERE release_id IN ({}) ORDER BY name",
        placeholders(1, ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

pub async fn file(h: H<'_>, release_id: i64, name: &str) -> Result<Option<FileRow>> {
    let sql =
        format!("SELECT {FILE_COLUMNS} FROM release_files WHERE release_id = $1 AND name = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(release_id).bind(name).fetch_optional(c).await?),
    )
}

/// Adds a file or points an existing name at new bytes.
pub async fn put_file(h: H<'_>, row: &FileRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO release_files (release_id, name, size, sha256, blob, uploaded_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (release_id, name) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256,
           blob = excluded.blob, uploaded_at = excluded.uploaded_at",
    )
    .bind(row.release_id).bind(&row.name).bind(row.size).bind(&row.sha256).bind(&row.blob).bind(row.uploaded_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

pub async fn delete_file(h: H<'_>, release_id: i64, name: &str) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM release_files WHERE release_id = $1 AND name = $2")
        .bind(release_id).bind(name).execute(c).await?.rows_affected());
    Ok(())
}

/// Every blob a file row of `repo_id`'s releases names (the start-up sweep of bytes an
/// upload cut off by a crash left keeps these).
pub async fn blobs_of(h: H<'_>, repo_id: &str) -> Result<Vec<String>> {
    Ok(on!(h, c => sqlx::query_scalar(
        "SELECT f.blob FROM release_files f JOIN releases r ON r.id = f.release_id WHERE r.repo_id = $1",
    )
    .bind(repo_id).fetch_all(c).await?))
}
