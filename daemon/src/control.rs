//! The control socket: tagged JSON lines from the CLI (`status`, `reload`, `stop`).

use std::sync::Arc;
use std::time::SystemTime;

use svc_protocol::daemon::{DAEMON_PROTOCOL, Reply, Request, Status};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{Notify, watch};

use crate::Shared;

/// What a control connection may read or trigger.
#[derive(Clone)]
pub struct Context {
    pub shared: Shared,
    pub started: SystemTime,
    pub machine: String,
    pub stop: watch::Sender<bool>,
    pub reload: Arc<Notify>,
}

pub async fn accept(listener: UnixListener, context: Context) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(serve(stream, context.clone()));
            }
            Err(e) => {
                tracing::warn!("control socket: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
    }
}

/// Longest request line read; anything longer is not the CLI.
const LINE_MAX: usize = 64 * 1024;

async fn serve(stream: UnixStream, context: Context) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read.take(LINE_MAX as u64)).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let reply = answer(&line, &context);
        let stopping = matches!(reply, Reply::Stopping);
        let Ok(mut text) = serde_json::to_string(&reply) else {
            return;
        };
        text.push('\n');
        if write.write_all(text.as_bytes()).await.is_err() {
            return;
        }
        if stopping {
            let _ = write.flush().await;
            let _ = context.stop.send(true);
            return;
        }
    }
}

fn answer(line: &str, context: &Context) -> Reply {
    let request = match serde_json::from_str::<Request>(line) {
        Ok(r) => r,
        Err(e) => {
            return Reply::Error {
                message: format!("not a request: {e}"),
            };
        }
    };
    let protocol = match &request {
        Request::Status { protocol }
        | Request::Reload { protocol }
        | Request::Stop { protocol } => *protocol,
    };
    if protocol != DAEMON_PROTOCOL {
        return Reply::Error {
            message: format!(
                "this daemon speaks protocol {DAEMON_PROTOCOL}, not {protocol}: restart it (svc daemon stop; svc daemon start)"
            ),
        };
    }
    match request {
        Request::Status { .. } => {
            let monorepos = context
                .shared
                .lock()
                .map(|s| s.followed.values().cloned().collect())
                .unwrap_or_default();
            let uptime = context.started.elapsed().map(|d| d.as_secs()).unwrap_or(0);
            Reply::Status(Status {
                protocol: DAEMON_PROTOCOL,
                pid: std::process::id(),
                started_at: time::OffsetDateTime::from(context.started),
                uptime_secs: uptime,
                machine: context.machine.clone(),
                monorepos,
            })
        }
        Request::Reload { .. } => {
            context.reload.notify_one();
            Reply::Reloaded
        }
        Request::Stop { .. } => Reply::Stopping,
    }
}
