//! One monorepo event socket: catch-up, `caught_up`, live events by topic, presence
//! hellos, `ping`, and the close codes of [`svc_protocol::event::close`].

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};

use futures_util::SinkExt;
use svc_protocol::event::{ClientFrame, ServerFrame, close};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use super::Msg;
use super::topics::Topics;
use crate::auth::Caller;
use crate::authz::Access;
use crate::presence::{self, HelloError};
use crate::socket_gate::Gate;
use crate::state::AppState;
use crate::store::events;
use crate::store::feed as lines;

/// Most events a catch-up sends before it answers `resync` instead.
pub const CATCH_UP_MAX: i64 = 500;
/// Live messages one wake-up writes at most before flushing.
const BATCH: usize = 64;
/// Bytes queued before a write goes out on its own: frames of one wake-up share a write.
const WRITE_BUFFER: usize = 16 * 1024;
/// A socket that cannot take a frame for this long is dropped.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// Client frames are small: a hello with 1,000 ids of 64 characters fits well.
const MAX_CLIENT_FRAME: usize = 256 * 1024;

/// What the upgrade asked for.
#[derive(Debug, Clone)]
pub struct Params {
    pub since: Option<i64>,
    pub topics: Topics,
    pub feed_since: Option<i64>,
}

/// The upgrade with buffers sized for many mostly idle sockets.
pub fn upgrade(ws: WebSocketUpgrade) -> WebSocketUpgrade {
    ws.read_buffer_size(4 * 1024)
        .write_buffer_size(WRITE_BUFFER)
        .max_message_size(MAX_CLIENT_FRAME)
        .max_frame_size(MAX_CLIENT_FRAME)
}

/// Why a socket ends early.
enum End {
    /// The peer went away or the connection failed.
    Gone,
    /// Close with this code and reason.
    Close(u16, &'static str),
}

impl From<axum::Error> for End {
    fn from(_: axum::Error) -> End {
        End::Gone
    }
}

/// Serves one socket until either side ends it.
pub async fn serve(state: AppState, ws: WebSocket, access: Access, caller: Caller, params: Params) {
    let session = presence::Session {
        socket_id: crate::token::new_id("s_"),
        monorepo_id: access.monorepo.id.clone(),
        user_id: caller.user_id.clone(),
        login: caller.login.clone(),
        credential_id: caller.credential_id.clone(),
        credential_name: caller.credential_name.clone(),
    };
    let opened = state.credentials.sockets.open(&caller.credential_id);
    let mut socket = Socket {
        gate: opened.gate.clone(),
        state,
        ws,
        caller,
        params,
        session,
        said_hello: false,
        sent: 0,
        feed_sent: 0,
    };
    let end = socket.run(&access).await;
    drop(opened);
    if socket.said_hello {
        presence::closed(&socket.state, &socket.session).await;
    }
    if let Err(End::Close(code, reason)) = end {
        let frame = CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        };
        let _ =
            tokio::time::timeout(SEND_TIMEOUT, socket.ws.send(Message::Close(Some(frame)))).await;
    }
}

/// The close of a socket whose credential was revoked.
const REVOKED: End = End::Close(close::ACCESS_LOST, "the credential was revoked");

struct Socket {
    /// Every frame goes through it: shut, the credential was revoked.
    gate: std::sync::Arc<Gate>,
    state: AppState,
    ws: WebSocket,
    caller: Caller,
    params: Params,
    session: presence::Session,
    said_hello: bool,
    /// The highest seq this socket has been given (or skipped by topic).
    sent: i64,
    /// With the `feed` topic: the highest line number given.
    feed_sent: i64,
}

impl Socket {
    async fn run(&mut self, access: &Access) -> Result<(), End> {
        let monorepo = &access.monorepo;
        let mut sub = self
            .state
            .live
            .subscribe(
                &monorepo.id,
                &monorepo.label(),
                &self.caller.user_id,
                &self.caller.credential_id,
            )
            .await
            .map_err(|_| End::Close(1011, "cannot open the live stream"))?;
        // Subscribed before the catch-up reads, so no line falls in between.
        let mut feed = self
            .params
            .topics
            .feed()
            .then(|| self.state.feed.subscribe());
        self.catch_up(access).await?;
        let gate = self.gate.clone();
        loop {
            tokio::select! {
                () = gate.shut() => return Err(REVOKED),
                incoming = self.ws.recv() => match incoming {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return Err(End::Gone),
                    Some(Ok(Message::Text(text))) => self.on_text(&text).await?,
                    Some(Ok(Message::Binary(_))) => self.error("binary frames are not understood; send JSON text").await?,
                    Some(Ok(_)) => {}
                },
                line = next_line(&mut feed) => match line {
                    Ok(line) => self.on_line(&monorepo.id, &line).await?,
                    Err(RecvError::Lagged(_)) => {
                        return Err(End::Close(close::TOO_SLOW, "too far behind; reconnect with feed_since"));
                    }
                    Err(RecvError::Closed) => return Err(End::Close(1012, "the server is restarting")),
                },
                msg = sub.rx.recv() => self.on_live(msg, &mut sub.rx).await?,
            }
        }
    }

