//! Serving TCP connections: HTTP/1 with hyper as `axum::serve` does (upgrades, graceful
//! shutdown, the peer's address as `ConnectInfo`), plus what a public server needs
//! against slow and greedy clients, none of which `axum::serve` can be told:
//!
//! - a request's headers must arrive within `header_timeout_secs` (hyper's header read
//!   timeout, which also ends a kept-alive connection left idle that long);
//! - a request body that sends nothing for `body_idle_secs` fails the request (the
//!   timer starts again at every piece of it, so a slow push that keeps moving goes on);
//! - one peer address holds at most `per_address` connections at once (a WebSocket
//!   counts until it closes); beyond that a new connection is closed as it is accepted.
//!
//! The settings are `[connections]`.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::serve::{Listener, ListenerExt};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;
use tower_http::timeout::TimeoutBody;

use crate::middleware::App;

/// `[connections]`: limits on each client connection; 0 switches one off.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConnectionSettings {
    /// Seconds a request's headers may take to arrive, counted from the connection's
    /// start or the end of its previous answer (so also how long a kept-alive
    /// connection may stay idle).
    pub header_timeout_secs: u64,
    /// Seconds a request body may send nothing before the request fails and its
    /// connection closes.
    pub body_idle_secs: u64,
    /// Connections open at once from one TCP peer address (an IPv6 peer counts by its
    /// /64, which one client usually holds whole). Behind a reverse proxy every client
    /// shares the proxy's address: raise it or switch it off there.
    pub per_address: u32,
}

impl Default for ConnectionSettings {
    fn default() -> Self {
        Self {
            header_timeout_secs: 10,
            body_idle_secs: 30,
            per_address: 256,
        }
    }
}

fn seconds(secs: u64) -> Option<Duration> {
    (secs > 0).then(|| Duration::from_secs(secs))
}

/// Serves `app` on `listener` until `shutdown` resolves, then stops accepting, lets the
/// requests in flight finish and answers once every connection is closed.
pub async fn serve(
    listener: TcpListener,
    app: App,
    settings: &ConnectionSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    // Without TCP_NODELAY each streamed git response waits on Nagle's ~40 ms delay.
    let mut listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(seconds(settings.header_timeout_secs));
    let body_idle = seconds(settings.body_idle_secs);
    let peers = Arc::new(Peers::default());
    let (stopping, stop) = watch::channel(());
    let connections = TaskTracker::new();
    let mut shutdown = pin!(shutdown);
    loop {
        // The listener logs accept errors (out of file descriptors) and waits a moment.
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let Some(slot) = peers.admit(peer.ip(), settings.per_address) else {
            tracing::debug!(%peer, "too many connections from this address; closed");
            continue;
        };
        let service = app.clone().map_request(move |req: Request<Incoming>| {
            let mut req = req.map(|body| match body_idle {
                Some(idle) => Body::new(TimeoutBody::new(idle, body)),
                None => Body::new(body),
            });
            req.extensions_mut().insert(ConnectInfo(peer));
            req
        });
        let io = TokioIo::new(Counted { tcp, _slot: slot });
        let conn = http
            .serve_connection(io, TowerToHyperService::new(service))
            .with_upgrades();
        let mut stop = stop.clone();
        connections.spawn(async move {
            let mut conn = pin!(conn);
            let result = tokio::select! {
                result = conn.as_mut() => result,
                _ = stop.changed() => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(err) = result {
                tracing::debug!(%peer, "connection ended: {err}");
            }
        });
    }
    drop(listener);
    drop(stopping);
    connections.close();
    connections.wait().await;
}

/// Open connections by peer.
#[derive(Default)]
struct Peers {
    open: Mutex<HashMap<PeerKey, u32>>,
}

/// What the connection cap counts by: an IPv4 address, or an IPv6 address's /64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct PeerKey(IpAddr);

impl PeerKey {
    fn of(ip: IpAddr) -> PeerKey {
        match ip.to_canonical() {
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !u128::from(u64::MAX);
                PeerKey(IpAddr::V6(prefix.into()))
            }
            v4 => PeerKey(v4),
        }
    }
}

/// A connection's place in its peer's count, given back when it drops.
struct Slot {
    peers: Arc<Peers>,
    key: PeerKey,
}

impl Peers {
    /// A slot for one more connection from `ip`, unless it holds `cap` already (0: no
    /// cap, nothing counted).
    fn admit(self: &Arc<Self>, ip: IpAddr, cap: u32) -> Option<Option<Slot>> {
        if cap == 0 {
            return Some(None);
        }
        let key = PeerKey::of(ip);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(key).or_default();
        if *count >= cap {
            return None;
        }
        *count += 1;
        Some(Some(Slot {
            peers: Arc::clone(self),
            key,
        }))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.peers.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// A TCP stream that holds its slot for as long as the socket lives, through an
/// upgrade to a WebSocket too.
struct Counted {
    tcp: TcpStream,
    _slot: Option<Slot>,
}

impl AsyncRead for Counted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_shutdown(cx)
    }
}

/// Raises the soft limit on open files to the hard limit. Every connection, pack file
/// and child pipe is a file; the usual soft default (1024) is soon reached by a busy
/// server, while the hard limit is what the administrator allows.
pub fn raise_open_files_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current == limit.maximum {
        return;
    }
    let raised = Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    if let Err(err) = setrlimit(Resource::Nofile, raised) {
        tracing::warn!(
            soft = ?limit.current,
            hard = ?limit.maximum,
            "cannot raise the open files limit: {err}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_holds_at_most_its_cap_and_gets_slots_back() {
        let peers = Arc::new(Peers::default());
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let first = peers.admit(a, 2).unwrap();
        let second = peers.admit(a, 2).unwrap();
        assert!(peers.admit(a, 2).is_none(), "a third from a");
        assert!(peers.admit(b, 2).is_some(), "b counts on its own");
        drop(first);
        assert!(peers.admit(a, 2).is_some(), "a slot came back");
        drop(second);
        assert!(peers.admit(a, 0).unwrap().is_none(), "0: nothing counted");
    }

    #[test]
    fn ipv6_peers_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        let key = |s: &str| PeerKey::of(s.parse().unwrap());
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:192.0.2.1"), key("192.0.2.1"));
    }
}
