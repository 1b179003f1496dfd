//! The event log: appended in the transaction of the change it describes.

use super::{H, Result, on, placeholders};

/// The PostgreSQL channel every appending transaction notifies, so that every server
/// process hears of new events when they commit.
pub const CHANNEL: &str = "svc_events";

/// An event to append; `seq` is given by the log.
pub struct NewEvent<'a> {
    pub monorepo_id: &'a str,
    pub kind: &'a str,
    pub repo: Option<&'a str>,
    /// Further repos the event concerns, one per line, for `repo:<name>` topics (an
    /// issue's linked branches' repos).
    pub also_repos: Option<&'a str>,
    pub collection: &'a str,
    pub key: &'a str,
    pub op: &'a str,
    /// The kind-specific JSON (row, before, head, actor, ...).
    pub body: String,
    pub at: i64,
}

/// Appends one event and answers its `seq`.
pub async fn append(h: H<'_>, e: &NewEvent<'_>) -> Result<i64> {
    append_all(h, std::slice::from_ref(e)).await
}

/// Appends events of one monorepo, in order, and answers the last one's `seq`. Bumping
/// the monorepo's counter locks its row, so seqs are gap-free and in commit order: a
/// change that writes several events appends them together, last in its transaction, so
/// other writers of the monorepo wait on that row for as short a time as can be (one
/// counter bump and one insert, not one of each per event). An activity event also
/// writes its feed line here, in the same transaction. On PostgreSQL the transaction
/// also notifies [`CHANNEL`] (delivered only if it commits); SQLite's commit rings its
/// bell.
pub async fn append_all(mut h: H<'_>, all: &[NewEvent<'_>]) -> Result<i64> {
    let Some(first) = all.first() else {
        return Ok(0);
    };
    debug_assert!(all.iter().all(|e| e.monorepo_id == first.monorepo_id));
    let n = all.len() as i64;
    let rows = (0..all.len())
        .map(|i| format!("({})", placeholders(1 + i * 10, 10)))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "INSERT INTO events (monorepo_id, seq, kind, repo, also_repos, collection, key, op, body, at)
         VALUES {rows}"
    );
    let last = on!(h.reborrow(), c => {
        let last: i64 = sqlx::query_scalar("UPDATE monorepos SET last_seq = last_seq + $2 WHERE id = $1 RETURNING last_seq")
            .bind(first.monorepo_id).bind(n).fetch_one(&mut *c).await?;
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
        for (e, seq) in all.iter().zip(last - n + 1..) {
            q = q.bind(e.monorepo_id).bind(seq).bind(e.kind).bind(e.repo).bind(e.also_repos)
                .bind(e.collection).bind(e.key).bind(e.op).bind(&e.body).bind(e.at);
        }
        q.execute(&mut *c).await?;
        last
    });
    let lines: Vec<_> = all
        .iter()
        .zip(last - n + 1..)
        .filter_map(|(e, seq)| super::feed::details_of(e).map(|d| (e, seq, d)))
        .collect();
    super::feed::add_all(h.reborrow(), &lines).await?;
    if let super::Db::Postgres(c) = h.db {
        // Identical notifications of one transaction are folded into one by PostgreSQL.
        sqlx::query("SELECT pg_notify($1, '')")
            .bind(CHANNEL)
            .execute(c)
            .await?;
    }
    Ok(last)
}

/// The monorepo's latest seq (0 before any event).
pub async fn last_seq(h: H<'_>, monorepo_id: &str) -> Result<i64> {
    Ok(
        on!(h, c => sqlx::query_scalar("SELECT last_seq FROM monorepos WHERE id = $1")
        .bind(monorepo_id).fetch_optional(c).await?.unwrap_or(0)),
    )
}

/// A monorepo's latest event of some kinds.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LatestRow {
    pub monorepo_id: String,
    #[sqlx(flatten)]
    pub event: EventRow,
}

