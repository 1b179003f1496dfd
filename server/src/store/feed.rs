//! The activity feed: one line per activity event, written by [`super::events::append`]
//! in the event's own transaction.

use serde_json::Value;
use svc_protocol::feed::FeedDetails;

use super::events::NewEvent;
use super::{H, Result, on, placeholders};

/// A review excerpt on a line is at most this many characters.
const EXCERPT_CHARS: usize = 200;

/// The line an event makes, if it is an activity: the kinds of listActivity, a status
/// only when its state changed and a reported worktree only when it is new.
pub fn details_of(e: &NewEvent<'_>) -> Option<FeedDetails> {
    let activity = matches!(
        e.kind,
        "push"
            | "branch.opened"
            | "branch.deleted"
            | "merged"
            | "review"
            | "status"
            | "worktree.reported"
            | "worktree.removed"
            | "meta.saved"
            | "artifact_comment.added"
    );
    if !activity {
        return None;
    }
    let body: Value = serde_json::from_str(&e.body).ok()?;
    let flag = |k: &str| body[k].as_bool() == Some(true);
    if (e.kind == "status" && !flag("changed")) || (e.kind == "worktree.reported" && !flag("new")) {
        return None;
    }
    let row = &body["row"];
    let mentions: Vec<String> = row["mentions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str().map(str::to_owned))
        .collect();
    // A comment on an artifact is activity when it mentions someone: theirs to see.
    if e.kind == "artifact_comment.added" && mentions.is_empty() {
        return None;
    }
    let s = |v: &Value| v.as_str().map(str::to_owned);
    let mut d = FeedDetails {
        repo: e.repo.map(str::to_owned).or_else(|| s(&row["repo"])),
        ..FeedDetails::default()
    };
    match e.kind {
        "review" => {
            d.branch = s(&row["branch"]);
            d.state = s(&row["state"]);
            d.head = s(&row["head"]);
            d.review_id = row["id"].as_i64();
            d.excerpt = row["body"]
                .as_str()
                .map(|b| b.trim().chars().take(EXCERPT_CHARS).collect::<String>())
                .filter(|b| !b.is_empty());
        }
        "status" => {
            d.state = s(&row["state"]);
            d.context = s(&row["context"]);
            d.sha = s(&row["sha"]);
            d.target_url = s(&row["target_url"]);
        }
        // The presence work's worktree row; a top-level `machine`/`worktree` wins.
        "worktree.reported" | "worktree.removed" => {
            d.worktree = s(&body["worktree"]).or_else(|| s(&row["id"]));
            d.machine = s(&body["machine"]).or_else(|| s(&row["machine"]));
            d.branch = s(&row["branch"]);
        }
        "meta.saved" => d.path = s(&row["path"]),
        "artifact_comment.added" => {
            d.branch = s(&body["branch"]);
            d.path = s(&body["artifact_name"]);
            d.excerpt = row["body"]
                .as_str()
                .map(|b| b.trim().chars().take(EXCERPT_CHARS).collect::<String>());
            d.mentions = mentions;
        }
        // Branch moves: a branch row, or main's default_heads row on its first push.
        _ => {
            d.branch = s(&row["name"]).or_else(|| s(&row["default_branch"]));
            d.title = s(&row["title"]);
            d.before = s(&body["before"]);
            d.head = s(&body["head"]);
            d.commits = body["commits"].as_i64();
        }
    }
    Some(d)
}

/// Writes the lines of events of one monorepo, each with its `seq`, in order. Must run
/// in the events' transaction, after the monorepo's row was locked by the seq bump.
///
/// `landed` comes from the single `feed_counter` row, bumped with UPDATE ... RETURNING:
/// its row lock is held until commit, so on PostgreSQL feed writers serialize there and
/// lines become visible in `landed` order, letting a tail read `landed > last` without
/// missing one. (Lock order: monorepo row, then the counter.) Each counter is bumped
/// once for all the lines, which take the numbers up to it in order.
pub async fn add_all(h: H<'_>, lines: &[(&NewEvent<'_>, i64, FeedDetails)]) -> Result<()> {
    let Some((first, ..)) = lines.first() else {
        return Ok(());
    };
    let k = lines.len() as i64;
    let at = lines.iter().map(|(e, ..)| e.at).max().unwrap_or(first.at);
    let mut texts = Vec::with_capacity(lines.len());
    for (e, _, details) in lines {
        let line =
            serde_json::to_string(details).map_err(|e| super::Error::Setup(e.to_string()))?;
        let actor = serde_json::from_str::<Value>(&e.body)
            .ok()
            .and_then(|b| b["actor"].as_str().map(str::to_owned));
        texts.push((line, actor));
    }
    let rows = (0..lines.len())
        .map(|i| format!("({})", placeholders(1 + i * 8, 8)))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "INSERT INTO feed (landed, monorepo_id, seq, n, kind, actor, at, line) VALUES {rows}"
    );
    on!(h, c => {
        let n: i64 = sqlx::query_scalar(
            "UPDATE monorepos SET feed_n = feed_n + $3,
               feed_at = CASE WHEN feed_at > $2 THEN feed_at ELSE $2 END
             WHERE id = $1 RETURNING feed_n",
        )
        .bind(first.monorepo_id).bind(at).bind(k).fetch_one(&mut *c).await?;
        let landed: i64 = sqlx::query_scalar(
            "UPDATE feed_counter SET landed = landed + $1 WHERE id = 1 RETURNING landed",
        )
        .bind(k).fetch_one(&mut *c).await?;
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
        for (i, ((e, seq, _), (line, actor))) in lines.iter().zip(&texts).enumerate() {
            let i = i as i64;
            q = q.bind(landed - k + 1 + i).bind(e.monorepo_id).bind(*seq).bind(n - k + 1 + i)
                .bind(e.kind).bind(actor).bind(e.at).bind(line);
        }
        q.execute(&mut *c).await?.rows_affected()
    });
    Ok(())
}

