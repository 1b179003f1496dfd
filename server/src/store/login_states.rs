//! Pending browser sign-ins with an OpenID Connect provider: state, nonce, PKCE verifier
//! and the hash of the browser's sign-in cookie, kept server-side so any server process
//! can finish the callback.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LoginState {
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
    pub return_to: String,
    pub expires_at: i64,
    /// Hex SHA-256 of the `__Host-svc_login` cookie value given to the browser that
    /// began the sign-in; only that browser may finish it.
    pub browser_hash: String,
}

pub async fn insert(h: H<'_>, row: &LoginState) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO login_states
         (state, nonce, pkce_verifier, return_to, expires_at, browser_hash)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&row.state).bind(&row.nonce).bind(&row.pkce_verifier).bind(&row.return_to)
    .bind(row.expires_at).bind(&row.browser_hash).execute(c).await?.rows_affected());
    Ok(())
}

/// Takes the pending sign-in out (a state works once) when it has not expired.
pub async fn take(h: H<'_>, state: &str, now: i64) -> Result<Option<LoginState>> {
    Ok(on!(h, c => sqlx::query_as(
        "DELETE FROM login_states WHERE state = $1
         RETURNING state, nonce, pkce_verifier, return_to, expires_at, browser_hash",
    )
    .bind(state)
    .fetch_optional(c)
    .await?
    .filter(|row: &LoginState| row.expires_at > now)))
}

/// Forgets sign-ins that were never finished.
pub async fn prune(h: H<'_>, now: i64) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM login_states WHERE expires_at < $1")
        .bind(now).execute(c).await?.rows_affected());
    Ok(())
}
