//! The merge queue's entries (see `merge_queue`): in order of `seq` per repo; `queued`
//! or `testing` while in the queue, `landed` or `left` (with a reason) once out.

use super::{H, Result, on};

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct QueueRow {
    pub id: String,
    pub repo_id: String,
    pub branch: String,
    /// The order in the repo's queue: smaller is ahead.
    pub seq: i64,
    /// `queued`, `testing`, `landed` or `left`.
    pub state: String,
    /// Why it left: `checks_failed`, `conflict`, `timeout`, `by_hand`, ...
    pub reason: Option<String>,
    /// The branch head it was queued with (a push to the branch is tested anew).
    pub head: String,
    /// The speculative merge commit under test, once made.
    pub speculative_sha: Option<String>,
    /// The commit it was made on: main, or the speculative commit of the entry ahead.
    pub base_sha: Option<String>,
    pub enqueued_user: String,
    pub enqueued_by: String,
    pub enqueued_agent: Option<String>,
    pub created_at: i64,
    /// When an entry still in the queue leaves with `timeout`.
    pub deadline: i64,
    pub ended_at: Option<i64>,
    /// The change it is part of (mergeChange): its entries land together.
    pub change_id: Option<String>,
}

const COLUMNS: &str = "id, repo_id, branch, seq, state, reason, head, speculative_sha, base_sha, \
     enqueued_user, enqueued_by, enqueued_agent, created_at, deadline, ended_at, change_id";

/// States of an entry still in the queue.
pub const ACTIVE: &str = "state IN ('queued', 'testing')";

/// Adds `e` at the end of its repo's queue (its `seq` is given here); answers the row.
pub async fn insert(mut h: H<'_>, e: &QueueRow) -> Result<QueueRow> {
    let (last,): (Option<i64>,) = on!(h.reborrow(), c => sqlx::query_as(
        "SELECT MAX(seq) FROM queue_entries WHERE repo_id = $1")
        .bind(&e.repo_id).fetch_one(c).await?);
    let row = QueueRow {
        seq: last.unwrap_or(0) + 1,
        ..e.clone()
    };
    on!(h, c => sqlx::query(
        "INSERT INTO queue_entries (id, repo_id, branch, seq, state, reason, head, speculative_sha,
           base_sha, enqueued_user, enqueued_by, enqueued_agent, created_at, deadline, ended_at,
           change_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
    )
    .bind(&row.id).bind(&row.repo_id).bind(&row.branch).bind(row.seq).bind(&row.state)
    .bind(&row.reason).bind(&row.head).bind(&row.speculative_sha).bind(&row.base_sha)
    .bind(&row.enqueued_user).bind(&row.enqueued_by).bind(&row.enqueued_agent)
    .bind(row.created_at).bind(row.deadline).bind(row.ended_at).bind(&row.change_id)
    .execute(c).await?.rows_affected());
    Ok(row)
}

/// The repo's entries still in the queue, front first.
pub async fn active(h: H<'_>, repo_id: &str) -> Result<Vec<QueueRow>> {
    let sql =
        format!("SELECT {COLUMNS} FROM queue_entries WHERE repo_id = $1 AND {ACTIVE} ORDER BY seq");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).fetch_all(c).await?))
}

/// The repo's entries in the queue, front first, then the latest `ended` out of it.
pub async fn list(h: H<'_>, repo_id: &str, ended: i64) -> Result<Vec<QueueRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM queue_entries WHERE repo_id = $1 AND {ACTIVE}
         UNION ALL
         SELECT * FROM (SELECT {COLUMNS} FROM queue_entries WHERE repo_id = $1 AND NOT {ACTIVE}
           ORDER BY seq DESC LIMIT $2) AS ended"
    );
    let mut rows: Vec<QueueRow> = on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(ended).fetch_all(c).await?);
    rows.sort_by_key(|r| (!is_active(&r.state), r.seq));
    Ok(rows)
}

/// Whether an entry in `state` is still in the queue.
pub fn is_active(state: &str) -> bool {
    matches!(state, "queued" | "testing")
}

pub async fn get(h: H<'_>, repo_id: &str, id: &str) -> Result<Option<QueueRow>> {
    let sql = format!("SELECT {COLUMNS} FROM queue_entries WHERE repo_id = $1 AND id = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).bind(id)
        .fetch_optional(c).await?),
    )
}

