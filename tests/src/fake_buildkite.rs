//! Buildkite's REST API faked at its wire protocol on loopback: create-build requests are
//! kept as they came and answered as Buildkite answers (201 with the build), or with the
//! statuses a test queues; the builds it made can be cancelled and their jobs retried
//! (once per job), and it serves a pipeline, job logs (with `Range: bytes=-N`),
//! annotations and artifacts (`per_page`, a 302 to download) as Buildkite does.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

/// One create-build request.
#[derive(Debug, Clone)]
pub struct Created {
    pub org: String,
    pub pipeline: String,
    pub authorization: String,
    pub body: Value,
}

#[derive(Default)]
struct Shared {
    created: Mutex<Vec<Created>>,
    answers: Mutex<VecDeque<u16>>,
    /// Builds by number: their state word.
    states: Mutex<HashMap<i64, String>>,
    retried: Mutex<HashSet<String>>,
    logs: Mutex<HashMap<String, Vec<u8>>>,
    /// How many annotations and artifacts every build has.
    extras: Mutex<usize>,
    /// Requests other than create, as `METHOD path`.
    calls: Mutex<Vec<String>>,
}

pub struct FakeBuildkite {
    /// The API base, like `https://api.buildkite.com/v2`.
    pub api_url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeBuildkite {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeBuildkite {
    pub async fn start() -> FakeBuildkite {
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .route(
                "/v2/organizations/{org}/pipelines/{pipeline}/builds",
                axum::routing::post(create),
            )
            .route(
                "/v2/organizations/{org}/pipelines/{pipeline}",
                axum::routing::get(pipeline),
            )
            .route(
                "/v2/organizations/{org}/pipelines/{pipeline}/builds/{number}/cancel",
                axum::routing::put(cancel),
            )
            .route(
                "/v2/organizations/{org}/pipelines/{pipeline}/builds/{number}/jobs/{job}/retry",
                axum::routing::put(retry),
            )
            .route(
                "/v2/organizations/{org}/pipelines/{pipeline}/builds/{number}/jobs/{job}/log",
                axum::routing::get(log),
            )
            .route(
                "/v2/organizations/{org}/pipelines/{pipeline}/builds/{number}/annotations",
                axum::routing::get(annotations),
            )
            .route(
                "/v2/organizations/{org}/pipelines/{pipeline}/builds/{number}/artifacts",
                axum::routing::get(artifacts),
            )
            .route(
                "/v2/organizations/{org}/pipelines/{pipeline}/builds/{number}/jobs/{job}/artifacts/{id}/download",
                axum::routing::get(download),
            )
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the fake");
        let api_url = format!("http://{}/v2", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeBuildkite {
            api_url,
            shared,
            task,
        }
    }

    /// The next create requests are answered with these statuses (201 after).
    pub fn answer(&self, statuses: &[u16]) {
        self.shared
            .answers
            .lock()
            .expect("lock")
            .extend(statuses.iter().copied());
    }

    /// A job's whole log.
    pub fn set_log(&self, job: &str, log: &[u8]) {
        let mut logs = self.shared.logs.lock().expect("lock");
        logs.insert(job.to_owned(), log.to_vec());
    }

    /// Every build gets `n` annotations and `n` artifacts.
    pub fn extras(&self, n: usize) {
        *self.shared.extras.lock().expect("lock") = n;
    }

    /// The requests other than create, as `METHOD path`.
    pub fn calls(&self) -> Vec<String> {
        self.shared.calls.lock().expect("lock").clone()
    }

    pub fn created(&self) -> Vec<Created> {
        self.shared.created.lock().expect("lock").clone()
    }

    /// Waits up to 20 s for `n` create requests.
    pub async fn wait_for(&self, n: usize) -> Vec<Created> {
        for _ in 0..1000 {
            let got = self.created();
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        panic!("{} of {n} builds were created", self.created().len());
    }
}

async fn create(
    State(shared): State<Arc<Shared>>,
    Path((org, pipeline)): Path<(String, String)>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let n = {
        let mut created = shared.created.lock().expect("lock");
        created.push(Created {
            org: org.clone(),
            pipeline: pipeline.clone(),
            authorization: headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned(),
            body: body.clone(),
        });
        created.len()
    };
    let status = shared.queued().unwrap_or(201);
    if status != 201 {
        let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return (code, Json(json!({"message": "faked failure"})));
    }
    let number = i64::try_from(n).expect("few builds");
    let mut states = shared.states.lock().expect("lock");
    states.insert(number, "scheduled".into());
    let build = json!({
        "id": format!("00000000-0000-0000-0000-{n:012}"),
        "number": n,
        "state": "scheduled",
        "commit": body["commit"],
        "branch": body["branch"],
        "message": body["message"],
        "env": body["env"],
        "meta_data": body["meta_data"],
        "web_url": format!("https://buildkite.com/{org}/{pipeline}/builds/{n}"),
        "pipeline": {"slug": pipeline},
    });
    (StatusCode::CREATED, Json(build))
}

impl Shared {
    /// The status a test queued for the next request, if any.
    fn queued(&self) -> Option<u16> {
        self.answers.lock().expect("lock").pop_front()
    }

    /// Notes a call; answers the queued failure for it, if any.
    fn call(&self, what: String) -> Option<(StatusCode, Json<Value>)> {
        self.calls.lock().expect("lock").push(what);
        let status = self.queued().filter(|s| !(200..300).contains(s))?;
        let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        Some((code, Json(json!({"message": "faked failure"}))))
    }
}

type Answer = (StatusCode, Json<Value>);

fn not_found() -> Answer {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"message": "No build found"})),
    )
}

