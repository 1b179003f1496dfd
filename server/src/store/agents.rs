//! Agent sessions and their transcripts.

use super::{H, Result, on};

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct SessionRow {
    pub id: String,
    pub monorepo_id: String,
    pub repo_id: Option<String>,
    pub kind: String,
    pub state: String,
    pub reason: Option<String>,
    pub branch: Option<String>,
    pub model: String,
    pub prompt: String,
    pub launcher_id: String,
    pub launcher: String,
    pub credential_id: Option<String>,
    pub issue_number: Option<i64>,
    /// The transcript index of the latest message to the agent.
    pub asked: i64,
    /// Which run is the latest.
    pub run_no: i64,
    pub lease_until: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct MessageRow {
    pub session_id: String,
    pub idx: i64,
    pub role: String,
    pub at: i64,
    /// The parts as JSON.
    pub parts: String,
}

const SESSION: &str = "id, monorepo_id, repo_id, kind, state, reason, branch, model, prompt, launcher_id, launcher, credential_id, issue_number, asked, run_no, lease_until, created_at, updated_at";
const MESSAGE: &str = "session_id, idx, role, at, parts";
/// The states in which a run is going (or about to).
const LIVE: &str = "('launching', 'running')";

pub async fn insert(h: H<'_>, s: &SessionRow) -> Result<()> {
    let sql = format!(
        "INSERT INTO agent_sessions ({SESSION})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"
    );
    on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(&s.id).bind(&s.monorepo_id).bind(&s.repo_id).bind(&s.kind).bind(&s.state)
        .bind(&s.reason).bind(&s.branch).bind(&s.model).bind(&s.prompt).bind(&s.launcher_id)
        .bind(&s.launcher).bind(&s.credential_id).bind(s.issue_number).bind(s.asked)
        .bind(s.run_no).bind(s.lease_until).bind(s.created_at).bind(s.updated_at)
        .execute(c).await?.rows_affected());
    Ok(())
}

/// One session by id, in any monorepo.
pub async fn by_id(h: H<'_>, id: &str) -> Result<Option<SessionRow>> {
    let sql = format!("SELECT {SESSION} FROM agent_sessions WHERE id = $1");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(c).await?))
}

pub async fn get(h: H<'_>, monorepo_id: &str, id: &str) -> Result<Option<SessionRow>> {
    let sql = format!("SELECT {SESSION} FROM agent_sessions WHERE monorepo_id = $1 AND id = $2");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(monorepo_id).bind(id).fetch_optional(c).await?))
}

/// The monorepo's chats, or its other sessions (of one launcher, when named), newest
/// first.
pub async fn list(
    h: H<'_>,
    monorepo_id: &str,
    chats: bool,
    launcher_id: Option<&str>,
    limit: i64,
) -> Result<Vec<SessionRow>> {
    let sql = format!(
        "SELECT {SESSION} FROM agent_sessions WHERE monorepo_id = $1
           AND (CASE WHEN kind = 'chat' THEN 1 ELSE 0 END) = $2
           AND ($3 IS NULL OR launcher_id = $3)
         ORDER BY created_at DESC, id DESC LIMIT $4"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(monorepo_id).bind(i64::from(chats)).bind(launcher_id).bind(limit).fetch_all(c).await?))
}

/// How many runs of one person (or of everyone, with `None`) are going.
pub async fn running_count(h: H<'_>, launcher_id: Option<&str>) -> Result<i64> {
    let sql = format!(
        "SELECT COUNT(*) FROM agent_sessions WHERE state IN {LIVE}
           AND ($1 IS NULL OR launcher_id = $1)"
    );
    Ok(on!(h, c => sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(launcher_id).fetch_one(c).await?))
}

/// Starts a new run of a session that has none going: answers its run number, or none
/// when a run is going after all (then that run takes the new message).
pub async fn begin_run(
    h: H<'_>,
    id: &str,
    asked: i64,
    lease_until: i64,
    now: i64,
) -> Result<Option<i64>> {
    let sql = format!(
        "UPDATE agent_sessions SET state = 'launching', reason = NULL, asked = $2,
           run_no = run_no + 1, lease_until = $3, updated_at = $4
         WHERE id = $1 AND state NOT IN {LIVE} RETURNING run_no"
    );
    Ok(on!(h, c => sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(id).bind(asked).bind(lease_until).bind(now).fetch_optional(c).await?))
}

/// Names the credential the session's latest run was given.
pub async fn set_credential(h: H<'_>, id: &str, credential_id: &str) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE agent_sessions SET credential_id = $2 WHERE id = $1")
        .bind(id).bind(credential_id).execute(c).await?.rows_affected());
    Ok(())
}

