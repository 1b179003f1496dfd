//! listActivity (`GET /v1/events`): the activity log across a person's monorepos, as
//! JSON pages or, upgraded, the person's activity socket.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use svc_protocol::ErrorCode;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequestParts, State};
use axum::http::header;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::event::close;
use svc_protocol::feed::{
    ActivityClientFrame, ActivityPage, ActivityServerFrame, ContributionKind, FeedEvent,
};
use tokio::sync::broadcast::error::RecvError;

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Query, page_limit};
use crate::feed::{self, DisplayKey, HomeTick, Landed};
use crate::state::AppState;
use crate::store::feed::{self as lines, PersonMonorepo};
use crate::store::{H, monorepos, ms_of, now_ms};

/// Monorepo logs one page reads at most; the rest are named in `skipped`.
pub const LOGS_PER_PAGE: usize = 20;
/// Lines per page by default, and at most.
const DEFAULT_LIMIT: i64 = 50;
const MAX_LIMIT: i64 = 200;
/// Labels `in` may name.
const MAX_IN: usize = 100;
/// Lines a hello replays at most; past it, one `resync`.
pub const REPLAY_MAX: i64 = 500;
/// Over this many members, a monorepo's lines go to its own event socket instead.
pub const LARGE_MEMBERS: i64 = 100;
/// How often the socket checks the person's monorepos (joined, left, renamed, crossed).
const CHECK_EVERY: Duration = Duration::from_secs(10);
/// `contributed` covers work of this recent past.
const CONTRIBUTED_MS: i64 = 2 * 24 * 60 * 60 * 1000;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ActivityQuery {
    /// A page's `next`: lines older than its last.
    pub(crate) cursor: Option<String>,
    /// Only these monorepos: labels `a/b,c/d` (old labels resolve).
    #[serde(rename = "in")]
    #[param(rename = "in")]
    pub(crate) only: Option<String>,
    /// Lines per page, 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub(crate) limit: Option<i64>,
}

/// The upgrade when the request asks for one.
pub struct MaybeUpgrade(Option<WebSocketUpgrade>);

impl FromRequestParts<AppState> for MaybeUpgrade {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Self> {
        if !parts.headers.contains_key(header::UPGRADE) {
            return Ok(MaybeUpgrade(None));
        }
        WebSocketUpgrade::from_request_parts(parts, state)
            .await
            .map(|ws| MaybeUpgrade(Some(ws)))
            .map_err(|e| ApiError::bad_request(ErrorCode::BadUpgrade, e.body_text()))
    }
}

/// The activity log, newest first by `(at, monorepo, seq)`; with `Upgrade: websocket`,
/// the person's activity socket.
#[utoipa::path(get, path = "/v1/events", operation_id = "listActivity", tag = "events",
    params(ActivityQuery),
    responses((status = 200, body = ActivityPage), (status = 101, description = "the person's activity socket: `ActivityServerFrame` frames out, `ActivityClientFrame` frames in"),
        (status = 400, body = ApiErrorBody), (status = 401, body = ApiErrorBody), (status = 403, body = ApiErrorBody, description = "bad_origin")))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    MaybeUpgrade(ws): MaybeUpgrade,
    Query(q): Query<ActivityQuery>,
) -> ApiResult<Response> {
    if let Some(ws) = ws {
        return Ok(ws
            .on_upgrade(move |socket| person_socket(state, caller, socket))
            .into_response());
    }
    Ok(Json(page(&state, &caller, q).await?).into_response())
}

