//! The activity feed's live side: one tail per process reads lines as they land and
//! fans them out to sockets; a retention task keeps 7 days and at most 1,000,000 lines.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use svc_protocol::feed::{ActivityServerFrame, FeedDetails, FeedEvent};
use svc_protocol::needs::{FeedSummary, NeedRow};
use tokio::sync::{broadcast, watch};

use crate::needs;
use crate::state::AppState;
use crate::store::feed::{self, FeedRow};
use crate::store::{self, Store, now_ms, time_of};

/// Lines are kept this long...
pub const KEEP_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// ...and at most this many.
pub const KEEP_LINES: i64 = 1_000_000;
/// How often the retention task runs.
const PRUNE_EVERY: Duration = Duration::from_secs(10 * 60);
/// Lines one prune transaction removes, so feed writers never wait long.
const PRUNE_BATCH: i64 = 5_000;
/// Lines the tail reads per query.
const TAIL_BATCH: i64 = 500;
/// Lines a socket may fall behind the tail before it is closed rather than buffered.
const FANOUT_CAPACITY: usize = 1_024;

/// A line as it landed.
#[derive(Debug, Clone)]
pub struct Landed {
    pub landed: i64,
    pub event: FeedEvent,
}

/// The process's feed tail: every socket subscribes to it.
pub struct Hub {
    tx: broadcast::Sender<Arc<Landed>>,
}

impl Hub {
    /// Starts the tail: after each ring of `bell` it reads the lines that landed since
    /// the last read. Lines land in commit order (see [`feed::add_all`]), so `landed > last`
    /// misses none. Must run inside the runtime.
    pub fn start(store: Store, bell: watch::Receiver<u64>) -> Arc<Hub> {
        let (tx, _) = broadcast::channel(FANOUT_CAPACITY);
        tokio::spawn(tail(store, bell, tx.clone()));
        Arc::new(Hub { tx })
    }

    /// Lines landing from now on. A receiver that lags gets `Lagged`: close its socket.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Landed>> {
        self.tx.subscribe()
    }
}

