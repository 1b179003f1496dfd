//! Presence: reported worktrees, machines, live socket connections and the server
//! processes that hold them.

use super::{H, Result, on, placeholders};

/// A reported worktree with its person's login and its repo's name.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct WorktreeRow {
    pub id: String,
    pub user_id: String,
    pub login: String,
    pub machine: String,
    pub repo_id: String,
    pub repo: String,
    pub branch: String,
    pub path: Option<String>,
    pub reported_at: i64,
    pub updated_at: i64,
}

const WORKTREE_SELECT: &str =
    "SELECT w.id, w.user_id, u.login, w.machine, w.repo_id, r.name AS repo,
    w.branch, w.path, w.reported_at, w.updated_at
    FROM worktrees w JOIN users u ON u.id = w.user_id JOIN repos r ON r.id = w.repo_id";

pub async fn worktree(h: H<'_>, monorepo_id: &str, id: &str) -> Result<Option<WorktreeRow>> {
    let sql = format!("{WORKTREE_SELECT} WHERE w.monorepo_id = $1 AND w.id = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).bind(id)
        .fetch_optional(c).await?),
    )
}

/// The monorepo's worktrees, by machine then id; `machine` narrows to one machine.
pub async fn worktrees(
    h: H<'_>,
    monorepo_id: &str,
    machine: Option<&str>,
) -> Result<Vec<WorktreeRow>> {
    let sql = format!(
        "{WORKTREE_SELECT} WHERE w.monorepo_id = $1 AND (CAST($2 AS TEXT) IS NULL OR w.machine = $2)
         ORDER BY w.machine, w.id"
    );
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).bind(machine)
        .fetch_all(c).await?),
    )
}

/// What a worktree report writes.
pub struct PutWorktree<'a> {
    pub monorepo_id: &'a str,
    pub id: &'a str,
    pub user_id: &'a str,
    pub machine: &'a str,
    pub repo_id: &'a str,
    pub branch: &'a str,
    pub path: Option<&'a str>,
    pub at: i64,
}

/// Inserts or replaces a worktree; `reported_at` stays that of the first report.
pub async fn put_worktree(h: H<'_>, w: &PutWorktree<'_>) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO worktrees (monorepo_id, id, user_id, machine, repo_id, branch, path, reported_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
         ON CONFLICT (monorepo_id, id) DO UPDATE SET user_id = excluded.user_id,
           machine = excluded.machine, repo_id = excluded.repo_id, branch = excluded.branch,
           path = excluded.path, updated_at = excluded.updated_at",
    )
    .bind(w.monorepo_id).bind(w.id).bind(w.user_id).bind(w.machine).bind(w.repo_id)
    .bind(w.branch).bind(w.path).bind(w.at)
    .execute(c).await?.rows_affected());
    Ok(())
}

pub async fn delete_worktree(h: H<'_>, monorepo_id: &str, id: &str) -> Result<bool> {
    Ok(
        on!(h, c => sqlx::query("DELETE FROM worktrees WHERE monorepo_id = $1 AND id = $2")
        .bind(monorepo_id).bind(id).execute(c).await?.rows_affected())
            > 0,
    )
}

/// A machine with its person's login and whether one of its sockets is connected.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MachineRow {
    pub user_id: String,
    pub login: String,
    pub machine: String,
    /// JSON array of worktree ids.
    pub worktrees: String,
    pub last_action_kind: String,
    pub last_action_at: i64,
    pub event_at: i64,
    pub connected: bool,
}

const MACHINE_SELECT: &str = "SELECT m.user_id, u.login, m.machine, m.worktrees,
    m.last_action_kind, m.last_action_at, m.event_at,
    EXISTS (SELECT 1 FROM presence_connections c WHERE c.monorepo_id = m.monorepo_id
            AND c.user_id = m.user_id AND c.machine = m.machine) AS connected
    FROM machines m JOIN users u ON u.id = m.user_id";

pub async fn machine(
    h: H<'_>,
    monorepo_id: &str,
    user_id: &str,
    machine: &str,
) -> Result<Option<MachineRow>> {
    let sql =
        format!("{MACHINE_SELECT} WHERE m.monorepo_id = $1 AND m.user_id = $2 AND m.machine = $3");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).bind(user_id)
        .bind(machine).fetch_optional(c).await?),
    )
}

/// Every machine seen in the monorepo, by login then machine name.
pub async fn machines(h: H<'_>, monorepo_id: &str) -> Result<Vec<MachineRow>> {
    let sql = format!("{MACHINE_SELECT} WHERE m.monorepo_id = $1 ORDER BY u.login, m.machine");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id)
        .fetch_all(c).await?),
    )
}

/// What a machine's row becomes.
pub struct PutMachine<'a> {
    pub monorepo_id: &'a str,
    pub user_id: &'a str,
    pub machine: &'a str,
    pub worktrees: &'a str,
    pub last_action_kind: &'a str,
    pub last_action_at: i64,
    pub event_at: i64,
}

