//! Anthropic's Messages API faked at its wire protocol on loopback, for Claude Code run
//! as a runner (`ANTHROPIC_BASE_URL` pointed here): `POST /v1/messages` answered from a
//! script ([`crate::fake_model`]), streamed as the API streams (`stream: true`: server-sent
//! events `message_start`, `content_block_start`, `content_block_delta` with `text_delta`
//! or `input_json_delta`, `content_block_stop`, `message_delta`, `message_stop`) or as one
//! JSON message. A request without the expected `x-api-key` gets the API's 401. Every
//! request is kept, other paths too (answered 404).

use axum::body::Bytes;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::fake_model::{self, Request, Round, Say, Served, Stand, UNSCRIPTED};

pub struct FakeAnthropic {
    /// What `ANTHROPIC_BASE_URL` is set to: `http://127.0.0.1:<port>`.
    pub base_url: String,
    key: String,
    stand: Stand,
}

impl FakeAnthropic {
    /// Serves `rounds` to callers presenting `key` as `x-api-key`.
    pub async fn start(key: &str, rounds: Vec<Round>) -> FakeAnthropic {
        let not_found =
            json!({"type": "error", "error": {"type": "not_found_error", "message": "Not found"}});
        let handler = axum::routing::post(messages);
        let stand = Stand::start(key, rounds, "/v1/messages", handler, not_found).await;
        FakeAnthropic {
            base_url: stand.base.clone(),
            key: key.to_owned(),
            stand,
        }
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<Request> {
        self.stand.requests()
    }

    /// The requests to `/v1/messages` that carried the key.
    pub fn answered(&self) -> Vec<Request> {
        self.stand.keyed("/v1/messages", "x-api-key", &self.key)
    }
}

/// The person's words in a Messages request: the text of its `user` messages.
pub fn user_text(body: &Value) -> String {
    let mut said = String::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        if m["role"] != "user" {
            continue;
        }
        match &m["content"] {
            Value::String(s) => said.push_str(s),
            Value::Array(blocks) => {
                for b in blocks.iter().filter(|b| b["type"] == "text") {
                    said.push_str(b["text"].as_str().unwrap_or_default());
                    said.push('\n');
                }
            }
            _ => {}
        }
    }
    said
}

/// The `tool_result` blocks of a Messages request, oldest first.
pub fn tool_results(body: &Value) -> Vec<Value> {
    let messages = body["messages"].as_array().into_iter().flatten();
    messages
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .cloned()
        .collect()
}

async fn messages(
    State(served): State<Served>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let number = served.shared.requests().len();
    let key_ok = headers.get("x-api-key").and_then(|v| v.to_str().ok()) == Some(&*served.key);
    served.shared.keep(Request {
        path: uri.to_string(),
        headers,
        body: body.clone(),
    });
    if !key_ok {
        let error = json!({"type": "error", "error": {
            "type": "authentication_error", "message": "invalid x-api-key"}});
        return (StatusCode::UNAUTHORIZED, axum::Json(error)).into_response();
    }
    let results = tool_results(&body).len();
    let unscripted = [Say::text(UNSCRIPTED)];
    let says = served
        .shared
        .turn(&user_text(&body), results)
        .unwrap_or(&unscripted);
    let model = body["model"].as_str().unwrap_or("claude-stand-in");
    let id = format!("msg_standin_{number:04}");
    let blocks: Vec<Value> = says
        .iter()
        .enumerate()
        .map(|(i, say)| match say {
            Say::Text(text) => json!({"type": "text", "text": text}),
            Say::Call { name, input } => json!({
                "type": "tool_use", "id": format!("toolu_standin_{number:04}_{i}"),
                "name": name, "input": input,
            }),
        })
        .collect();
    let calls = says.iter().any(|s| matches!(s, Say::Call { .. }));
    let stop_reason = if calls { "tool_use" } else { "end_turn" };
    let usage = json!({"input_tokens": 12, "output_tokens": 1});
    if body["stream"] != true {
        let message = json!({
            "id": id, "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop_reason, "stop_sequence": null,
            "usage": {"input_tokens": 12, "output_tokens": 24},
        });
        return axum::Json(message).into_response();
    }
    let mut out = String::new();
    let start = json!({"type": "message_start", "message": {
        "id": id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": null, "stop_sequence": null, "usage": usage,
    }});
    fake_model::event(&mut out, "message_start", &start);
    fake_model::event(&mut out, "ping", &json!({"type": "ping"}));
    for (index, block) in blocks.iter().enumerate() {
        // A block starts empty and comes in deltas, as the API sends it.
        let (empty, delta) = if block["type"] == "text" {
            let delta = json!({"type": "text_delta", "text": block["text"]});
            (json!({"type": "text", "text": ""}), delta)
        } else {
            let mut empty = block.clone();
            empty["input"] = json!({});
            let partial = block["input"].to_string();
            (
                empty,
                json!({"type": "input_json_delta", "partial_json": partial}),
            )
        };
        let started =
            json!({"type": "content_block_start", "index": index, "content_block": empty});
        fake_model::event(&mut out, "content_block_start", &started);
        let delta = json!({"type": "content_block_delta", "index": index, "delta": delta});
        fake_model::event(&mut out, "content_block_delta", &delta);
        let stop = json!({"type": "content_block_stop", "index": index});
        fake_model::event(&mut out, "content_block_stop", &stop);
    }
    let delta = json!({"type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {"output_tokens": 24}});
    fake_model::event(&mut out, "message_delta", &delta);
    fake_model::event(&mut out, "message_stop", &json!({"type": "message_stop"}));
    ([(header::CONTENT_TYPE, "text/event-stream")], out).into_response()
}