pub(crate) async fn page(
    state: &AppState,
    caller: &Caller,
    q: ActivityQuery,
) -> ApiResult<ActivityPage> {
    let limit = page_limit(q.limit, DEFAULT_LIMIT, MAX_LIMIT)?;
    let cursor = match q.cursor.as_deref() {
        None | Some("") => None,
        Some(c) => Some(DisplayKey::from_cursor(c).ok_or_else(|| {
            ApiError::bad_request(ErrorCode::BadCursor, "cursor is not a `next` of this log")
        })?),
    };
    let mut conn = state.store.read().await?;
    let horizon = now_ms() - feed::KEEP_MS;
    let mut active: Vec<PersonMonorepo> = lines::person_monorepos(conn.h(), &caller.user_id)
        .await?
        .into_iter()
        .filter(|m| m.feed_at > 0 && m.feed_at >= horizon)
        .collect();
    if let Some(only) = q.only.as_deref() {
        let wanted = resolve_labels(conn.h(), only).await?;
        active.retain(|m| wanted.contains(&m.id));
    }
    let skipped = active
        .split_off(active.len().min(LOGS_PER_PAGE))
        .iter()
        .map(PersonMonorepo::label)
        .collect();
    let mut items: Vec<FeedEvent> = Vec::new();
    for m in &active {
        let (at, seq) = cursor
            .as_ref()
            .map_or((i64::MAX, i64::MAX), |k| k.bound_in(&m.id));
        let rows = lines::older(conn.h(), &m.id, at, seq, limit + 1).await?;
        items.extend(rows.into_iter().map(feed::event_of));
    }
    items.sort_by_cached_key(|e| std::cmp::Reverse(DisplayKey::of(e)));
    let more = items.len() as i64 > limit;
    items.truncate(usize::try_from(limit).unwrap_or(0));
    let next = more
        .then(|| items.last().map(|e| DisplayKey::of(e).cursor()))
        .flatten();
    Ok(ActivityPage {
        items,
        next,
        skipped,
    })
}

/// The ids of the monorepos `a/b,c/d` names; labels that name nothing are left out
/// (the caller's own monorepos are filtered afterwards, so nothing leaks).
async fn resolve_labels(mut h: H<'_>, only: &str) -> ApiResult<HashSet<String>> {
    let labels: Vec<&str> = only
        .split(',')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if labels.len() > MAX_IN {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("`in` names at most {MAX_IN} monorepos"),
        ));
    }
    let mut ids = HashSet::new();
    for label in labels {
        let Some((owner, name)) = label.split_once('/') else {
            return Err(ApiError::bad_request(
                ErrorCode::BadRequest,
                format!("`in` takes monorepo labels like owner/name, not {label:?}"),
            ));
        };
        let (owner, name) = (owner.to_ascii_lowercase(), name.to_ascii_lowercase());
        if let Some(m) = monorepos::by_label(h.reborrow(), &owner, &name).await? {
            ids.insert(m.id);
        }
    }
    Ok(ids)
}

/// Why a socket of a revoked credential closes.
const REVOKED: &str = "the credential was revoked";

/// A monorepo the socket follows: its label and whether it is large.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Followed {
    label: String,
    large: bool,
}

/// The person's activity socket.
async fn person_socket(state: AppState, caller: Caller, socket: WebSocket) {
    // Subscribe before anything is read, so no line falls between a replay and live.
    let live = state.feed.subscribe();
    let opened = state.credentials.sockets.open(&caller.credential_id);
    let mut s = PersonSocket {
        gate: opened.gate.clone(),
        state,
        caller,
        socket,
        followed: HashMap::new(),
        caught_up: None,
        home: feed::HomeSeen::default(),
    };
    if let Err(e) = s.run(live).await {
        tracing::debug!(error = %e, "activity socket ended");
    }
    drop(opened);
}

struct PersonSocket {
    /// Every frame goes through it: shut, the credential was revoked.
    gate: Arc<crate::socket_gate::Gate>,
    state: AppState,
    caller: Caller,
    socket: WebSocket,
    followed: HashMap<String, Followed>,
    /// Set by a hello: live lines above it go out.
    caught_up: Option<i64>,
    /// What the summary and needs frames last told.
    home: feed::HomeSeen,
}

/// Why a socket stopped: it closed, or a frame could not be sent or read.
type SocketResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

