//! Device-flow codes (RFC 8628). The device code is stored only as its SHA-256.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DeviceRow {
    pub user_code: String,
    pub machine: Option<String>,
    pub state: String,
    pub user_id: Option<String>,
    pub interval_secs: i64,
    pub last_poll_at: Option<i64>,
    pub created_at: i64,
    pub expires_at: i64,
}

const COLUMNS: &str =
    "user_code, machine, state, user_id, interval_secs, last_poll_at, created_at, expires_at";

pub async fn insert(h: H<'_>, device_code_hash: &[u8], row: &DeviceRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO device_codes (device_code_hash, user_code, machine, state, user_id,
                                   interval_secs, last_poll_at, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(device_code_hash)
    .bind(&row.user_code)
    .bind(&row.machine)
    .bind(&row.state)
    .bind(&row.user_id)
    .bind(row.interval_secs)
    .bind(row.last_poll_at)
    .bind(row.created_at)
    .bind(row.expires_at)
    .execute(c)
    .await?
    .rows_affected());
    Ok(())
}

pub async fn by_device_code(h: H<'_>, device_code_hash: &[u8]) -> Result<Option<DeviceRow>> {
    let sql = format!("SELECT {COLUMNS} FROM device_codes WHERE device_code_hash = $1");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(device_code_hash).fetch_optional(c).await?),
    )
}

pub async fn by_user_code(h: H<'_>, user_code: &str) -> Result<Option<DeviceRow>> {
    let sql = format!("SELECT {COLUMNS} FROM device_codes WHERE user_code = $1");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(user_code).fetch_optional(c).await?),
    )
}

/// Records a poll and the interval the client must keep from now on.
pub async fn record_poll(h: H<'_>, device_code_hash: &[u8], now: i64, interval: i64) -> Result<()> {
    on!(h, c => sqlx::query(
        "UPDATE device_codes SET last_poll_at = $2, interval_secs = $3 WHERE device_code_hash = $1",
    )
    .bind(device_code_hash).bind(now).bind(interval).execute(c).await?.rows_affected());
    Ok(())
}

/// Approves or denies a pending, unexpired code; false when it was not pending.
pub async fn decide(
    h: H<'_>,
    user_code: &str,
    state: &str,
    user_id: &str,
    machine: &str,
    now: i64,
) -> Result<bool> {
    let done = on!(h, c => sqlx::query(
        "UPDATE device_codes SET state = $2, user_id = $3, machine = $4
         WHERE user_code = $1 AND state = 'pending' AND expires_at > $5",
    )
    .bind(user_code).bind(state).bind(user_id).bind(machine).bind(now)
    .execute(c).await?.rows_affected());
    Ok(done > 0)
}

/// Marks an approved code as having issued its one credential; false when another
/// poll already did.
pub async fn mark_issued(h: H<'_>, device_code_hash: &[u8]) -> Result<bool> {
    let done = on!(h, c => sqlx::query(
        "UPDATE device_codes SET state = 'issued' WHERE device_code_hash = $1 AND state = 'approved'",
    )
    .bind(device_code_hash).execute(c).await?.rows_affected());
    Ok(done > 0)
}

/// Forgets codes that expired over a day ago.
pub async fn prune(h: H<'_>, now: i64) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM device_codes WHERE expires_at < $1")
        .bind(now - 86_400_000).execute(c).await?.rows_affected());
    Ok(())
}