    /// Events after `since` (or a `resync`), then `caught_up`.
    async fn catch_up(&mut self, access: &Access) -> Result<(), End> {
        let id = &access.monorepo.id;
        let label = access.monorepo.label();
        let failed = |_: crate::store::Error| End::Close(1011, "cannot read the event log");
        let mut conn = self.state.store.read().await.map_err(failed)?;
        let last = events::last_seq(conn.h(), id).await.map_err(failed)?;
        self.sent = last;
        let mut frames = Vec::new();
        match self.params.since.map(|s| s.max(0)) {
            None => {}
            Some(since) if since > last || last - since > CATCH_UP_MAX => {
                let oldest_seq = events::oldest_seq(conn.h(), id).await.map_err(failed)?;
                frames.push(frame(&ServerFrame::Resync {
                    seq: last,
                    oldest_seq,
                }));
            }
            Some(since) => {
                let rows = events::after(conn.h(), id, since, CATCH_UP_MAX)
                    .await
                    .map_err(failed)?;
                for row in rows {
                    self.sent = self.sent.max(row.seq);
                    let event = super::render(&label, id, row)
                        .map_err(|_| End::Close(1011, "cannot render an event"))?;
                    if self.params.topics.events() && self.params.topics.matches(event.meta()) {
                        frames.push(event.frame);
                    }
                }
            }
        }
        let feed_n = if self.params.topics.feed() {
            Some(
                self.feed_catch_up(conn.h(), id, &mut frames)
                    .await
                    .map_err(failed)?,
            )
        } else {
            None
        };
        drop(conn);
        frames.push(frame(&ServerFrame::CaughtUp {
            seq: self.sent,
            feed_n,
        }));
        self.send_all(frames).await
    }

    /// The `feed` topic's catch-up: lines numbered after `feed_since` (at most 500,
    /// all still kept, else one `feed_resync`); answers the latest number.
    async fn feed_catch_up(
        &mut self,
        mut h: crate::store::H<'_>,
        monorepo_id: &str,
        frames: &mut Vec<Utf8Bytes>,
    ) -> Result<i64, crate::store::Error> {
        let feed_n = lines::last_n(h.reborrow(), monorepo_id).await?;
        self.feed_sent = feed_n;
        let Some(since) = self.params.feed_since.map(|s| s.max(0)) else {
            return Ok(feed_n);
        };
        let rows = if since > feed_n || feed_n - since > CATCH_UP_MAX {
            None
        } else {
            let rows = lines::numbered_between(h, monorepo_id, since, feed_n).await?;
            // Fewer than numbered: some were pruned.
            (rows.len() as i64 == feed_n - since).then_some(rows)
        };
        match rows {
            None => frames.push(frame(&ServerFrame::FeedResync { feed_n })),
            Some(rows) => frames.extend(rows.into_iter().map(|row| {
                let n = row.n;
                feed_frame(n, &crate::feed::event_of(row))
            })),
        }
        Ok(feed_n)
    }

    /// A line landed: with the `feed` topic, this monorepo's lines not yet given.
    async fn on_line(&mut self, monorepo_id: &str, line: &crate::feed::Landed) -> Result<(), End> {
        let e = &line.event;
        if e.monorepo_id != monorepo_id || e.n <= self.feed_sent {
            return Ok(());
        }
        self.feed_sent = e.n;
        self.send(Message::Text(feed_frame(e.n, e))).await
    }

    async fn on_text(&mut self, text: &str) -> Result<(), End> {
        if text.trim() == "ping" {
            return self
                .send(Message::Text(Utf8Bytes::from_static("pong")))
                .await;
        }
        let hello = match serde_json::from_str::<ClientFrame>(text) {
            Ok(ClientFrame::Hello(hello)) => hello,
            Err(_) => {
                return self
                    .error("frame not understood: send {\"type\": \"hello\", ...} or the text ping")
                    .await;
            }
        };
        match presence::hello(&self.state, &self.session, hello).await {
            Ok(ok) => {
                self.said_hello = true;
                self.send(Message::Text(frame(&ServerFrame::HelloOk(ok))))
                    .await
            }
            Err(HelloError::Invalid(message)) => self.error(&message).await,
            Err(e @ HelloError::Internal(_)) => {
                tracing::error!(error = %e, "cannot take a hello");
                self.error("cannot record presence now; send hello again")
                    .await
            }
        }
    }