impl PersonSocket {
    async fn run(
        &mut self,
        mut live: tokio::sync::broadcast::Receiver<Arc<Landed>>,
    ) -> SocketResult {
        self.followed = load(&self.state, &self.caller.user_id).await?;
        // The first check takes the snapshot later checks send changes against.
        self.check_home(&[]).await?;
        let mut check = tokio::time::interval(CHECK_EVERY);
        check.tick().await;
        // Someone's access changed: check now rather than at the next tick.
        let mut access = self.state.live.access_bell();
        let gate = self.gate.clone();
        loop {
            tokio::select! {
                () = gate.shut() => return self.revoked().await,
                msg = self.socket.recv() => match msg {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return Ok(()),
                    Some(Ok(Message::Text(text))) => self.on_text(text.as_str()).await?,
                    Some(Ok(Message::Binary(_))) => self.error("binary frames are not understood").await?,
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                },
                line = live.recv() => match line {
                    Ok(line) => self.on_line(&line).await?,
                    Err(RecvError::Lagged(_)) => {
                        let frame = CloseFrame { code: close::TOO_SLOW, reason: "too far behind; reconnect with since".into() };
                        self.socket.send(Message::Close(Some(frame))).await?;
                        return Ok(());
                    }
                    Err(RecvError::Closed) => return Ok(()),
                },
                _ = check.tick() => self.check().await?,
                Ok(()) = access.changed() => self.check().await?,
            }
        }
    }

    async fn send(&mut self, frame: &ActivityServerFrame) -> SocketResult {
        let text = serde_json::to_string(frame)?;
        self.send_text(text).await
    }

    /// Writes one text frame through the gate.
    async fn send_text(&mut self, text: String) -> SocketResult {
        let Some(_writing) = self.gate.enter().await else {
            return Err(REVOKED.into());
        };
        self.socket.send(Message::Text(text.into())).await?;
        Ok(())
    }

    /// Closes with 4403: the credential was revoked.
    async fn revoked(&mut self) -> SocketResult {
        let frame = CloseFrame {
            code: close::ACCESS_LOST,
            reason: REVOKED.into(),
        };
        self.socket.send(Message::Close(Some(frame))).await?;
        Err(REVOKED.into())
    }

    async fn error(&mut self, message: &str) -> SocketResult {
        self.send(&ActivityServerFrame::Error {
            message: message.to_owned(),
        })
        .await
    }

    async fn on_text(&mut self, text: &str) -> SocketResult {
        if text == "ping" {
            return self.send_text("pong".to_owned()).await;
        }
        match serde_json::from_str::<ActivityClientFrame>(text) {
            Ok(ActivityClientFrame::Hello { since }) => self.hello(since).await,
            Err(e) => {
                self.error(&format!(
                    "not understood ({e}): send {{\"type\":\"hello\",\"since\":<landed>}} or ping"
                ))
                .await
            }
        }
    }

    /// Replays the small monorepos' lines after `since` (at most 500, else `resync`),
    /// then `caught_up`.
    async fn hello(&mut self, since: Option<i64>) -> SocketResult {
        let mut conn = self.state.store.read().await?;
        let (top, pruned) = lines::counter(conn.h()).await?;
        if let Some(since) = since.filter(|s| *s < top) {
            let small: Vec<String> = self
                .followed
                .iter()
                .filter(|(_, f)| !f.large)
                .map(|(id, _)| id.clone())
                .collect();
            let rows = if since < pruned {
                None
            } else {
                let rows =
                    lines::landed_between(conn.h(), since, top, &small, REPLAY_MAX + 1).await?;
                (rows.len() as i64 <= REPLAY_MAX).then_some(rows)
            };
            drop(conn);
            match rows {
                None => {
                    self.send(&ActivityServerFrame::Resync { landed: top })
                        .await?
                }
                Some(rows) => {
                    for row in rows {
                        let l = feed::landed_of(row);
                        self.send(&ActivityServerFrame::Event {
                            landed: l.landed,
                            event: Box::new(l.event),
                        })
                        .await?;
                    }
                }
            }
        }
        self.caught_up = Some(top);
        self.send(&ActivityServerFrame::CaughtUp { landed: top })
            .await
    }

    /// A line landed: the event for a followed small monorepo, after the hello's
    /// replay; `contributed` for the person's own recent work anywhere they belong.
    /// Nothing goes out before the hello is answered.
    async fn on_line(&mut self, line: &Landed) -> SocketResult {
        let Some(f) = self.followed.get(&line.event.monorepo_id) else {
            return Ok(());
        };
        let large = f.large;
        let e = &line.event;
        // Only lines that land after the hello's replay: the client read the rest.
        let fresh = self.caught_up.is_some_and(|top| line.landed > top);
        if fresh
            && e.actor.as_deref() == Some(self.caller.login.as_str())
            && ms_of(e.at) > now_ms() - CONTRIBUTED_MS
        {
            for (kind, n) in contributions(e) {
                self.send(&ActivityServerFrame::Contributed {
                    monorepo: e.monorepo.clone(),
                    monorepo_id: e.monorepo_id.clone(),
                    hour: hour_of(e),
                    kind,
                    n,
                })
                .await?;
            }
        }
        if !large && fresh {
            self.send(&ActivityServerFrame::Event {
                landed: line.landed,
                event: Box::new(line.event.clone()),
            })
            .await?;
        }
        Ok(())
    }

