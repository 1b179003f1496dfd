//! agentLive: a session's transcript over a WebSocket, `{type: "messages", from,
//! messages}` frames, the first from 0 with the transcript so far, later ones with what
//! the runner says next. A run in this process wakes the socket as each message is
//! stored; a run elsewhere (another server on the same PostgreSQL) is read every second.
//! The socket closes (1000) once the session's run is over and all was sent, and with
//! 4403 when its credential is revoked.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use svc_protocol::agent::LiveFrame;

use super::sessions;
use crate::auth::Caller;
use crate::state::AppState;
use crate::store::agents as rows;

/// Messages per frame at most.
const FRAME_MAX: i64 = 200;
/// How often a session run by another process is read again.
const POLL: Duration = Duration::from_secs(1);
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

pub async fn serve(state: AppState, mut ws: WebSocket, caller: Caller, id: String) {
    let opened = state.credentials.sockets.open(&caller.credential_id);
    let gate = opened.gate.clone();
    let mut from = 0;
    let mut first = true;
    let close = loop {
        let read = async {
            let mut conn = state.store.read().await?;
            let row = rows::by_id(conn.h(), &id).await?;
            let messages = rows::messages(conn.h(), &id, from, FRAME_MAX).await?;
            Ok::<_, crate::store::Error>((row, messages))
        };
        let Ok((Some(row), messages)) = read.await else {
            break Some((1011, "the session cannot be read"));
        };
        let live = super::is_live(&row.state);
        let sent = messages.len() as i64;
        if first || sent > 0 {
            let frame = LiveFrame::Messages {
                from,
                messages: messages.iter().map(sessions::message).collect(),
            };
            let Ok(text) = serde_json::to_string(&frame) else {
                break Some((1011, "cannot encode a frame"));
            };
            let Some(_writing) = gate.enter().await else {
                break Some((4403, "the credential was revoked"));
            };
            match tokio::time::timeout(SEND_TIMEOUT, ws.send(Message::Text(text.into()))).await {
                Ok(Ok(())) => {}
                _ => break None,
            }
            first = false;
            from += sent;
        }
        if sent == FRAME_MAX {
            continue;
        }
        if !live {
            break Some((1000, "the session's run is over"));
        }
        let mut follow = state.agents.follow(&id);
        tokio::select! {
            _ = async {
                match follow.as_mut() {
                    Some(f) => { let _ = f.wait_for(|last| *last >= from).await; }
                    None => std::future::pending().await,
                }
            } => {}
            () = tokio::time::sleep(POLL) => {}
            () = gate.shut() => break Some((4403, "the credential was revoked")),
            incoming = ws.recv() => match incoming {
                Some(Ok(Message::Text(t))) if t.as_str() == "ping" => {
                    let _ = ws.send(Message::Text(Utf8Bytes::from_static("pong"))).await;
                }
                Some(Ok(Message::Close(_)) | Err(_)) | None => break None,
                Some(Ok(_)) => {}
            },
        }
    };
    drop(opened);
    if let Some((code, reason)) = close {
        let frame = CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        };
        let _ = tokio::time::timeout(SEND_TIMEOUT, ws.send(Message::Close(Some(frame)))).await;
    }
}
