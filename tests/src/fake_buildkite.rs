//! Buildkite's REST API faked at its wire protocol on loopback: create-build requests are
//! kept as they came and answered as Buildkite answers (201 with the build), or with the
//! statuses a test queues.

use std::collections::VecDeque;
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
    let status = shared
        .answers
        .lock()
        .expect("lock")
        .pop_front()
        .unwrap_or(201);
    if status != 201 {
        let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return (code, Json(json!({"message": "faked failure"})));
    }
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
