//! The event log: appended in the transaction of the change it describes.

use super::{H, Result, on};

/// An event to append; `seq` is given by the log.
pub struct NewEvent<'a> {
    pub monorepo_id: &'a str,
    pub kind: &'a str,
    pub repo: Option<&'a str>,
    pub collection: &'a str,
    pub key: &'a str,
    pub op: &'a str,
    /// The kind-specific JSON (row, before, head, actor, ...).
    pub body: String,
    pub at: i64,
}

/// Appends one event and answers its `seq`. Bumping the monorepo's counter locks its
/// row, so seqs are gap-free and in commit order. An activity event also writes its
/// feed line here, in the same transaction.
pub async fn append(mut h: H<'_>, e: &NewEvent<'_>) -> Result<i64> {
    let seq = on!(h.reborrow(), c => {
        let seq: i64 = sqlx::query_scalar("UPDATE monorepos SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq")
            .bind(e.monorepo_id).fetch_one(&mut *c).await?;
        sqlx::query(
            "INSERT INTO events (monorepo_id, seq, kind, repo, collection, key, op, body, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(e.monorepo_id).bind(seq).bind(e.kind).bind(e.repo).bind(e.collection).bind(e.key)
        .bind(e.op).bind(&e.body).bind(e.at)
        .execute(&mut *c).await?;
        seq
    });
    if let Some(details) = super::feed::details_of(e) {
        super::feed::add(h, e, seq, &details).await?;
    }
    Ok(seq)
}

/// The monorepo's latest seq (0 before any event).
pub async fn last_seq(h: H<'_>, monorepo_id: &str) -> Result<i64> {
    Ok(
        on!(h, c => sqlx::query_scalar("SELECT last_seq FROM monorepos WHERE id = $1")
        .bind(monorepo_id).fetch_optional(c).await?.unwrap_or(0)),
    )
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EventRow {
    pub seq: i64,
    pub kind: String,
    pub repo: Option<String>,
    pub collection: String,
    pub key: String,
    pub op: String,
    pub body: String,
    pub at: i64,
}

/// Events after `since`, oldest first.
pub async fn after(h: H<'_>, monorepo_id: &str, since: i64, limit: i64) -> Result<Vec<EventRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT seq, kind, repo, collection, key, op, body, at FROM events
         WHERE monorepo_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
    )
    .bind(monorepo_id).bind(since).bind(limit).fetch_all(c).await?))
}
