//! Artifacts on a branch, their versions and each version's files (bytes on disk by
//! SHA-256, see `crate::artifacts::blobs`).

use super::{H, Result, on, qualified};

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ArtifactRow {
    pub id: String,
    pub repo_id: String,
    pub branch: String,
    pub name: String,
    pub kind: String,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct VersionRow {
    pub artifact_id: String,
    pub n: i64,
    pub created_at: i64,
    pub created_by: String,
    pub sha256: String,
    pub size: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct FileRow {
    pub artifact_id: String,
    pub n: i64,
    /// 0 is the main file.
    pub position: i64,
    pub path: String,
    pub sha256: String,
    pub size: i64,
    pub content_type: String,
}

const ARTIFACT: &str = "id, repo_id, branch, name, kind, created_at, updated_at";
const VERSION: &str = "artifact_id, n, created_at, created_by, sha256, size";
const FILE: &str = "artifact_id, n, position, path, sha256, size, content_type";

pub async fn insert(h: H<'_>, a: &ArtifactRow) -> Result<()> {
    let sql = format!("INSERT INTO artifacts ({ARTIFACT}) VALUES ($1, $2, $3, $4, $5, $6, $7)");
    on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&a.id).bind(&a.repo_id).bind(&a.branch).bind(&a.name).bind(&a.kind)
        .bind(a.created_at).bind(a.updated_at).execute(c).await?.rows_affected());
    Ok(())
}

/// Marks a new version's time (the list's order).
pub async fn touch(h: H<'_>, id: &str, at: i64) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE artifacts SET updated_at = $2 WHERE id = $1")
        .bind(id).bind(at).execute(c).await?.rows_affected());
    Ok(())
}

pub async fn by_name(
    h: H<'_>,
    repo_id: &str,
    branch: &str,
    name: &str,
) -> Result<Option<ArtifactRow>> {
    let sql = format!(
        "SELECT {ARTIFACT} FROM artifacts WHERE repo_id = $1 AND branch = $2 AND name = $3"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(branch).bind(name).fetch_optional(c).await?))
}

/// The branch's artifacts, newest first.
pub async fn on_branch(h: H<'_>, repo_id: &str, branch: &str) -> Result<Vec<ArtifactRow>> {
    let sql = format!(
        "SELECT {ARTIFACT} FROM artifacts WHERE repo_id = $1 AND branch = $2
         ORDER BY updated_at DESC, id DESC"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(branch).fetch_all(c).await?))
}

pub async fn count_on_branch(h: H<'_>, repo_id: &str, branch: &str) -> Result<i64> {
    Ok(on!(h, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM artifacts WHERE repo_id = $1 AND branch = $2",
    )
    .bind(repo_id).bind(branch).fetch_one(c).await?))
}

pub async fn delete(h: H<'_>, id: &str) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM artifacts WHERE id = $1")
        .bind(id).execute(c).await?.rows_affected());
    Ok(())
}

pub async fn insert_version(h: H<'_>, v: &VersionRow) -> Result<()> {
    let sql = format!("INSERT INTO artifact_versions ({VERSION}) VALUES ($1, $2, $3, $4, $5, $6)");
    on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&v.artifact_id).bind(v.n).bind(v.created_at).bind(&v.created_by).bind(&v.sha256)
        .bind(v.size).execute(c).await?.rows_affected());
    Ok(())
}

pub async fn insert_file(h: H<'_>, f: &FileRow) -> Result<()> {
    let sql = format!("INSERT INTO artifact_files ({FILE}) VALUES ($1, $2, $3, $4, $5, $6, $7)");
    on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&f.artifact_id).bind(f.n).bind(f.position).bind(&f.path).bind(&f.sha256)
        .bind(f.size).bind(&f.content_type).execute(c).await?.rows_affected());
    Ok(())
}

/// The newest version's number, 0 before the first.
pub async fn newest_n(h: H<'_>, artifact_id: &str) -> Result<i64> {
    Ok(on!(h, c => sqlx::query_scalar(
        "SELECT COALESCE(MAX(n), 0) FROM artifact_versions WHERE artifact_id = $1",
    )
    .bind(artifact_id).fetch_one(c).await?))
}

/// Every version of an artifact, oldest first, and their files (main file first).
pub async fn versions(mut h: H<'_>, artifact_id: &str) -> Result<(Vec<VersionRow>, Vec<FileRow>)> {
    let sql = format!("SELECT {VERSION} FROM artifact_versions WHERE artifact_id = $1 ORDER BY n");
    let versions = on!(h.reborrow(), c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(artifact_id).fetch_all(c).await?);
    let sql =
        format!("SELECT {FILE} FROM artifact_files WHERE artifact_id = $1 ORDER BY n, position");
    let files = on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(artifact_id).fetch_all(c).await?);
    Ok((versions, files))
}

/// The newest version of every artifact on the branch, and their files.
pub async fn newest_on_branch(
    mut h: H<'_>,
    repo_id: &str,
    branch: &str,
) -> Result<(Vec<VersionRow>, Vec<FileRow>)> {
    const NEWEST: &str = "SELECT a.id, MAX(v.n) AS n FROM artifacts a
        JOIN artifact_versions v ON v.artifact_id = a.id
        WHERE a.repo_id = $1 AND a.branch = $2 GROUP BY a.id";
    let sql = format!(
        "SELECT {} FROM artifact_versions v JOIN ({NEWEST}) m ON m.id = v.artifact_id AND m.n = v.n",
        qualified(VERSION, "v")
    );
    let versions = on!(h.reborrow(), c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(branch).fetch_all(c).await?);
    let sql = format!(
        "SELECT {} FROM artifact_files f JOIN ({NEWEST}) m ON m.id = f.artifact_id AND m.n = f.n
         ORDER BY f.artifact_id, f.position",
        qualified(FILE, "f")
    );
    let files = on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(branch).fetch_all(c).await?);
    Ok((versions, files))
}

