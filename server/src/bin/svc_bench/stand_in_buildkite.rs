//! A stand-in for Buildkite's REST API on loopback, for the benches that read through
//! svc what Buildkite holds (the bench machine cannot reach Buildkite, and its time would
//! not be svc's). It speaks the wire protocol of the server's client
//! (`svc_server::ci::buildkite`) for the calls a bench makes: every request carries the
//! server's token as `Authorization: Bearer` (401 with Buildkite's message otherwise),
//! paths are under `/v2/organizations/{org}/pipelines/{pipeline}`, and
//!
//! - `POST /builds` (startCiBuild) is answered 201 with the build: its id, number, state
//!   `scheduled`, and the commit, branch, message and `meta_data` it was asked for;
//! - `GET /builds/{number}/jobs/{job}/log` answers the job's log as `text/plain`: with
//!   `Range: bytes=-N` shorter than the log, 206 with its last N bytes and `Content-Range:
//!   bytes a-b/total`; else 200 with all of it; 404 `No job found` for a job without one.
//!
//! Anything else is 404 with Buildkite's `{"message": "Not Found"}`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

struct Shared {
    token: String,
    /// Builds made, which numbers them.
    builds: AtomicUsize,
    /// Each job's whole log.
    logs: Mutex<HashMap<String, Bytes>>,
    /// Log requests answered.
    log_reads: AtomicUsize,
}

/// The stand-in, serving until dropped.
pub struct StandInBuildkite {
    /// The API base to give the server (`[ci.buildkite] api_url`), like Buildkite's
    /// `https://api.buildkite.com/v2`.
    pub api_url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for StandInBuildkite {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl StandInBuildkite {
    /// Serves on `127.0.0.1:0`, expecting `token` from the server.
    pub async fn start(token: &str) -> anyhow::Result<StandInBuildkite> {
        let shared = Arc::new(Shared {
            token: token.to_owned(),
            builds: AtomicUsize::new(0),
            logs: Mutex::new(HashMap::new()),
            log_reads: AtomicUsize::new(0),
        });
        let at = "/v2/organizations/{org}/pipelines/{pipeline}";
        let app = axum::Router::new()
            .route(&format!("{at}/builds"), post(create))
            .route(
                &format!("{at}/builds/{{number}}/jobs/{{job}}/log"),
                get(log),
            )
            .fallback(|| async { answer(StatusCode::NOT_FOUND, "Not Found") })
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let api_url = format!("http://{}/v2", listener.local_addr()?);
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(StandInBuildkite {
            api_url,
            shared,
            task,
        })
    }

    /// The whole log of `job` (in any build) from now on.
    pub fn set_log(&self, job: &str, log: Vec<u8>) {
        let mut logs = self.shared.logs.lock().expect("the logs' lock");
        logs.insert(job.to_owned(), Bytes::from(log));
    }

    /// How many log requests it has answered.
    pub fn log_reads(&self) -> usize {
        self.shared.log_reads.load(Ordering::Relaxed)
    }
}

/// An error as Buildkite words it.
fn answer(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "message": message }))).into_response()
}

impl Shared {
    /// 401 unless the request carries the server's token.
    fn refused(&self, headers: &HeaderMap) -> Option<Response> {
        let sent = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        (sent != Some(self.token.as_str())).then(|| {
            answer(
                StatusCode::UNAUTHORIZED,
                "Authentication required. Please supply a valid API Access Token",
            )
        })
    }
}

async fn create(
    State(shared): State<Arc<Shared>>,
    Path((org, pipeline)): Path<(String, String)>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    if let Some(refused) = shared.refused(&headers) {
        return refused;
    }
    let n = shared.builds.fetch_add(1, Ordering::Relaxed) + 1;
    let build = json!({
        "id": format!("0190c0de-0000-4000-8000-{n:012}"),
        "number": n,
        "state": "scheduled",
        "commit": body["commit"],
        "branch": body["branch"],
        "message": body["message"],
        "env": body["env"],
        "meta_data": body["meta_data"],
        "web_url": format!("https://buildkite.com/{org}/{pipeline}/builds/{n}"),
        "pipeline": {"slug": pipeline},
        "jobs": [],
    });
    (StatusCode::CREATED, Json(build)).into_response()
}

async fn log(
    State(shared): State<Arc<Shared>>,
    Path((_, _, _, job)): Path<(String, String, i64, String)>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = shared.refused(&headers) {
        return refused;
    }
    shared.log_reads.fetch_add(1, Ordering::Relaxed);
    let whole = shared
        .logs
        .lock()
        .expect("the logs' lock")
        .get(&job)
        .cloned();
    let Some(whole) = whole else {
        return answer(StatusCode::NOT_FOUND, "No job found");
    };
    let plain = (header::CONTENT_TYPE, "text/plain; charset=utf-8");
    let tail = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("bytes=-"))
        .and_then(|n| n.parse::<usize>().ok());
    match tail {
        Some(n) if n < whole.len() => {
            let from = whole.len() - n;
            let range = format!("bytes {from}-{}/{}", whole.len() - 1, whole.len());
            (
                StatusCode::PARTIAL_CONTENT,
                [plain, (header::CONTENT_RANGE, range.as_str())],
                whole.slice(from..),
            )
                .into_response()
        }
        _ => (StatusCode::OK, [plain], whole).into_response(),
    }
}
