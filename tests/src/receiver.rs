//! A web hook receiver on loopback: a real HTTP server that keeps every request it gets
//! and answers the statuses a test queues (200 once the queue is empty).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use tokio::sync::Notify;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Got {
    pub at: Instant,
    pub event: String,
    pub delivery: String,
    pub signature: String,
    pub user_agent: String,
    pub body: Bytes,
}

impl Got {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

#[derive(Default)]
struct Shared {
    got: Mutex<Vec<Got>>,
    answers: Mutex<VecDeque<u16>>,
    arrived: Notify,
}

pub struct Receiver {
    pub url: String,
    shared: Arc<Shared>,
    /// Stops the receiver's server when dropped.
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Receiver {
    /// Listens on loopback, on a thread and runtime of its own: a test that blocks its
    /// own thread (git pushes one after another) must not keep the receiver from
    /// answering, or the server's tries time out and are made again.
    pub async fn start() -> Receiver {
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(take))
            .with_state(Arc::clone(&shared));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the receiver");
        listener
            .set_nonblocking(true)
            .expect("a nonblocking receiver");
        let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("the receiver's runtime");
            runtime.block_on(async move {
                let listener =
                    tokio::net::TcpListener::from_std(listener).expect("the receiver's listener");
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        Receiver {
            url,
            shared,
            _stop: stop,
        }
    }

    /// The next requests are answered with these statuses, in order.
    pub fn answer(&self, statuses: &[u16]) {
        self.shared
            .answers
            .lock()
            .expect("lock")
            .extend(statuses.iter().copied());
    }

    /// Everything received so far.
    pub fn got(&self) -> Vec<Got> {
        self.shared.got.lock().expect("lock").clone()
    }

    /// Waits until `n` requests have come (or `timeout`), and answers them all.
    pub async fn wait_for(&self, n: usize, timeout: Duration) -> Vec<Got> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let arrived = self.shared.arrived.notified();
            let got = self.got();
            if got.len() >= n {
                return got;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                let got = self.got();
                assert!(
                    got.len() >= n,
                    "{} of {n} deliveries came within {timeout:?}",
                    got.len()
                );
                return got;
            }
        }
    }
}

async fn take(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    shared.got.lock().expect("lock").push(Got {
        at: Instant::now(),
        event: header("x-svc-event"),
        delivery: header("x-svc-delivery"),
        signature: header("x-svc-signature-256"),
        user_agent: header("user-agent"),
        body,
    });
    shared.arrived.notify_waiters();
    let status = shared
        .answers
        .lock()
        .expect("lock")
        .pop_front()
        .unwrap_or(200);
    StatusCode::from_u16(status).unwrap_or(StatusCode::OK)
}
