//! A WebSocket client for event sockets: real sockets, JSON frames, close codes.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio_tungstenite::tungstenite::{self, Message, client::IntoClientRequest};

type Stream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How long a test waits for a frame before failing (a hang guard, not a measurement).
pub const WAIT: Duration = Duration::from_secs(20);

/// An open socket.
pub struct Ws {
    stream: Stream,
}

/// How a socket ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Closed {
    Code(u16),
    Dropped,
}

impl crate::TestApp {
    /// Opens a socket on `path` (with its query) as `token`'s user.
    pub async fn ws(&self, path: &str, token: &str) -> Ws {
        self.try_ws(path, token).await.expect("socket upgrade")
    }

    /// Opens a socket, or answers the HTTP status and body of the refusal.
    pub async fn try_ws(&self, path: &str, token: &str) -> Result<Ws, (u16, String)> {
        let url = format!("{}{path}", self.base.replacen("http", "ws", 1));
        let mut request = url.into_client_request().expect("request");
        request.headers_mut().insert(
            "authorization",
            format!("Bearer {token}").parse().expect("header"),
        );
        match tokio_tungstenite::connect_async(request).await {
            Ok((stream, _)) => Ok(Ws { stream }),
            Err(tungstenite::Error::Http(r)) => {
                let body = r
                    .body()
                    .as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_default();
                Err((r.status().as_u16(), body))
            }
            Err(e) => panic!("cannot open the socket: {e}"),
        }
    }
}

impl Ws {
    /// Sends a text frame.
    pub async fn send(&mut self, text: &str) {
        self.stream
            .send(Message::text(text))
            .await
            .expect("send frame");
    }

    /// Sends a JSON frame.
    pub async fn send_json(&mut self, v: &Value) {
        self.send(&v.to_string()).await;
    }

    /// The next text frame (JSON frames decoded; `pong` as the string "pong").
    pub async fn next(&mut self) -> Value {
        match self.next_or_close().await {
            Ok(v) => v,
            Err(closed) => panic!("socket closed ({closed:?}) while a frame was expected"),
        }
    }

    /// The next text frame, or how the socket closed.
    pub async fn next_or_close(&mut self) -> Result<Value, Closed> {
        loop {
            let msg = tokio::time::timeout(WAIT, self.stream.next())
                .await
                .expect("no frame within the wait");
            match msg {
                Some(Ok(Message::Text(t))) => {
                    return Ok(serde_json::from_str(&t).unwrap_or(Value::String(t.to_string())));
                }
                Some(Ok(Message::Close(frame))) => {
                    return Err(frame.map_or(Closed::Dropped, |f| Closed::Code(f.code.into())));
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return Err(Closed::Dropped),
            }
        }
    }

    /// Frames until one of `type` arrives; answers it and the ones skipped.
    pub async fn until(&mut self, kind: &str) -> (Value, Vec<Value>) {
        let mut skipped = Vec::new();
        loop {
            let f = self.next().await;
            if f["type"] == kind {
                return (f, skipped);
            }
            skipped.push(f);
        }
    }

    /// Waits for the socket to close, skipping frames; answers the close.
    pub async fn closed(&mut self) -> Closed {
        loop {
            if let Err(closed) = self.next_or_close().await {
                return closed;
            }
        }
    }
}
