//! One-time sign-in links: a person an operator or admin made sets their password
//! through one; an invitee with no account makes it through one. Kept only as the
//! SHA-256 of their token.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SignInLink {
    pub token_hash: Vec<u8>,
    /// The invited or the account's email (lowercase).
    pub email: String,
    /// The account the link signs in to; none for an invite's link (it makes one).
    pub user_id: Option<String>,
    /// Who made it (the admin or the inviter); none when the operator did.
    pub invited_by: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
    pub used_at: Option<i64>,
}

const COLUMNS: &str = "token_hash, email, user_id, invited_by, created_at, expires_at, used_at";

pub async fn insert(h: H<'_>, row: &SignInLink) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO sign_in_links (token_hash, email, user_id, invited_by, created_at, expires_at, used_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&row.token_hash).bind(&row.email).bind(&row.user_id).bind(&row.invited_by)
    .bind(row.created_at).bind(row.expires_at).bind(row.used_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

/// The link with this token hash, used or not.
pub async fn by_hash(h: H<'_>, token_hash: &[u8]) -> Result<Option<SignInLink>> {
    let sql = format!("SELECT {COLUMNS} FROM sign_in_links WHERE token_hash = $1");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(token_hash)
        .fetch_optional(c)
        .await?))
}

/// Marks the link used at `now` unless it was used or expired already; false then (the
/// one of two racing uses that lost).
pub async fn use_up(h: H<'_>, token_hash: &[u8], now: i64) -> Result<bool> {
    let done = on!(h, c => sqlx::query(
        "UPDATE sign_in_links SET used_at = $2
         WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2",
    )
    .bind(token_hash).bind(now).execute(c).await?.rows_affected());
    Ok(done == 1)
}