    /// Takes the person's monorepos as they are now, sending `joined` and `left`;
    /// answers those that crossed 100 members either way.
    async fn announce(
        &mut self,
        now: HashMap<String, Followed>,
    ) -> Result<Vec<(String, String)>, Box<dyn std::error::Error + Send + Sync>> {
        let mut frames = Vec::new();
        let mut crossed = Vec::new();
        for (id, f) in &self.followed {
            if !now.contains_key(id) {
                frames.push(ActivityServerFrame::Left {
                    monorepo: f.label.clone(),
                    monorepo_id: id.clone(),
                });
            }
        }
        for (id, f) in &now {
            match self.followed.get(id) {
                None => frames.push(ActivityServerFrame::Joined {
                    monorepo: f.label.clone(),
                    monorepo_id: id.clone(),
                    large: f.large,
                }),
                Some(old) if old.large != f.large => crossed.push((id.clone(), f.label.clone())),
                Some(_) => {}
            }
        }
        self.followed = now;
        for frame in &frames {
            self.send(frame).await?;
        }
        Ok(crossed)
    }

    /// The periodic check: membership changes, then the home helpers' frames.
    async fn check(&mut self) -> SocketResult {
        if !credential_live(&self.state, &self.caller.credential_id).await? {
            return self.revoked().await;
        }
        let now = load(&self.state, &self.caller.user_id).await?;
        let crossed = self.announce(now).await?;
        self.check_home(&crossed).await
    }

    /// Sends the summary and needs frames due now.
    async fn check_home(&mut self, crossed: &[(String, String)]) -> SocketResult {
        let small: Vec<(String, String)> = self
            .followed
            .iter()
            .filter(|(_, f)| !f.large)
            .map(|(id, f)| (id.clone(), f.label.clone()))
            .collect();
        let tick = HomeTick {
            user_id: &self.caller.user_id,
            small: &small,
            crossed,
        };
        let frames = feed::home_frames(&self.state, &tick, &mut self.home).await?;
        for frame in &frames {
            self.send(frame).await?;
        }
        Ok(())
    }
}

/// True while the socket's credential is neither revoked nor expired.
async fn credential_live(state: &AppState, id: &str) -> Result<bool, crate::store::Error> {
    let mut conn = state.store.read().await?;
    let ids = [id.to_owned()];
    let live = crate::store::credentials::live_ids(conn.h(), &ids, now_ms()).await?;
    Ok(!live.is_empty())
}

/// The person's monorepos now. (A free function: `&PersonSocket` is not `Send`.)
async fn load(
    state: &AppState,
    user_id: &str,
) -> Result<HashMap<String, Followed>, crate::store::Error> {
    let mut conn = state.store.read().await?;
    Ok(lines::person_monorepos(conn.h(), user_id)
        .await?
        .into_iter()
        .map(|m| {
            let f = Followed {
                label: m.label(),
                large: m.members > LARGE_MEMBERS,
            };
            (m.id, f)
        })
        .collect())
}

/// What a line of the person's own work counts: a push's commits, an opened branch
/// (and the commits it brought), a review.
fn contributions(e: &FeedEvent) -> Vec<(ContributionKind, i64)> {
    let commits = e.details.commits.filter(|n| *n > 0);
    match e.kind.as_str() {
        "push" => commits
            .map(|n| (ContributionKind::Commit, n))
            .into_iter()
            .collect(),
        "branch.opened" => std::iter::once((ContributionKind::Branch, 1))
            .chain(commits.map(|n| (ContributionKind::Commit, n)))
            .collect(),
        "review" => vec![(ContributionKind::Review, 1)],
        _ => Vec::new(),
    }
}

/// The UTC hour of a line, `YYYY-MM-DDTHH`.
fn hour_of(e: &FeedEvent) -> String {
    let t = e.at.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour()
    )
}
