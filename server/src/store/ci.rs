//! CI connections, and the builds and jobs the service's webhooks report.

use super::{H, Result, on, qualified};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ConnectionRow {
    pub id: String,
    pub monorepo_id: String,
    pub service: String,
    pub organization: String,
    pub webhook_token: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, sqlx::FromRow)]
pub struct BuildRow {
    pub connection_id: String,
    pub id: String,
    pub pipeline: String,
    pub number: i64,
    pub state: String,
    pub service_state: String,
    pub branch: Option<String>,
    pub commit_sha: Option<String>,
    pub message: Option<String>,
    pub web_url: Option<String>,
    pub repo_id: Option<String>,
    pub meta_data: String,
    pub rebuild_of: Option<String>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub signed_at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, sqlx::FromRow)]
pub struct JobRow {
    pub connection_id: String,
    pub build_id: String,
    pub id: String,
    pub name: Option<String>,
    pub state: String,
    pub service_state: String,
    pub exit_status: Option<i64>,
    pub web_url: Option<String>,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub retried_by: Option<String>,
}

/// The last copy of a pipeline as the service described it.
#[derive(Debug, Clone, Default, PartialEq, sqlx::FromRow)]
pub struct PipelineRow {
    pub connection_id: String,
    pub slug: String,
    pub name: Option<String>,
    pub web_url: Option<String>,
    pub repository: Option<String>,
    pub default_branch: Option<String>,
    pub configuration: Option<String>,
    /// When a read was last tried.
    pub read_at: i64,
    /// Why that read failed.
    pub error: Option<String>,
}

const CONNECTION: &str = "id, monorepo_id, service, organization, webhook_token, created_at";
const BUILD: &str = "connection_id, id, pipeline, number, state, service_state, branch, commit_sha, message, web_url, repo_id, meta_data, rebuild_of, created_at, started_at, finished_at, signed_at";
const JOB: &str = "connection_id, build_id, id, name, state, service_state, exit_status, web_url, started_at, finished_at, retried_by";
const PIPELINE: &str =
    "connection_id, slug, name, web_url, repository, default_branch, configuration, read_at, error";

pub async fn insert_connection(h: H<'_>, c: &ConnectionRow) -> Result<()> {
    let sql = format!("INSERT INTO ci_connections ({CONNECTION}) VALUES ($1, $2, $3, $4, $5, $6)");
    on!(h, db => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&c.id).bind(&c.monorepo_id).bind(&c.service).bind(&c.organization)
        .bind(&c.webhook_token).bind(c.created_at).execute(db).await?.rows_affected());
    Ok(())
}

/// The monorepo's connections, oldest first.
pub async fn connections(h: H<'_>, monorepo_id: &str) -> Result<Vec<ConnectionRow>> {
    let sql = format!(
        "SELECT {CONNECTION} FROM ci_connections WHERE monorepo_id = $1 ORDER BY created_at, id"
    );
    Ok(
        on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).fetch_all(db).await?),
    )
}

/// A connection by its id alone (the webhook receiver's lookup).
pub async fn connection(h: H<'_>, id: &str) -> Result<Option<ConnectionRow>> {
    let sql = format!("SELECT {CONNECTION} FROM ci_connections WHERE id = $1");
    Ok(on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(db).await?))
}

/// Deletes a connection with its builds and jobs (commit statuses stay).
pub async fn delete_connection(h: H<'_>, id: &str) -> Result<()> {
    on!(h, db => sqlx::query("DELETE FROM ci_connections WHERE id = $1").bind(id).execute(db).await?.rows_affected());
    Ok(())
}

pub async fn build(h: H<'_>, connection_id: &str, id: &str) -> Result<Option<BuildRow>> {
    let sql = format!("SELECT {BUILD} FROM ci_builds WHERE connection_id = $1 AND id = $2");
    Ok(
        on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(connection_id).bind(id).fetch_optional(db).await?),
    )
}

/// A build of any of the monorepo's connections.
pub async fn build_in(h: H<'_>, monorepo_id: &str, id: &str) -> Result<Option<BuildRow>> {
    let columns = qualified(BUILD, "b");
    let sql = format!(
        "SELECT {columns} FROM ci_builds b JOIN ci_connections c ON c.id = b.connection_id
         WHERE c.monorepo_id = $1 AND b.id = $2 ORDER BY b.created_at DESC LIMIT 1"
    );
    Ok(
        on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).bind(id).fetch_optional(db).await?),
    )
}

/// Writes a build as it now stands.
pub async fn put_build(h: H<'_>, b: &BuildRow) -> Result<()> {
    let sql = format!(
        "INSERT INTO ci_builds ({BUILD}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
         ON CONFLICT (connection_id, id) DO UPDATE SET pipeline = excluded.pipeline, number = excluded.number,
           state = excluded.state, service_state = excluded.service_state, branch = excluded.branch,
           commit_sha = excluded.commit_sha, message = excluded.message, web_url = excluded.web_url,
           repo_id = excluded.repo_id, meta_data = excluded.meta_data, rebuild_of = excluded.rebuild_of,
           started_at = excluded.started_at, finished_at = excluded.finished_at, signed_at = excluded.signed_at"
    );
    on!(h, db => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&b.connection_id).bind(&b.id).bind(&b.pipeline).bind(b.number).bind(&b.state)
        .bind(&b.service_state).bind(&b.branch).bind(&b.commit_sha).bind(&b.message).bind(&b.web_url)
        .bind(&b.repo_id).bind(&b.meta_data).bind(&b.rebuild_of).bind(b.created_at).bind(b.started_at)
        .bind(b.finished_at).bind(b.signed_at).execute(db).await?.rows_affected());
    Ok(())
}