/// One file of one version.
pub async fn file(h: H<'_>, artifact_id: &str, n: i64, path: &str) -> Result<Option<FileRow>> {
    let sql = format!(
        "SELECT {FILE} FROM artifact_files WHERE artifact_id = $1 AND n = $2 AND path = $3"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(artifact_id).bind(n).bind(path).fetch_optional(c).await?))
}

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct CommentRow {
    pub id: String,
    pub artifact_id: String,
    /// The root's id (its own for a root).
    pub thread: String,
    pub version: i64,
    /// The anchor as JSON (roots).
    pub anchor: Option<String>,
    pub body: Option<String>,
    pub author_id: String,
    pub author: String,
    pub mentions: String,
    /// `open` or `resolved` (roots).
    pub state: Option<String>,
    pub reply_count: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub body_version: i64,
    /// Left out (None) by [`comments`]: only a retry of the first request reads it.
    #[sqlx(default)]
    pub idempotency_key: Option<String>,
    /// The first request's body, as [`idempotency_key`](Self::idempotency_key).
    #[sqlx(default)]
    pub request: Option<String>,
}

/// What a comment's answer shows, and who wrote it.
const COMMENT_SHOWN: &str = "id, artifact_id, thread, version, anchor, body, author_id, author, mentions, state, reply_count, created_at, updated_at, body_version";
/// Every column.
const COMMENT: &str = "id, artifact_id, thread, version, anchor, body, author_id, author, mentions, state, reply_count, created_at, updated_at, body_version, idempotency_key, request";

pub async fn insert_comment(h: H<'_>, c: &CommentRow) -> Result<()> {
    let sql = format!(
        "INSERT INTO artifact_comments ({COMMENT})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
    );
    on!(h, db => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&c.id).bind(&c.artifact_id).bind(&c.thread).bind(c.version).bind(&c.anchor)
        .bind(&c.body).bind(&c.author_id).bind(&c.author).bind(&c.mentions).bind(&c.state)
        .bind(c.reply_count).bind(c.created_at).bind(c.updated_at).bind(c.body_version)
        .bind(&c.idempotency_key).bind(&c.request).execute(db).await?.rows_affected());
    Ok(())
}

/// Writes a comment's body, state, reply count and times as they now stand.
pub async fn put_comment(h: H<'_>, c: &CommentRow) -> Result<()> {
    on!(h, db => sqlx::query(
        "UPDATE artifact_comments SET body = $2, state = $3, reply_count = $4, updated_at = $5,
           body_version = $6, mentions = $7 WHERE id = $1",
    )
    .bind(&c.id).bind(&c.body).bind(&c.state).bind(c.reply_count).bind(c.updated_at)
    .bind(c.body_version).bind(&c.mentions).execute(db).await?.rows_affected());
    Ok(())
}

pub async fn delete_comment(h: H<'_>, id: &str) -> Result<()> {
    on!(h, db => sqlx::query("DELETE FROM artifact_comments WHERE id = $1")
        .bind(id).execute(db).await?.rows_affected());
    Ok(())
}

pub async fn comment(h: H<'_>, id: &str) -> Result<Option<CommentRow>> {
    let sql = format!("SELECT {COMMENT} FROM artifact_comments WHERE id = $1");
    Ok(on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(db).await?))
}

/// The comment a person made with an `Idempotency-Key`.
pub async fn comment_by_key(h: H<'_>, author_id: &str, key: &str) -> Result<Option<CommentRow>> {
    let sql = format!(
        "SELECT {COMMENT} FROM artifact_comments WHERE author_id = $1 AND idempotency_key = $2"
    );
    Ok(on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(author_id).bind(key).fetch_optional(db).await?))
}

/// Threads the artifact has (roots).
pub async fn thread_count(h: H<'_>, artifact_id: &str) -> Result<i64> {
    Ok(on!(h, db => sqlx::query_scalar(
        "SELECT COUNT(*) FROM artifact_comments WHERE artifact_id = $1 AND thread = id",
    )
    .bind(artifact_id).fetch_one(db).await?))
}

/// Every comment of one artifact, or of every artifact on a branch, roots and replies
/// oldest first, as answers show them (a long list: only the columns it needs).
pub async fn comments(
    h: H<'_>,
    repo_id: &str,
    branch: &str,
    artifact_id: Option<&str>,
) -> Result<Vec<CommentRow>> {
    let columns = qualified(COMMENT_SHOWN, "c");
    let sql = format!(
        "SELECT {columns} FROM artifact_comments c JOIN artifacts a ON a.id = c.artifact_id
         WHERE a.repo_id = $1 AND a.branch = $2 AND ($3 IS NULL OR a.id = $3)
         ORDER BY c.created_at, c.id"
    );
    Ok(on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(branch).bind(artifact_id).fetch_all(db).await?))
}

pub async fn by_id(h: H<'_>, id: &str) -> Result<Option<ArtifactRow>> {
    let sql = format!("SELECT {ARTIFACT} FROM artifacts WHERE id = $1");
    Ok(on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(db).await?))
}