/// Hands a new message to the run going, if one is: true when one is (it runs again
/// with the message once it ends).
pub async fn ask_live(h: H<'_>, id: &str, asked: i64, now: i64) -> Result<bool> {
    let sql = format!(
        "UPDATE agent_sessions SET asked = $2, updated_at = $3 WHERE id = $1 AND state IN {LIVE}"
    );
    Ok(on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id).bind(asked).bind(now).execute(c).await?.rows_affected())
        > 0)
}

/// Moves run `run_no` to `state`, while it is the latest run and going and, when `asked`
/// is given, nothing was asked since (else the run has more to do); true when it did.
pub async fn set_state(
    h: H<'_>,
    id: &str,
    run_no: i64,
    state: &str,
    reason: Option<&str>,
    asked: Option<i64>,
    now: i64,
) -> Result<bool> {
    let sql = format!(
        "UPDATE agent_sessions SET state = $3, reason = $4, updated_at = $6,
           lease_until = CASE WHEN $3 IN {LIVE} THEN lease_until ELSE NULL END
         WHERE id = $1 AND run_no = $2 AND state IN {LIVE} AND ($5 IS NULL OR asked = $5)"
    );
    Ok(on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id).bind(run_no).bind(state).bind(reason).bind(asked).bind(now)
        .execute(c).await?.rows_affected())
        > 0)
}

/// Stops whatever run is going; true when one was.
pub async fn stop(h: H<'_>, id: &str, reason: &str, now: i64) -> Result<bool> {
    let sql = format!(
        "UPDATE agent_sessions SET state = 'stopped', reason = $2, updated_at = $3,
           lease_until = NULL WHERE id = $1 AND state IN {LIVE}"
    );
    Ok(on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id).bind(reason).bind(now).execute(c).await?.rows_affected())
        > 0)
}

/// Extends run `run_no`'s lease; false when that run is no longer the live one (stopped
/// from another process, say), which then ends it.
pub async fn renew(h: H<'_>, id: &str, run_no: i64, until: i64) -> Result<bool> {
    let sql = format!(
        "UPDATE agent_sessions SET lease_until = $3
         WHERE id = $1 AND run_no = $2 AND state IN {LIVE}"
    );
    Ok(on!(h, c => sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id).bind(run_no).bind(until).execute(c).await?.rows_affected())
        > 0)
}

/// Going sessions whose lease lapsed before `now` (every going one, with `None`): the
/// process running them is gone.
pub async fn lapsed(h: H<'_>, now: Option<i64>) -> Result<Vec<SessionRow>> {
    let sql = format!(
        "SELECT {SESSION} FROM agent_sessions WHERE state IN {LIVE}
           AND ($1 IS NULL OR lease_until IS NULL OR lease_until < $1)"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(now).fetch_all(c).await?))
}

/// Appends a message at the transcript's end and answers its index.
pub async fn add_message(
    h: H<'_>,
    session_id: &str,
    role: &str,
    at: i64,
    parts: &str,
) -> Result<i64> {
    Ok(on!(h, c => sqlx::query_scalar(
        "INSERT INTO agent_messages (session_id, idx, role, at, parts)
         SELECT $1, COALESCE(MAX(idx) + 1, 0), $2, $3, $4 FROM agent_messages WHERE session_id = $1
         RETURNING idx",
    )
    .bind(session_id).bind(role).bind(at).bind(parts).fetch_one(c).await?))
}

/// The transcript from index `from`, oldest first (at most `limit`).
pub async fn messages(
    h: H<'_>,
    session_id: &str,
    from: i64,
    limit: i64,
) -> Result<Vec<MessageRow>> {
    let sql = format!(
        "SELECT {MESSAGE} FROM agent_messages WHERE session_id = $1 AND idx >= $2
         ORDER BY idx LIMIT $3"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(session_id).bind(from).bind(limit).fetch_all(c).await?))
}