pub async fn put_machine(h: H<'_>, m: &PutMachine<'_>) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO machines (monorepo_id, user_id, machine, worktrees, last_action_kind, last_action_at, event_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (monorepo_id, user_id, machine) DO UPDATE SET worktrees = excluded.worktrees,
           last_action_kind = excluded.last_action_kind, last_action_at = excluded.last_action_at,
           event_at = excluded.event_at",
    )
    .bind(m.monorepo_id).bind(m.user_id).bind(m.machine).bind(m.worktrees)
    .bind(m.last_action_kind).bind(m.last_action_at).bind(m.event_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

/// Whether any socket of the machine has said hello and is still open.
pub async fn is_connected(
    h: H<'_>,
    monorepo_id: &str,
    user_id: &str,
    machine: &str,
) -> Result<bool> {
    let n: i64 = on!(h, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM presence_connections WHERE monorepo_id = $1 AND user_id = $2 AND machine = $3",
    )
    .bind(monorepo_id).bind(user_id).bind(machine).fetch_one(c).await?);
    Ok(n > 0)
}

/// One socket that said hello.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ConnectionRow {
    pub socket_id: String,
    pub monorepo_id: String,
    pub user_id: String,
    pub login: String,
    pub credential_id: String,
    pub credential_name: String,
    pub machine: String,
    /// JSON array of worktree ids.
    pub worktrees: String,
    pub process_id: String,
    pub connected_at: i64,
}

const CONNECTION_COLUMNS: &str = "socket_id, monorepo_id, user_id, login, credential_id,
    credential_name, machine, worktrees, process_id, connected_at";

pub async fn connection(h: H<'_>, socket_id: &str) -> Result<Option<ConnectionRow>> {
    let sql = format!("SELECT {CONNECTION_COLUMNS} FROM presence_connections WHERE socket_id = $1");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(socket_id)
        .fetch_optional(c).await?),
    )
}

/// The monorepo's connections, oldest first.
pub async fn connections(h: H<'_>, monorepo_id: &str) -> Result<Vec<ConnectionRow>> {
    let sql = format!(
        "SELECT {CONNECTION_COLUMNS} FROM presence_connections WHERE monorepo_id = $1
         ORDER BY connected_at, socket_id"
    );
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id)
        .fetch_all(c).await?),
    )
}

/// How many machines (a person's machine counted once) are connected to each of
/// `monorepo_ids` (none listed for a monorepo without one).
pub async fn machines_in(h: H<'_>, monorepo_ids: &[String]) -> Result<Vec<(String, i64)>> {
    if monorepo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT monorepo_id, COUNT(*) FROM (
           SELECT DISTINCT monorepo_id, user_id, machine FROM presence_connections
           WHERE monorepo_id IN ({})) AS m
         GROUP BY monorepo_id",
        placeholders(1, monorepo_ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in monorepo_ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

/// Inserts or replaces a socket's connection.
pub async fn put_connection(h: H<'_>, r: &ConnectionRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO presence_connections (socket_id, monorepo_id, user_id, login, credential_id,
           credential_name, machine, worktrees, process_id, connected_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (socket_id) DO UPDATE SET machine = excluded.machine,
           worktrees = excluded.worktrees, login = excluded.login",
    )
    .bind(&r.socket_id).bind(&r.monorepo_id).bind(&r.user_id).bind(&r.login)
    .bind(&r.credential_id).bind(&r.credential_name).bind(&r.machine).bind(&r.worktrees)
    .bind(&r.process_id).bind(r.connected_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

/// Removes a socket's connection; answers it when there was one.
pub async fn delete_connection(h: H<'_>, socket_id: &str) -> Result<Option<ConnectionRow>> {
    let sql = format!(
        "DELETE FROM presence_connections WHERE socket_id = $1 RETURNING {CONNECTION_COLUMNS}"
    );
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(socket_id)
        .fetch_optional(c).await?),
    )
}

/// Connections of other processes that are gone: with no heartbeat since `before` (or no
/// process row), made before `before`. With `all`, every other process's connection (a
/// single-process database at start-up).
pub async fn orphans(
    h: H<'_>,
    process_id: &str,
    before: i64,
    all: bool,
    limit: i64,
) -> Result<Vec<String>> {
    Ok(on!(h, c => sqlx::query_scalar(
        "SELECT socket_id FROM presence_connections c WHERE c.process_id <> $1
           AND ($3 OR (c.connected_at < $2 AND NOT EXISTS (SELECT 1 FROM server_processes p
                WHERE p.id = c.process_id AND p.heartbeat_at >= $2)))
         ORDER BY c.socket_id LIMIT $4",
    )
    .bind(process_id).bind(before).bind(all).bind(limit).fetch_all(c).await?))
}

/// Marks the process alive now, and forgets processes silent since `forget_before`.
pub async fn heartbeat(mut h: H<'_>, process_id: &str, now: i64, forget_before: i64) -> Result<()> {
    on!(h.reborrow(), c => sqlx::query(
        "INSERT INTO server_processes (id, started_at, heartbeat_at) VALUES ($1, $2, $2)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
    )
    .bind(process_id).bind(now).execute(c).await?.rows_affected());
    on!(h, c => sqlx::query("DELETE FROM server_processes WHERE heartbeat_at < $1")
        .bind(forget_before).execute(c).await?.rows_affected());
    Ok(())
}

/// Locks the monorepo's row (PostgreSQL) so presence changes of one monorepo are serial
/// and each event's connection list is whole; false when the monorepo is gone.
pub async fn lock_monorepo(h: H<'_>, monorepo_id: &str) -> Result<bool> {
    Ok(
        on!(h, c => sqlx::query("UPDATE monorepos SET last_seq = last_seq WHERE id = $1")
        .bind(monorepo_id).execute(c).await?.rows_affected())
            > 0,
    )
}
