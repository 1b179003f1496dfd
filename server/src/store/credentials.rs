//! Credentials: opaque tokens stored only as their SHA-256.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CredentialRow {
    pub id: String,
    pub user_id: String,
    pub name: String,
    pub kind: String,
    /// Space-separated permission names.
    pub permissions: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    pub expires_at: Option<i64>,
    /// What an agent session's credential is confined to (`crate::agents::scope`).
    #[sqlx(default)]
    pub scope: Option<String>,
}

/// What authenticating a request needs, in one indexed read.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenMatch {
    pub id: String,
    pub user_id: String,
    pub login: String,
    pub name: String,
    pub kind: String,
    pub permissions: String,
    pub token_hash: Vec<u8>,
    pub last_used_at: Option<i64>,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub scope: Option<String>,
}

pub async fn insert(h: H<'_>, row: &CredentialRow, token_hash: &[u8]) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO credentials (id, user_id, name, kind, token_hash, created_at, last_used_at, expires_at, permissions, scope)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&row.id)
    .bind(&row.user_id)
    .bind(&row.name)
    .bind(&row.kind)
    .bind(token_hash)
    .bind(row.created_at)
    .bind(row.last_used_at)
    .bind(row.expires_at)
    .bind(&row.permissions)
    .bind(&row.scope)
    .execute(c)
    .await?
    .rows_affected());
    Ok(())
}

pub async fn by_token_hash(h: H<'_>, token_hash: &[u8]) -> Result<Option<TokenMatch>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT credentials.id, credentials.user_id, users.login, credentials.name, credentials.kind,
                credentials.permissions, credentials.token_hash, credentials.last_used_at, credentials.created_at,
                credentials.expires_at, credentials.scope
         FROM credentials JOIN users ON users.id = credentials.user_id
         WHERE credentials.token_hash = $1 AND users.disabled_at IS NULL",
    )
    .bind(token_hash)
    .fetch_optional(c)
    .await?))
}

pub async fn touch(h: H<'_>, id: &str, now: i64) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE credentials SET last_used_at = $2 WHERE id = $1")
        .bind(id).bind(now).execute(c).await?.rows_affected());
    Ok(())
}

/// Those of `ids` that are neither revoked nor expired at `now`.
pub async fn live_ids(h: H<'_>, ids: &[String], now: i64) -> Result<Vec<String>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT id FROM credentials WHERE (expires_at IS NULL OR expires_at > $1) AND id IN ({})",
        super::placeholders(2, ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.as_str())).bind(now);
        for id in ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

/// The user's credentials, newest first (browser sessions included).
pub async fn list(h: H<'_>, user_id: &str) -> Result<Vec<CredentialRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT id, user_id, name, kind, permissions, created_at, last_used_at, expires_at
         FROM credentials WHERE user_id = $1 ORDER BY created_at DESC, id",
    )
    .bind(user_id)
    .fetch_all(c)
    .await?))
}

/// Revokes one of the user's credentials; false when they have none by that id. On
/// PostgreSQL the revocation is announced (at commit) to every server process's cache.
pub async fn delete(mut h: H<'_>, user_id: &str, id: &str) -> Result<bool> {
    let done = on!(h.reborrow(), c => sqlx::query("DELETE FROM credentials WHERE id = $1 AND user_id = $2")
        .bind(id).bind(user_id).execute(c).await?.rows_affected());
    if let (super::Db::Postgres(c), true) = (h.db, done > 0) {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(crate::credential_cache::CHANNEL)
            .bind(id)
            .execute(c)
            .await?;
    }
    Ok(done > 0)
}

/// Revokes every credential of the user (each announced as [`delete`] does); answers
/// their ids, for the caller to evict from this process's cache.
pub async fn delete_all(mut h: H<'_>, user_id: &str) -> Result<Vec<String>> {
    let ids: Vec<String> = on!(h.reborrow(), c => sqlx::query_scalar(
        "SELECT id FROM credentials WHERE user_id = $1",
    )
    .bind(user_id)
    .fetch_all(c)
    .await?);
    for id in &ids {
        delete(h.reborrow(), user_id, id).await?;
    }
    Ok(ids)
}
