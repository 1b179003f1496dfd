//! Hooks, their deliveries and tries. Due deliveries are taken with a lease
//! ([`take_due`]): a row leased by one process is not taken by another until the lease
//! runs out, so a try in flight is never doubled, and one a dead process held is made
//! again.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct HookRow {
    pub id: String,
    pub monorepo_id: String,
    pub kind: String,
    pub url: Option<String>,
    pub secret: String,
    pub events: String,
    pub app: Option<String>,
    pub pipeline: Option<String>,
    pub active: bool,
    pub created_by: String,
    pub created_at: i64,
}

impl HookRow {
    pub fn event_list(&self) -> Vec<String> {
        self.events
            .split(',')
            .filter(|e| !e.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DeliveryRow {
    pub id: String,
    pub hook_id: String,
    pub repo_id: Option<String>,
    pub event: String,
    pub seq: Option<i64>,
    pub body: String,
    pub state: String,
    pub attempts: i64,
    pub round_tries: i64,
    pub next_attempt_at: Option<i64>,
    pub lease_until: Option<i64>,
    pub created_at: i64,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TryRow {
    pub delivery_id: String,
    pub at: i64,
    pub status: Option<i32>,
    pub duration_ms: i64,
    pub error: Option<String>,
}

const HOOK: &str =
    "id, monorepo_id, kind, url, secret, events, app, pipeline, active, created_by, created_at";
const DELIVERY: &str = "id, hook_id, repo_id, event, seq, body, state, attempts, round_tries, next_attempt_at, lease_until, created_at";

pub async fn insert(h: H<'_>, row: &HookRow) -> Result<()> {
    let sql =
        format!("INSERT INTO hooks ({HOOK}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)");
    on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&row.id).bind(&row.monorepo_id).bind(&row.kind).bind(&row.url).bind(&row.secret)
        .bind(&row.events).bind(&row.app).bind(&row.pipeline).bind(row.active).bind(&row.created_by)
        .bind(row.created_at).execute(c).await?.rows_affected());
    Ok(())
}

/// The monorepo's hooks, oldest first.
pub async fn of_monorepo(h: H<'_>, monorepo_id: &str) -> Result<Vec<HookRow>> {
    let sql = format!("SELECT {HOOK} FROM hooks WHERE monorepo_id = $1 ORDER BY created_at, id");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).fetch_all(c).await?))
}

pub async fn get(h: H<'_>, monorepo_id: &str, id: &str) -> Result<Option<HookRow>> {
    let sql = format!("SELECT {HOOK} FROM hooks WHERE monorepo_id = $1 AND id = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).bind(id).fetch_optional(c).await?),
    )
}

pub async fn by_id(h: H<'_>, id: &str) -> Result<Option<HookRow>> {
    let sql = format!("SELECT {HOOK} FROM hooks WHERE id = $1");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(c).await?))
}

/// Deletes a hook with its deliveries, tries and tokens.
pub async fn delete(h: H<'_>, id: &str) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM hooks WHERE id = $1").bind(id).execute(c).await?.rows_affected());
    Ok(())
}

/// Writes a new delivery, due at `due`.
pub async fn insert_delivery(h: H<'_>, d: &DeliveryRow) -> Result<()> {
    let sql = format!(
        "INSERT INTO hook_deliveries ({DELIVERY}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
    );
    on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&d.id).bind(&d.hook_id).bind(&d.repo_id).bind(&d.event).bind(d.seq).bind(&d.body)
        .bind(&d.state).bind(d.attempts).bind(d.round_tries).bind(d.next_attempt_at).bind(d.lease_until)
        .bind(d.created_at).execute(c).await?.rows_affected());
    Ok(())
}

