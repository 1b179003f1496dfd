//! The monorepo event stream: JSON pages, or a WebSocket on the same path.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::event::Event;

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query, Upgrade, page_limit};
use crate::live::socket;
use crate::live::topics::Topics;
use crate::paths::MonorepoPath;
use crate::state::AppState;
use crate::store::events::{self, EventRow, Window};
use crate::views::event;

/// Most events one page answers.
pub const MAX_LIMIT: i64 = 500;
/// Most kinds one pull may name.
pub const MAX_KINDS: usize = 20;
/// Rows a filtered pull reads at most.
pub const SCAN_ROWS: i64 = 5_000;

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct PullQuery {
    /// Events after this seq; without it, the latest `limit`.
    since: Option<i64>,
    /// At most 500 (the default).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<i64>,
    /// Only events before this seq.
    before: Option<i64>,
    /// Only this repo's events (`meta` for the meta layer).
    repo: Option<String>,
    /// Only these kinds, comma-separated (at most 20).
    kinds: Option<String>,
    /// Topics, comma-separated (at most 10), matched over at most 5,000 rows.
    topics: Option<String>,
    /// Socket only: with the `feed` topic, activity lines after this number.
    feed_since: Option<i64>,
}

#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct EventPage {
    pub items: Vec<Event>,
    /// The monorepo's latest seq.
    pub seq: i64,
    /// Pass as `since` to read on: the newest seq this page looked at.
    pub next_since: i64,
    /// Pass as `before` to read back: the oldest seq this page looked at (null at the
    /// start of the log).
    pub next_before: Option<i64>,
}

/// The monorepo event stream. Without `Upgrade`, events oldest first: after `since`, or
/// the latest `limit`. With `Upgrade: websocket`, the live socket: catch-up after `since`
/// (at most 500, else `resync`), `caught_up`, then live `event` frames; `ping` → `pong`;
/// `hello` for presence; close 4404 when the monorepo is deleted, 4403 when access is lost.
///
/// Besides the specification's collections, `members`: `member.updated` (upsert, key the
/// login, row a `Member` as listMembers shows it) when someone is added, their role
/// changes, an invite of theirs is accepted or (in an org's monorepo) the org's people
/// change, and `member.removed` (delete, row `{login}`) when they can no longer open it.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/events", operation_id = "pullEvents", tag = "events",
    params(MonorepoPath, PullQuery),
    responses((status = 200, body = EventPage), (status = 101, description = "WebSocket: `ServerFrame` frames out, `ClientFrame` frames in"),
        (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 501, body = ApiErrorBody, description = "event_stream_on_hold")))]
pub async fn pull(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Query(q): Query<PullQuery>,
    Upgrade(upgrade): Upgrade,
) -> ApiResult<Response> {
    let access = {
        let mut conn = state.store.read().await?;
        path.access(conn.h(), &caller, Need::Read).await?
    };
    if !state.config.event_stream {
        return Err(ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            ErrorCode::EventStreamOnHold,
            "the event stream is switched off on this server; use heads and the lists",
        ));
    }
    let topics = Topics::parse(q.topics.as_deref())
        .map_err(|m| ApiError::bad_request(ErrorCode::BadRequest, m))?;
    if let Some(ws) = upgrade {
        let params = socket::Params {
            since: q.since,
            topics,
            feed_since: q.feed_since,
        };
        return Ok(socket::upgrade(ws)
            .on_upgrade(move |ws| socket::serve(state, ws, access, caller, params))
            .into_response());
    }
    if topics.feed() {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "the feed topic is for sockets; read activity lines with GET /v1/events",
        ));
    }
    let limit = page_limit(q.limit, MAX_LIMIT, MAX_LIMIT)?;
    let kinds: Vec<String> = q
        .kinds
        .as_deref()
        .map(|k| {
            k.split(',')
                .map(str::trim)
                .filter(|k| !k.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if kinds.len() > MAX_KINDS {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("at most {MAX_KINDS} kinds, not {}", kinds.len()),
        ));
    }
    let mut conn = state.store.read().await?;
    let id = &access.monorepo.id;
    let seq = events::last_seq(conn.h(), id).await?;
    let upto = match q.before {
        Some(before) => before.saturating_sub(1).min(seq),
        None => seq,
    };
    let filtered = !topics.all() || q.repo.is_some() || !kinds.is_empty();
    let span = if filtered { SCAN_ROWS } else { limit };
    let (from, to, newest_first) = match q.since {
        Some(since) => (
            since.max(0),
            upto.min(since.max(0).saturating_add(span)),
            false,
        ),
        None => (upto.saturating_sub(span).max(0), upto, true),
    };
    let window = Window {
        from,
        to,
        repo: q.repo.as_deref(),
        kinds: &kinds,
        newest_first,
        limit: if topics.all() { limit } else { span },
        with_body: topics.all(),
    };
    let rows = if to > from {
        events::window(conn.h(), id, &window).await?
    } else {
        Vec::new()
    };
    let mut rows: Vec<EventRow> = rows
        .into_iter()
        .filter(|r| {
            topics.matches(crate::live::topics::EventMeta {
                kind: &r.kind,
                collection: &r.collection,
                repo: r.repo.as_deref(),
                also_repos: r.also_repos.as_deref(),
                key: &r.key,
            })
        })
        .take(usize::try_from(limit).unwrap_or(0))
        .collect();
    if !topics.all() {
        let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
        rows = events::by_seqs(conn.h(), id, &seqs).await?;
        if newest_first {
            rows.reverse();
        }
    }
    let full = rows.len() as i64 == limit;
    if newest_first {
        rows.reverse();
    }
    // A full page stops at its last item; otherwise the whole window was looked at.
    let (next_since, oldest) = match (full, newest_first) {
        (true, false) => (rows.last().map_or(to, |r| r.seq), from.saturating_add(1)),
        (true, true) => (to, rows.first().map_or(from.saturating_add(1), |r| r.seq)),
        (false, _) => (to, from.saturating_add(1)),
    };
    let label = access.monorepo.label();
    let items = rows
        .into_iter()
        .map(|row| event(&label, id, row).map_err(ApiError::internal))
        .collect::<ApiResult<_>>()?;
    Ok(Json(EventPage {
        items,
        seq,
        next_since: next_since.max(from),
        next_before: (oldest > 1).then_some(oldest),
    })
    .into_response())
}