/// The monorepo's builds, newest first, after the `(created_at, id)` of the previous
/// page's last; optionally of one pipeline, or one build by number.
pub async fn builds(
    h: H<'_>,
    monorepo_id: &str,
    pipeline: Option<&str>,
    number: Option<i64>,
    after: Option<(i64, &str)>,
    limit: i64,
) -> Result<Vec<BuildRow>> {
    let (at, id) = after.unwrap_or((i64::MAX, ""));
    let columns = qualified(BUILD, "b");
    let sql = format!(
        "SELECT {columns} FROM ci_builds b JOIN ci_connections c ON c.id = b.connection_id
         WHERE c.monorepo_id = $1 AND ($2 IS NULL OR b.pipeline = $2) AND ($3 IS NULL OR b.number = $3)
           AND (b.created_at < $4 OR (b.created_at = $4 AND b.id < $5))
         ORDER BY b.created_at DESC, b.id DESC LIMIT $6"
    );
    Ok(on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(monorepo_id).bind(pipeline).bind(number).bind(at).bind(id).bind(limit)
        .fetch_all(db).await?))
}

/// The pipelines of the monorepo's builds: (connection, slug).
pub async fn pipelines(h: H<'_>, monorepo_id: &str) -> Result<Vec<(String, String)>> {
    Ok(on!(h, db => sqlx::query_as(
        "SELECT DISTINCT b.connection_id, b.pipeline FROM ci_builds b
         JOIN ci_connections c ON c.id = b.connection_id WHERE c.monorepo_id = $1
         ORDER BY b.pipeline, b.connection_id",
    )
    .bind(monorepo_id).fetch_all(db).await?))
}

pub async fn jobs(h: H<'_>, connection_id: &str, build_id: &str) -> Result<Vec<JobRow>> {
    let sql = format!(
        "SELECT {JOB} FROM ci_jobs WHERE connection_id = $1 AND build_id = $2 ORDER BY started_at, id"
    );
    Ok(
        on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(connection_id).bind(build_id).fetch_all(db).await?),
    )
}

pub async fn job(h: H<'_>, connection_id: &str, id: &str) -> Result<Option<JobRow>> {
    let sql = format!("SELECT {JOB} FROM ci_jobs WHERE connection_id = $1 AND id = $2");
    Ok(
        on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(connection_id).bind(id).fetch_optional(db).await?),
    )
}

/// Writes a job as it now stands.
pub async fn put_job(h: H<'_>, j: &JobRow) -> Result<()> {
    let sql = format!(
        "INSERT INTO ci_jobs ({JOB}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (connection_id, id) DO UPDATE SET name = excluded.name, state = excluded.state,
           service_state = excluded.service_state, exit_status = excluded.exit_status,
           web_url = excluded.web_url, started_at = excluded.started_at,
           finished_at = excluded.finished_at, retried_by = excluded.retried_by"
    );
    on!(h, db => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&j.connection_id).bind(&j.build_id).bind(&j.id).bind(&j.name).bind(&j.state)
        .bind(&j.service_state).bind(j.exit_status).bind(&j.web_url).bind(j.started_at)
        .bind(j.finished_at).bind(&j.retried_by).execute(db).await?.rows_affected());
    Ok(())
}

/// Takes the build's lock for the transaction (PostgreSQL), so one build's webhooks apply
/// one at a time in signed order while other builds' apply at once; SQLite has one writer.
pub async fn lock_build(h: H<'_>, connection_id: &str, build_id: &str) -> Result<()> {
    if let super::Db::Postgres(c) = h.db {
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind(format!("ci_build:{connection_id}/{build_id}"))
            .execute(c)
            .await?;
    }
    Ok(())
}

/// The newest build of `branch` in the repo (getRepoSummary's build on main).
pub async fn newest_on_branch(h: H<'_>, repo_id: &str, branch: &str) -> Result<Option<BuildRow>> {
    let sql = format!(
        "SELECT {BUILD} FROM ci_builds WHERE repo_id = $1 AND branch = $2 ORDER BY created_at DESC, id DESC LIMIT 1"
    );
    Ok(
        on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).bind(branch).fetch_optional(db).await?),
    )
}

/// The last copy of a pipeline, if it was ever read.
pub async fn pipeline(h: H<'_>, connection_id: &str, slug: &str) -> Result<Option<PipelineRow>> {
    let sql = format!("SELECT {PIPELINE} FROM ci_pipelines WHERE connection_id = $1 AND slug = $2");
    Ok(
        on!(h, db => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(connection_id).bind(slug).fetch_optional(db).await?),
    )
}

/// Writes a pipeline's copy as it now stands.
pub async fn put_pipeline(h: H<'_>, p: &PipelineRow) -> Result<()> {
    let sql = format!(
        "INSERT INTO ci_pipelines ({PIPELINE}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (connection_id, slug) DO UPDATE SET name = excluded.name,
           web_url = excluded.web_url, repository = excluded.repository,
           default_branch = excluded.default_branch, configuration = excluded.configuration,
           read_at = excluded.read_at, error = excluded.error"
    );
    on!(h, db => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&p.connection_id).bind(&p.slug).bind(&p.name).bind(&p.web_url).bind(&p.repository)
        .bind(&p.default_branch).bind(&p.configuration).bind(p.read_at).bind(&p.error)
        .execute(db).await?.rows_affected());
    Ok(())
}
