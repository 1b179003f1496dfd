//! What the model API stand-ins ([`crate::fake_anthropic`], [`crate::fake_openai`]) share:
//! the script a test gives the stand-in model, the requests it keeps, and serving it.
//!
//! A coding agent's conversation with its model is one request per model turn, each
//! carrying the whole conversation so far. The stand-in answers each request from its
//! script: the round is chosen by what the person said (the last round whose `when` is
//! in the request's user text), the turn by how many tool results the request carries
//! (each scripted turn but the last calls tools, whose results the next request brings).

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::MethodRouter;
use serde_json::Value;

/// One thing the model says in a turn.
#[derive(Debug, Clone)]
pub enum Say {
    /// Text for the person.
    Text(String),
    /// A call of one of the tools the request offers, by name. Its input is JSON
    /// arguments, or for a tool taking free-form text (Codex's `apply_patch`) a string.
    Call { name: String, input: Value },
}

impl Say {
    pub fn text(text: &str) -> Say {
        Say::Text(text.to_owned())
    }

    pub fn call(name: &str, input: Value) -> Say {
        Say::Call {
            name: name.to_owned(),
            input,
        }
    }
}

/// The model's turns when the person's words hold `when`.
#[derive(Debug, Clone)]
pub struct Round {
    pub when: String,
    /// One list per request: turn `n` answers the request carrying `n` tool results.
    pub turns: Vec<Vec<Say>>,
}

impl Round {
    pub fn new(when: &str, turns: Vec<Vec<Say>>) -> Round {
        Round {
            when: when.to_owned(),
            turns,
        }
    }
}

/// What a stand-in says when its script has no answer (no round matches, or the turns
/// ran out): plain text that ends the agent's turn.
pub const UNSCRIPTED: &str = "(the stand-in model has nothing scripted for this)";

/// One request a stand-in got.
#[derive(Debug, Clone)]
pub struct Request {
    /// The path with its query, as sent.
    pub path: String,
    pub headers: HeaderMap,
    /// The body, `Null` when it was not JSON.
    pub body: Value,
}

impl Request {
    /// A header's value as text (empty when missing).
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }
}

/// The script and the requests, shared by a stand-in's handlers and its test.
#[derive(Default)]
pub(crate) struct Shared {
    pub rounds: Vec<Round>,
    pub requests: Mutex<Vec<Request>>,
}

impl Shared {
    pub fn new(rounds: Vec<Round>) -> Arc<Shared> {
        Arc::new(Shared {
            rounds,
            requests: Mutex::new(Vec::new()),
        })
    }

    pub fn keep(&self, request: Request) {
        self.requests.lock().expect("lock").push(request);
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("lock").clone()
    }

    /// What to say to a request whose user text is `said` and that carries `results`
    /// tool results; `None` when the script has nothing for it.
    pub fn turn(&self, said: &str, results: usize) -> Option<&[Say]> {
        let round = self.rounds.iter().rev().find(|r| said.contains(&r.when))?;
        round.turns.get(results).map(Vec::as_slice)
    }
}

/// Serves `app` on a loopback port of its own; answers the `http://127.0.0.1:<port>`
/// base and the serving task.
pub(crate) async fn serve(app: axum::Router) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the stand-in");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (base, task)
}

/// One server-sent event: `event: <name>` and its JSON data.
pub(crate) fn event(out: &mut String, name: &str, data: &Value) {
    out.push_str("event: ");
    out.push_str(name);
    out.push_str("\ndata: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

/// What a stand-in's handlers share: the script and kept requests, and the API key.
#[derive(Clone)]
pub(crate) struct Served {
    pub shared: Arc<Shared>,
    pub key: Arc<str>,
}

/// A stand-in model API serving on loopback until dropped: `route` answered by
/// `handler`, any other path kept and answered 404 with the API's own `not_found` body.
pub(crate) struct Stand {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Stand {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Stand {
    pub async fn start(
        key: &str,
        rounds: Vec<Round>,
        route: &str,
        handler: MethodRouter<Served>,
        not_found: Value,
    ) -> Stand {
        let shared = Shared::new(rounds);
        let served = Served {
            shared: Arc::clone(&shared),
            key: Arc::from(key),
        };
        let other = move |State(served): State<Served>,
                          OriginalUri(uri): OriginalUri,
                          headers: HeaderMap,
                          body: Bytes| async move {
            let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
            served.shared.keep(Request {
                path: uri.to_string(),
                headers,
                body,
            });
            (StatusCode::NOT_FOUND, axum::Json(not_found)).into_response()
        };
        let app = axum::Router::new()
            .route(route, handler)
            .fallback(other)
            .layer(axum::extract::DefaultBodyLimit::disable())
            .with_state(served);
        let (base, task) = serve(app).await;
        Stand { base, shared, task }
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests()
    }

    /// The requests to `path` whose `header` was `value` (the key, as the API takes it).
    pub fn keyed(&self, path: &str, header: &str, value: &str) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.split('?').next() == Some(path) && r.header(header) == value)
            .collect()
    }
}