/// Takes up to `limit` due deliveries (pending, due by `now`, no lease holding), at most
/// `per_hook` of one hook counting those in flight, and leases them until `lease_until`.
pub async fn take_due(
    h: H<'_>,
    now: i64,
    lease_until: i64,
    limit: i64,
    per_hook: i64,
) -> Result<Vec<DeliveryRow>> {
    // The outer conditions are checked again on a row another process updated meanwhile
    // (PostgreSQL re-reads it), so a row is leased once however many take at once.
    let sql = format!(
        "UPDATE hook_deliveries SET lease_until = $2
         WHERE state = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
           AND id IN (
             SELECT id FROM (
               SELECT id, next_attempt_at,
                 ROW_NUMBER() OVER (PARTITION BY hook_id ORDER BY next_attempt_at, id) AS n
               FROM hook_deliveries
               WHERE state = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
                 AND hook_id NOT IN (
                   SELECT hook_id FROM hook_deliveries WHERE state = 'pending' AND lease_until > $1
                   GROUP BY hook_id HAVING COUNT(*) >= $4)
             ) due WHERE n <= $4 ORDER BY next_attempt_at LIMIT $3)
         RETURNING {DELIVERY}"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(now).bind(lease_until).bind(limit).bind(per_hook).fetch_all(c).await?))
}

/// Lets go of every delivery's lease (a SQLite server at start, the only process: no try
/// is in flight); answers how many were held.
pub async fn release_leases(h: H<'_>) -> Result<u64> {
    Ok(on!(h, c => sqlx::query(
        "UPDATE hook_deliveries SET lease_until = NULL WHERE lease_until IS NOT NULL",
    )
    .execute(c).await?.rows_affected()))
}

/// When the next pending delivery is due, if any (leased ones at their lease's end).
pub async fn next_due(h: H<'_>) -> Result<Option<i64>> {
    Ok(on!(h, c => sqlx::query_scalar::<_, Option<i64>>(
        "SELECT MIN(CASE WHEN lease_until IS NOT NULL AND lease_until > next_attempt_at THEN lease_until ELSE next_attempt_at END)
         FROM hook_deliveries WHERE state = 'pending'",
    ).fetch_one(c).await?))
}

/// Records a try and the delivery's new state; only while this process's lease holds
/// (`lease_until` as taken), so a try whose lease ran out and was taken again does not
/// write over the newer one. Keeps the last 10 tries.
#[allow(clippy::too_many_arguments)]
pub async fn finish_try(
    mut h: H<'_>,
    id: &str,
    lease_until: i64,
    t: &TryRow,
    state: &str,
    round_tries: i64,
    next_attempt_at: Option<i64>,
) -> Result<bool> {
    let updated = on!(h.reborrow(), c => sqlx::query(
        "UPDATE hook_deliveries SET state = $3, attempts = attempts + 1, round_tries = $4,
           next_attempt_at = $5, lease_until = NULL
         WHERE id = $1 AND lease_until = $2",
    )
    .bind(id).bind(lease_until).bind(state).bind(round_tries).bind(next_attempt_at)
    .execute(c).await?.rows_affected());
    if updated == 0 {
        return Ok(false);
    }
    on!(h.reborrow(), c => sqlx::query(
        "INSERT INTO hook_tries (delivery_id, at, status, duration_ms, error) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&t.delivery_id).bind(t.at).bind(t.status).bind(t.duration_ms).bind(&t.error)
    .execute(c).await?.rows_affected());
    on!(h, c => sqlx::query(
        "DELETE FROM hook_tries WHERE delivery_id = $1 AND at < (
           SELECT MIN(at) FROM (SELECT at FROM hook_tries WHERE delivery_id = $1 ORDER BY at DESC LIMIT 10) last)",
    )
    .bind(id).execute(c).await?.rows_affected());
    Ok(true)
}

/// Makes a delivery pending again, due now, with a fresh round of tries.
pub async fn renew(h: H<'_>, id: &str, now: i64) -> Result<()> {
    on!(h, c => sqlx::query(
        "UPDATE hook_deliveries SET state = 'pending', round_tries = 0, next_attempt_at = $2, lease_until = NULL WHERE id = $1",
    )
    .bind(id).bind(now).execute(c).await?.rows_affected());
    Ok(())
}

pub async fn delivery(h: H<'_>, hook_id: &str, id: &str) -> Result<Option<DeliveryRow>> {
    let sql = format!("SELECT {DELIVERY} FROM hook_deliveries WHERE hook_id = $1 AND id = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(hook_id).bind(id).fetch_optional(c).await?),
    )
}

/// The hook's newest deliveries, newest first.
pub async fn deliveries(h: H<'_>, hook_id: &str, limit: i64) -> Result<Vec<DeliveryRow>> {
    let sql = format!(
        "SELECT {DELIVERY} FROM hook_deliveries WHERE hook_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
    );
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(hook_id).bind(limit).fetch_all(c).await?),
    )
}

/// The hook's deliveries with a seq above `since`, oldest first.
pub async fn since(h: H<'_>, hook_id: &str, since: i64, limit: i64) -> Result<Vec<DeliveryRow>> {
    let sql = format!(
        "SELECT {DELIVERY} FROM hook_deliveries WHERE hook_id = $1 AND seq > $2 ORDER BY seq, created_at, id LIMIT $3"
    );
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(hook_id).bind(since).bind(limit).fetch_all(c).await?),
    )
}

/// The tries of each of `ids`, oldest first.
pub async fn tries(h: H<'_>, ids: &[String]) -> Result<Vec<TryRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT delivery_id, at, status, duration_ms, error FROM hook_tries WHERE delivery_id IN ({}) ORDER BY at",
        super::placeholders(1, ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

/// Keeps the hook's newest `keep` deliveries (records of the latest 1,000; ones made in
/// the same millisecond as the oldest kept stay too).
pub async fn prune(h: H<'_>, hook_id: &str, keep: i64) -> Result<()> {
    on!(h, c => sqlx::query(
        "DELETE FROM hook_deliveries WHERE hook_id = $1 AND created_at < (
           SELECT created_at FROM hook_deliveries WHERE hook_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET $2)",
    )
    .bind(hook_id).bind(keep).execute(c).await?.rows_affected());
    Ok(())
}

/// Stores a read token's hash.
pub async fn insert_read_token(
    h: H<'_>,
    hash: &[u8],
    repo_id: &str,
    hook_id: Option<&str>,
    expires_at: i64,
) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO hook_read_tokens (token_hash, repo_id, hook_id, expires_at) VALUES ($1, $2, $3, $4)",
    )
    .bind(hash).bind(repo_id).bind(hook_id).bind(expires_at).execute(c).await?.rows_affected());
    Ok(())
}

/// The repo a live read token opens.
pub async fn read_token_repo(h: H<'_>, hash: &[u8], now: i64) -> Result<Option<String>> {
    Ok(on!(h, c => sqlx::query_scalar(
        "SELECT repo_id FROM hook_read_tokens WHERE token_hash = $1 AND expires_at > $2",
    )
    .bind(hash).bind(now).fetch_optional(c).await?))
}

/// Forgets expired read tokens.
pub async fn prune_read_tokens(h: H<'_>, now: i64) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM hook_read_tokens WHERE expires_at <= $1")
        .bind(now).execute(c).await?.rows_affected());
    Ok(())
}