/// The branch's entry still in the queue, if any.
pub async fn active_of(h: H<'_>, repo_id: &str, branch: &str) -> Result<Option<QueueRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM queue_entries WHERE repo_id = $1 AND branch = $2 AND {ACTIVE}"
    );
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).bind(branch)
        .fetch_optional(c).await?),
    )
}

/// Records the speculative commit made for an entry still in the queue: `testing`.
/// False when it left meanwhile.
pub async fn set_built(
    h: H<'_>,
    id: &str,
    head: &str,
    base: &str,
    speculative: &str,
) -> Result<bool> {
    let sql = format!(
        "UPDATE queue_entries SET state = 'testing', head = $2, base_sha = $3, speculative_sha = $4
         WHERE id = $1 AND {ACTIVE}"
    );
    let n = on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).bind(head).bind(base)
        .bind(speculative).execute(c).await?.rows_affected());
    Ok(n == 1)
}

/// An entry still in the queue leaves it with `reason`; false when it was out already.
pub async fn leave(h: H<'_>, id: &str, reason: &str, now: i64) -> Result<bool> {
    let sql = format!(
        "UPDATE queue_entries SET state = 'left', reason = $2, ended_at = $3 WHERE id = $1 AND {ACTIVE}"
    );
    let n = on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).bind(reason).bind(now)
        .execute(c).await?.rows_affected());
    Ok(n == 1)
}

/// The entries whose speculative commits are `landed`, (repo id, commit) pairs, landed
/// (main moved to them or past them): written by the recording of those main moves, in
/// its transaction.
pub async fn set_landed(h: H<'_>, landed: &[(&str, &str)], now: i64) -> Result<()> {
    if landed.is_empty() {
        return Ok(());
    }
    let any = super::repo_pairs(2, landed.len(), "speculative_sha");
    let sql = format!(
        "UPDATE queue_entries SET state = 'landed', ended_at = $1 WHERE ({any}) AND {ACTIVE}"
    );
    on!(h, c => {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone())).bind(now);
        for (repo_id, sha) in landed {
            q = q.bind(*repo_id).bind(*sha);
        }
        q.execute(c).await?.rows_affected()
    });
    Ok(())
}

/// The entries of change `change` still in a queue (in any repo).
pub async fn of_change(h: H<'_>, change: &str) -> Result<Vec<QueueRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM queue_entries WHERE change_id = $1 AND {ACTIVE} ORDER BY repo_id"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(change).fetch_all(c).await?))
}

/// Makes an entry still in the queue part of change `change` (keeping its place).
pub async fn set_change(h: H<'_>, id: &str, change: &str) -> Result<()> {
    let sql = format!("UPDATE queue_entries SET change_id = $2 WHERE id = $1 AND {ACTIVE}");
    on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).bind(change)
        .execute(c).await?.rows_affected());
    Ok(())
}

/// The entries of the repos `repo_ids` in their queues, or out of them since `since`,
/// by repo and place (the needs-you list).
pub async fn recent_in(h: H<'_>, repo_ids: &[String], since: i64) -> Result<Vec<QueueRow>> {
    if repo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = super::placeholders(2, repo_ids.len());
    let sql = format!(
        "SELECT {COLUMNS} FROM queue_entries
         WHERE repo_id IN ({list}) AND ({ACTIVE} OR ended_at >= $1) ORDER BY repo_id, seq"
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(since);
        for v in repo_ids {
            q = q.bind(v);
        }
        q.fetch_all(c).await?
    }))
}

/// Changes with entries in a queue, for the change worker's sweep.
pub async fn changes_with_entries(h: H<'_>) -> Result<Vec<String>> {
    let sql = format!(
        "SELECT DISTINCT change_id FROM queue_entries WHERE change_id IS NOT NULL AND {ACTIVE}"
    );
    let rows: Vec<(String,)> =
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_all(c).await?);
    Ok(rows.into_iter().map(|(r,)| r).collect())
}

/// Repos with entries in their queue, for the worker's sweep.
pub async fn repos_with_entries(h: H<'_>) -> Result<Vec<String>> {
    let sql = format!("SELECT DISTINCT repo_id FROM queue_entries WHERE {ACTIVE}");
    let rows: Vec<(String,)> =
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_all(c).await?);
    Ok(rows.into_iter().map(|(r,)| r).collect())
}