async fn pipeline(
    State(shared): State<Arc<Shared>>,
    Path((org, pipeline)): Path<(String, String)>,
) -> Answer {
    if let Some(failed) = shared.call(format!("GET {pipeline}")) {
        return failed;
    }
    if pipeline == "missing" {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"message": "No pipeline found"})),
        );
    }
    let read = shared.calls.lock().expect("lock").len();
    (
        StatusCode::OK,
        Json(json!({
            "slug": pipeline,
            "name": format!("The {pipeline}"),
            "web_url": format!("https://buildkite.com/{org}/{pipeline}"),
            "repository": "https://svc.example/app.git",
            "default_branch": "main",
            "configuration": format!("steps:\n  - command: make test # read {read}\n"),
        })),
    )
}

async fn cancel(
    State(shared): State<Arc<Shared>>,
    Path((_, pipeline, number)): Path<(String, String, i64)>,
) -> Answer {
    if let Some(failed) = shared.call(format!("PUT {pipeline}/{number}/cancel")) {
        return failed;
    }
    let mut states = shared.states.lock().expect("lock");
    let Some(state) = states.get_mut(&number) else {
        return not_found();
    };
    if !["scheduled", "running", "failing"].contains(&state.as_str()) {
        let message = "Build can't be canceled because it's already finished";
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"message": message})),
        );
    }
    *state = "canceled".into();
    let build = json!({
        "id": format!("00000000-0000-0000-0000-{number:012}"),
        "number": number,
        "state": "canceled",
        "pipeline": {"slug": pipeline},
    });
    (StatusCode::OK, Json(build))
}

async fn retry(
    State(shared): State<Arc<Shared>>,
    Path((_, pipeline, number, job)): Path<(String, String, i64, String)>,
) -> Answer {
    if let Some(failed) = shared.call(format!("PUT {pipeline}/{number}/{job}/retry")) {
        return failed;
    }
    if !shared.retried.lock().expect("lock").insert(job.clone()) {
        let message = "Only failed or canceled jobs can be retried, once";
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"message": message})),
        );
    }
    let new = json!({
        "id": format!("{job}-retry"),
        "type": "script",
        "name": "test",
        "state": "scheduled",
        "retry_source": {"job_id": job, "retry_type": "manual"},
    });
    (StatusCode::OK, Json(new))
}

async fn log(
    State(shared): State<Arc<Shared>>,
    Path((_, pipeline, number, job)): Path<(String, String, i64, String)>,
    headers: HeaderMap,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if let Some(failed) = shared.call(format!("GET {pipeline}/{number}/{job}/log")) {
        return failed.into_response();
    }
    let whole = shared.logs.lock().expect("lock").get(&job).cloned();
    let Some(whole) = whole else {
        return not_found().into_response();
    };
    let tail = headers
        .get("range")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("bytes=-"))
        .and_then(|n| n.parse::<usize>().ok());
    match tail {
        Some(n) if n < whole.len() => {
            let from = whole.len() - n;
            let range = format!("bytes {from}-{}/{}", whole.len() - 1, whole.len());
            (
                StatusCode::PARTIAL_CONTENT,
                [("content-range", range)],
                whole[from..].to_vec(),
            )
                .into_response()
        }
        _ => (StatusCode::OK, whole).into_response(),
    }
}

/// Buildkite's `per_page` (30 unless asked, 100 at most).
fn per_page(query: &HashMap<String, String>) -> usize {
    query
        .get("per_page")
        .and_then(|n| n.parse().ok())
        .unwrap_or(30usize)
        .min(100)
}

async fn annotations(
    State(shared): State<Arc<Shared>>,
    Path((_, pipeline, number)): Path<(String, String, i64)>,
    axum::extract::Query(query): axum::extract::Query<HashMap<String, String>>,
) -> Answer {
    if let Some(failed) = shared.call(format!("GET {pipeline}/{number}/annotations")) {
        return failed;
    }
    let n = *shared.extras.lock().expect("lock");
    let items: Vec<Value> = (0..n.min(per_page(&query)))
        .map(|i| {
            json!({"id": format!("an-{i}"), "context": format!("ctx-{i}"), "style": "info",
                "priority": 3, "body_html": format!("<p>note {i}</p>"),
                "created_at": "2026-11-25T10:00:00.000Z"})
        })
        .collect();
    (StatusCode::OK, Json(Value::Array(items)))
}

async fn artifacts(
    State(shared): State<Arc<Shared>>,
    Path((_, pipeline, number)): Path<(String, String, i64)>,
    axum::extract::Query(query): axum::extract::Query<HashMap<String, String>>,
) -> Answer {
    if let Some(failed) = shared.call(format!("GET {pipeline}/{number}/artifacts")) {
        return failed;
    }
    let n = *shared.extras.lock().expect("lock");
    let items: Vec<Value> = (0..n.min(per_page(&query)))
        .map(|i| {
            json!({"id": format!("art-{number}-{i}"), "job_id": "job-1",
                "path": format!("dist/file-{i}.txt"), "file_size": 10 + i,
                "mime_type": "text/plain", "sha1sum": "da39a3ee5e6b4b0d3255bfef95601890afd80709",
                "state": "finished"})
        })
        .collect();
    (StatusCode::OK, Json(Value::Array(items)))
}

async fn download(
    State(shared): State<Arc<Shared>>,
    Path((_, pipeline, number, job, id)): Path<(String, String, i64, String, String)>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if let Some(failed) = shared.call(format!("GET {pipeline}/{number}/{job}/{id}/download")) {
        return failed.into_response();
    }
    let url = format!("https://artifacts.buildkite.example/{id}?signature=short-lived");
    (StatusCode::FOUND, [("location", url)]).into_response()
}