/// A stored line with its monorepo's current label.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct FeedRow {
    pub landed: i64,
    pub monorepo_id: String,
    pub seq: i64,
    pub n: i64,
    pub kind: String,
    pub actor: Option<String>,
    pub at: i64,
    pub line: String,
    pub owner: String,
    pub name: String,
}

const SELECT: &str = "SELECT f.landed, f.monorepo_id, f.seq, f.n, f.kind, f.actor, f.at, f.line,
    m.owner, m.name FROM feed f JOIN monorepos m ON m.id = f.monorepo_id";

/// The highest `landed` written so far and the highest the retention task removed.
pub async fn counter(h: H<'_>) -> Result<(i64, i64)> {
    Ok(
        on!(h, c => sqlx::query_as("SELECT landed, pruned FROM feed_counter WHERE id = 1")
        .fetch_one(c).await?),
    )
}

/// One monorepo's lines before `(at, seq)`, newest first.
pub async fn older(
    h: H<'_>,
    monorepo_id: &str,
    at: i64,
    seq: i64,
    limit: i64,
) -> Result<Vec<FeedRow>> {
    let sql = format!(
        "{SELECT} WHERE f.monorepo_id = $1 AND (f.at < $2 OR (f.at = $2 AND f.seq < $3))
         ORDER BY f.at DESC, f.seq DESC LIMIT $4"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(monorepo_id).bind(at).bind(seq).bind(limit).fetch_all(c).await?))
}

/// Lines of the given monorepos that landed in `(since, through]`, in landed order.
pub async fn landed_between(
    h: H<'_>,
    since: i64,
    through: i64,
    monorepo_ids: &[String],
    limit: i64,
) -> Result<Vec<FeedRow>> {
    if monorepo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = super::placeholders(4, monorepo_ids.len());
    let sql = format!(
        "{SELECT} WHERE f.landed > $1 AND f.landed <= $2 AND f.monorepo_id IN ({list})
         ORDER BY f.landed LIMIT $3"
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(since).bind(through).bind(limit);
        for id in monorepo_ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

/// Every line that landed after `since`, in landed order: the live tail.
pub async fn after(h: H<'_>, since: i64, limit: i64) -> Result<Vec<FeedRow>> {
    let sql = format!("{SELECT} WHERE f.landed > $1 ORDER BY f.landed LIMIT $2");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(since).bind(limit).fetch_all(c).await?))
}

/// A monorepo of a person, for the feed: its label, latest activity and size.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PersonMonorepo {
    pub id: String,
    pub owner: String,
    pub name: String,
    /// When its latest line happened (0: none yet).
    pub feed_at: i64,
    pub members: i64,
}