/// The latest event of one of `kinds` in each of `monorepo_ids` that has one. Each
/// monorepo's is found by walking its log back from the end (the primary key), so a
/// long log costs no more than a short one.
pub async fn latest_of_kinds_in(
    h: H<'_>,
    monorepo_ids: &[String],
    kinds: &[&str],
) -> Result<Vec<LatestRow>> {
    if monorepo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = placeholders(1, kinds.len());
    let ids = placeholders(1 + kinds.len(), monorepo_ids.len());
    let sql = format!(
        "SELECT e.monorepo_id, e.seq, e.kind, e.repo, e.collection, e.key, e.op, e.body, e.at
         FROM (SELECT m.id AS monorepo_id,
                 (SELECT x.seq FROM events x WHERE x.monorepo_id = m.id AND x.kind IN ({list})
                  ORDER BY x.seq DESC LIMIT 1) AS seq
               FROM monorepos m WHERE m.id IN ({ids})) AS l
         JOIN events e ON e.monorepo_id = l.monorepo_id AND e.seq = l.seq"
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for k in kinds {
            q = q.bind(*k);
        }
        for id in monorepo_ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

/// The latest seq of each of `ids` that still exists.
pub async fn last_seqs(h: H<'_>, ids: &[String]) -> Result<Vec<(String, i64)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT id, last_seq FROM monorepos WHERE id IN ({})",
        placeholders(1, ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.as_str()));
        for id in ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

/// The oldest seq still in the log (0 when it is empty).
pub async fn oldest_seq(h: H<'_>, monorepo_id: &str) -> Result<i64> {
    Ok(on!(h, c => sqlx::query_scalar::<_, Option<i64>>(
        "SELECT MIN(seq) FROM events WHERE monorepo_id = $1")
        .bind(monorepo_id).fetch_one(c).await?.unwrap_or(0)))
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EventRow {
    pub seq: i64,
    pub kind: String,
    pub repo: Option<String>,
    /// See [`NewEvent::also_repos`]; read only where topics are matched.
    #[sqlx(default)]
    pub also_repos: Option<String>,
    pub collection: String,
    pub key: String,
    pub op: String,
    pub body: String,
    pub at: i64,
}

/// Events after `since`, oldest first.
pub async fn after(h: H<'_>, monorepo_id: &str, since: i64, limit: i64) -> Result<Vec<EventRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT seq, kind, repo, also_repos, collection, key, op, body, at FROM events
         WHERE monorepo_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
    )
    .bind(monorepo_id).bind(since).bind(limit).fetch_all(c).await?))
}

/// A window of the log, `from < seq <= to`, narrowed by repo and kinds in SQL.
pub struct Window<'a> {
    pub from: i64,
    pub to: i64,
    pub repo: Option<&'a str>,
    pub kinds: &'a [String],
    /// Newest first (to take the latest rows) instead of oldest first.
    pub newest_first: bool,
    pub limit: i64,
    /// Read the bodies too (a topic filter reads identities first, bodies of matches after).
    pub with_body: bool,
}

/// The events of a window.
pub async fn window(h: H<'_>, monorepo_id: &str, w: &Window<'_>) -> Result<Vec<EventRow>> {
    let body = if w.with_body { "body" } else { "'' AS body" };
    let mut sql = format!(
        "SELECT seq, kind, repo, also_repos, collection, key, op, {body}, at FROM events
         WHERE monorepo_id = $1 AND seq > $2 AND seq <= $3"
    );
    let mut next = 4;
    if w.repo.is_some() {
        sql.push_str(" AND repo = $4");
        next = 5;
    }
    if !w.kinds.is_empty() {
        sql.push_str(&format!(
            " AND kind IN ({})",
            placeholders(next, w.kinds.len())
        ));
        next += w.kinds.len();
    }
    let order = if w.newest_first { "DESC" } else { "ASC" };
    sql.push_str(&format!(" ORDER BY seq {order} LIMIT ${next}"));
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.as_str())).bind(monorepo_id).bind(w.from).bind(w.to);
        if let Some(repo) = w.repo {
            q = q.bind(repo);
        }
        for kind in w.kinds {
            q = q.bind(kind);
        }
        q.bind(w.limit).fetch_all(c).await?
    }))
}

/// The events of `seqs`, oldest first.
pub async fn by_seqs(h: H<'_>, monorepo_id: &str, seqs: &[i64]) -> Result<Vec<EventRow>> {
    if seqs.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT seq, kind, repo, also_repos, collection, key, op, body, at FROM events
         WHERE monorepo_id = $1 AND seq IN ({}) ORDER BY seq",
        placeholders(2, seqs.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.as_str())).bind(monorepo_id);
        for seq in seqs {
            q = q.bind(seq);
        }
        q.fetch_all(c).await?
    }))
}

/// `meta.saved` events before `before`, newest first, of one path when `path` is not
/// empty.
pub async fn meta_history(
    h: H<'_>,
    monorepo_id: &str,
    path: &str,
    before: i64,
    limit: i64,
) -> Result<Vec<EventRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT seq, kind, repo, collection, key, op, body, at FROM events
         WHERE monorepo_id = $1 AND kind = 'meta.saved' AND seq < $2 AND ($3 = '' OR key = $3)
         ORDER BY seq DESC LIMIT $4",
    )
    .bind(monorepo_id).bind(before).bind(path).bind(limit).fetch_all(c).await?))
}