    async fn error(&mut self, message: &str) -> Result<(), End> {
        let f = frame(&ServerFrame::Error {
            message: message.to_owned(),
        });
        self.send(Message::Text(f)).await
    }

    /// A live message and those already queued behind it (up to [`BATCH`]), written
    /// with one flush: a burst costs one write per socket, not one per event.
    async fn on_live(
        &mut self,
        first: Result<Msg, RecvError>,
        rx: &mut broadcast::Receiver<Msg>,
    ) -> Result<(), End> {
        let mut frames = Vec::new();
        let mut msg = first;
        let end = loop {
            match self.live(msg) {
                Ok(Some(frame)) => frames.push(frame),
                Ok(None) => {}
                Err(end) => break Some(end),
            }
            if frames.len() >= BATCH {
                break None;
            }
            msg = match rx.try_recv() {
                Ok(m) => Ok(m),
                Err(TryRecvError::Empty) => break None,
                Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
                Err(TryRecvError::Closed) => Err(RecvError::Closed),
            };
        };
        // What came before a close still goes out.
        self.send_all(frames).await?;
        end.map_or(Ok(()), Err)
    }

    /// The frame a live message gives this socket, if any, or why the socket ends.
    fn live(&mut self, msg: Result<Msg, RecvError>) -> Result<Option<Utf8Bytes>, End> {
        match msg {
            Ok(Msg::Event(e)) => {
                if e.seq <= self.sent {
                    return Ok(None);
                }
                self.sent = e.seq;
                let wanted = self.params.topics.events() && self.params.topics.matches(e.meta());
                Ok(wanted.then(|| e.frame.clone()))
            }
            Ok(Msg::Deleted) => Err(End::Close(close::DELETED, "the monorepo was deleted")),
            Ok(Msg::UserLost(user)) if user == self.caller.user_id => Err(End::Close(
                close::ACCESS_LOST,
                "access to the monorepo was lost",
            )),
            Ok(Msg::CredentialLost(id)) if id == self.caller.credential_id => Err(REVOKED),
            Ok(_) => Ok(None),
            Err(RecvError::Lagged(_)) => Err(End::Close(
                close::TOO_SLOW,
                "too far behind; reconnect with since",
            )),
            Err(RecvError::Closed) => Err(End::Close(1012, "the server is restarting")),
        }
    }

    /// Writes `frames` with one flush, within [`SEND_TIMEOUT`].
    async fn send_all(&mut self, frames: Vec<Utf8Bytes>) -> Result<(), End> {
        if frames.is_empty() {
            return Ok(());
        }
        let Some(_writing) = self.gate.enter().await else {
            return Err(REVOKED);
        };
        let ws = &mut self.ws;
        let write = async move {
            for frame in frames {
                ws.feed(Message::Text(frame)).await?;
            }
            ws.flush().await
        };
        match tokio::time::timeout(SEND_TIMEOUT, write).await {
            Ok(sent) => sent.map_err(End::from),
            Err(_) => Err(End::Close(
                close::TOO_SLOW,
                "too slow to read; reconnect with since",
            )),
        }
    }

    async fn send(&mut self, msg: Message) -> Result<(), End> {
        let Some(_writing) = self.gate.enter().await else {
            return Err(REVOKED);
        };
        match tokio::time::timeout(SEND_TIMEOUT, self.ws.send(msg)).await {
            Ok(sent) => sent.map_err(End::from),
            Err(_) => Err(End::Close(
                close::TOO_SLOW,
                "too slow to read; reconnect with since",
            )),
        }
    }
}

/// The next feed line, or never without the `feed` topic.
async fn next_line(
    feed: &mut Option<tokio::sync::broadcast::Receiver<std::sync::Arc<crate::feed::Landed>>>,
) -> Result<std::sync::Arc<crate::feed::Landed>, RecvError> {
    match feed {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

fn feed_frame(n: i64, event: &svc_protocol::feed::FeedEvent) -> Utf8Bytes {
    frame(&ServerFrame::Feed {
        n,
        event: serde_json::to_value(event).unwrap_or_default(),
    })
}

fn frame(f: &ServerFrame) -> Utf8Bytes {
    serde_json::to_string(f)
        .unwrap_or_else(|_| r#"{"type":"error","message":"cannot encode a frame"}"#.to_owned())
        .into()
}