async fn tail(store: Store, mut bell: watch::Receiver<u64>, tx: broadcast::Sender<Arc<Landed>>) {
    let mut last = loop {
        match read_top(&store).await {
            Ok(top) => break top,
            Err(e) => {
                tracing::error!(error = %e, "feed tail cannot start; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    };
    while bell.changed().await.is_ok() {
        loop {
            let rows = match store.read().await {
                Ok(mut conn) => feed::after(conn.h(), last, TAIL_BATCH).await,
                Err(e) => Err(e),
            };
            let rows = match rows {
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!(error = %e, "feed tail read failed; retrying on the next ring");
                    break;
                }
            };
            let full = rows.len() as i64 == TAIL_BATCH;
            for row in rows {
                last = row.landed;
                // No subscriber is not an error: the line is simply not wanted now.
                let _ = tx.send(Arc::new(landed_of(row)));
            }
            if !full {
                break;
            }
        }
    }
}

async fn read_top(store: &Store) -> crate::store::Result<i64> {
    let mut conn = store.read().await?;
    Ok(feed::counter(conn.h()).await?.0)
}

/// A stored line in its wire shape, labelled with its monorepo's current label.
pub fn event_of(row: FeedRow) -> FeedEvent {
    let details: FeedDetails = serde_json::from_str(&row.line).unwrap_or_else(|e| {
        tracing::warn!(landed = row.landed, error = %e, "unreadable feed line");
        FeedDetails::default()
    });
    FeedEvent {
        monorepo: format!("{}/{}", row.owner, row.name),
        monorepo_id: row.monorepo_id,
        seq: row.seq,
        n: row.n,
        kind: row.kind,
        at: time_of(row.at),
        actor: row.actor,
        details,
    }
}

pub fn landed_of(row: FeedRow) -> Landed {
    Landed {
        landed: row.landed,
        event: event_of(row),
    }
}

/// A line's place in the activity log: newest first by `(at, monorepo_id, seq)`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct DisplayKey {
    pub at: i64,
    pub monorepo_id: String,
    pub seq: i64,
}

impl DisplayKey {
    pub fn of(e: &FeedEvent) -> DisplayKey {
        DisplayKey {
            at: crate::store::ms_of(e.at),
            monorepo_id: e.monorepo_id.clone(),
            seq: e.seq,
        }
    }

    /// The opaque cursor: base64 of `at:seq:monorepo_id`.
    pub fn cursor(&self) -> String {
        URL_SAFE_NO_PAD.encode(format!("{}:{}:{}", self.at, self.seq, self.monorepo_id))
    }

    pub fn from_cursor(cursor: &str) -> Option<DisplayKey> {
        let raw = String::from_utf8(URL_SAFE_NO_PAD.decode(cursor).ok()?).ok()?;
        let mut parts = raw.splitn(3, ':');
        let at = parts.next()?.parse().ok()?;
        let seq = parts.next()?.parse().ok()?;
        let monorepo_id = parts.next()?.to_owned();
        Some(DisplayKey {
            at,
            monorepo_id,
            seq,
        })
    }

    /// For one monorepo's log, the `(at, seq)` its lines must be below to come after
    /// this key: the monorepo id breaks ties of `at`.
    pub fn bound_in(&self, monorepo_id: &str) -> (i64, i64) {
        match monorepo_id.cmp(self.monorepo_id.as_str()) {
            std::cmp::Ordering::Greater => (self.at, i64::MIN),
            std::cmp::Ordering::Equal => (self.at, self.seq),
            std::cmp::Ordering::Less => (self.at, i64::MAX),
        }
    }
}

/// The retention task: every 10 minutes, lines older than 7 days go, then the oldest
/// beyond 1,000,000, in small transactions.
pub async fn prune_forever(store: Store) {
    loop {
        if let Err(e) = prune(&store, now_ms() - KEEP_MS, KEEP_LINES).await {
            tracing::warn!(error = %e, "feed retention failed; retrying later");
        }
        tokio::time::sleep(PRUNE_EVERY).await;
    }
}

/// Removes lines before `older_than` and beyond the newest `keep`; answers how many.
pub async fn prune(store: &Store, older_than: i64, keep: i64) -> crate::store::Result<usize> {
    let mut total = 0;
    loop {
        let mut tx = store.begin().await?;
        let n = feed::prune_older(tx.h(), older_than, PRUNE_BATCH).await?;
        tx.commit().await?;
        total += n;
        if (n as i64) < PRUNE_BATCH {
            break;
        }
    }
    loop {
        let mut tx = store.begin().await?;
        let n = feed::prune_beyond(tx.h(), keep, PRUNE_BATCH).await?;
        tx.commit().await?;
        total += n;
        if (n as i64) < PRUNE_BATCH {
            break;
        }
    }
    Ok(total)
}

/// One periodic check of a person socket.
pub struct HomeTick<'a> {
    pub user_id: &'a str,
    /// The person's monorepos of 100 members or fewer: (id, label).
    pub small: &'a [(String, String)],
    /// Monorepos that crossed 100 members, either way, since the last check: (id, label).
    pub crossed: &'a [(String, String)],
}

/// What a person socket last told of each monorepo's summary line and needs-you rows,
/// so a check sends only what changed.
#[derive(Default)]
pub struct HomeSeen {
    seen: HashMap<String, (Option<FeedSummary>, Vec<NeedRow>)>,
    started: bool,
}

/// The `summary` and `needs` frames due on this check: small monorepos whose summary
/// line or needs-you rows changed since the last check, and every crossed monorepo.
/// The first check only takes the snapshot (the page was just loaded).
pub async fn home_frames(
    state: &AppState,
    tick: &HomeTick<'_>,
    seen: &mut HomeSeen,
) -> store::Result<Vec<ActivityServerFrame>> {
    let mut frames = Vec::new();
    let mut conn = state.store.read().await?;
    let ids: Vec<&str> = tick
        .small
        .iter()
        .chain(tick.crossed)
        .map(|(id, _)| id.as_str())
        .collect();
    let mut lines = needs::lines_of(conn.h(), state, tick.user_id, &ids).await?;
    let mut now = HashMap::new();
    for (id, label) in tick.small.iter().chain(tick.crossed) {
        if now.contains_key(id) {
            continue;
        }
        // A monorepo they can no longer read has no summary and no rows.
        let (summary, rows) = match lines.remove(id) {
            Some(line) => (Some(line.summary), line.rows),
            None => (None, Vec::new()),
        };
        let crossed = tick.crossed.iter().any(|(c, _)| c == id);
        let known = seen.seen.remove(id);
        // A monorepo first seen now was just joined: `joined` has the client refetch.
        let tell = seen.started && (crossed || known.is_some());
        let (old_summary, old_rows) = known.unwrap_or_default();
        if tell
            && (crossed || old_summary != summary)
            && let Some(summary) = summary.clone()
        {
            frames.push(ActivityServerFrame::Summary {
                monorepo: label.clone(),
                monorepo_id: id.clone(),
                summary,
            });
        }
        let (changed, more) = needs::changed(if crossed { &[] } else { &old_rows }, &rows);
        if tell && (!changed.is_empty() || more) {
            frames.push(ActivityServerFrame::Needs {
                monorepo: label.clone(),
                monorepo_id: id.clone(),
                changed,
                more,
            });
        }
        now.insert(id.clone(), (summary, rows));
    }
    seen.seen = now;
    seen.started = true;
    Ok(frames)
}