impl PersonMonorepo {
    pub fn label(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

/// The user's monorepos (by membership and by organization), most recently active
/// first; `members` counts everyone who can open each: own rows, plus the owning org's
/// people without one. That count is written out rather than read from
/// `monorepo_access`, because SQLite does not push a condition on the outer row into
/// the view and would read the whole view for every monorepo.
pub async fn person_monorepos(h: H<'_>, user_id: &str) -> Result<Vec<PersonMonorepo>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT m.id, m.owner, m.name, m.feed_at,
           (SELECT COUNT(*) FROM memberships x WHERE x.monorepo_id = m.id)
           + (SELECT COUNT(*) FROM org_members o WHERE o.org = m.owner AND NOT EXISTS
                (SELECT 1 FROM memberships y WHERE y.monorepo_id = m.id AND y.user_id = o.user_id))
             AS members
         FROM (SELECT DISTINCT monorepo_id FROM monorepo_access WHERE user_id = $1) a
         JOIN monorepos m ON m.id = a.monorepo_id
         ORDER BY m.feed_at DESC, m.id",
    )
    .bind(user_id).fetch_all(c).await?))
}

/// Removes up to `batch` lines older than `at`; answers how many went.
pub async fn prune_older(mut h: H<'_>, at: i64, batch: i64) -> Result<usize> {
    let gone: Vec<i64> = on!(h.reborrow(), c => sqlx::query_scalar(
        "DELETE FROM feed WHERE landed IN
           (SELECT landed FROM feed WHERE at < $1 ORDER BY at LIMIT $2) RETURNING landed",
    )
    .bind(at).bind(batch).fetch_all(c).await?);
    mark_pruned(h, &gone).await?;
    Ok(gone.len())
}

/// Removes up to `batch` of the oldest lines beyond the newest `keep`; answers how
/// many went.
pub async fn prune_beyond(mut h: H<'_>, keep: i64, batch: i64) -> Result<usize> {
    let gone: Vec<i64> = on!(h.reborrow(), c => sqlx::query_scalar(
        "DELETE FROM feed WHERE landed IN
           (SELECT landed FROM feed WHERE landed <=
              (SELECT landed FROM feed ORDER BY landed DESC LIMIT 1 OFFSET $1)
            ORDER BY landed LIMIT $2) RETURNING landed",
    )
    .bind(keep).bind(batch).fetch_all(c).await?);
    mark_pruned(h, &gone).await?;
    Ok(gone.len())
}

/// Raises the pruned mark to the highest of `gone`, so replays from before it resync.
async fn mark_pruned(h: H<'_>, gone: &[i64]) -> Result<()> {
    let Some(top) = gone.iter().max() else {
        return Ok(());
    };
    on!(h, c => sqlx::query(
        "UPDATE feed_counter SET pruned = CASE WHEN pruned > $1 THEN pruned ELSE $1 END WHERE id = 1",
    )
    .bind(top).execute(c).await?.rows_affected());
    Ok(())
}

/// The monorepo's latest line number on its `feed` topic (0 before any).
pub async fn last_n(h: H<'_>, monorepo_id: &str) -> Result<i64> {
    Ok(
        on!(h, c => sqlx::query_scalar("SELECT feed_n FROM monorepos WHERE id = $1")
        .bind(monorepo_id).fetch_optional(c).await?.unwrap_or(0)),
    )
}

/// One monorepo's lines numbered in `(since, through]`, in `n` order.
pub async fn numbered_between(
    h: H<'_>,
    monorepo_id: &str,
    since: i64,
    through: i64,
) -> Result<Vec<FeedRow>> {
    let sql = format!("{SELECT} WHERE f.monorepo_id = $1 AND f.n > $2 AND f.n <= $3 ORDER BY f.n");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(monorepo_id).bind(since).bind(through).fetch_all(c).await?))
}
