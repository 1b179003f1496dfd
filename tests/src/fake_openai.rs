//! OpenAI's Responses API faked at its wire protocol on loopback, for Codex run as a
//! runner (a `model_provider` whose `base_url` is `<this>/v1`, `wire_api = "responses"`):
//! `POST /v1/responses` answered from a script ([`crate::fake_model`]) as the API streams
//! it, server-sent events `response.created`, then per output item
//! `response.output_item.added`, its deltas (`response.output_text.delta`,
//! `response.function_call_arguments.delta`, `response.custom_tool_call_input.delta`)
//! and `response.output_item.done`, then `response.completed`. A call of a tool the
//! request offers as `custom` (free-form input, Codex's `apply_patch`) is a
//! `custom_tool_call`; of `tool_search` (Codex defers MCP tools behind it and runs the
//! search itself) a `tool_search_call`; of `<namespace>__<function>` for a function of a
//! namespace offered (what a tool search found) a `function_call` with its `namespace`;
//! any other a `function_call`. A request without the expected
//! `Authorization: Bearer` key gets the API's 401. Every request is kept, other paths
//! too (answered 404).

use axum::body::Bytes;
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::fake_model::{self, Request, Round, Say, Served, Stand, UNSCRIPTED};

pub struct FakeOpenAi {
    /// The API base a provider's `base_url` names: `http://127.0.0.1:<port>/v1`.
    pub base_url: String,
    key: String,
    stand: Stand,
}

impl FakeOpenAi {
    /// Serves `rounds` to callers presenting `key` as `Authorization: Bearer`.
    pub async fn start(key: &str, rounds: Vec<Round>) -> FakeOpenAi {
        let not_found = json!({"error": {"message": "Not found", "type": "invalid_request_error", "param": null, "code": null}});
        let handler = axum::routing::post(responses);
        let stand = Stand::start(key, rounds, "/v1/responses", handler, not_found).await;
        FakeOpenAi {
            base_url: format!("{}/v1", stand.base),
            key: key.to_owned(),
            stand,
        }
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<Request> {
        self.stand.requests()
    }

    /// The requests to `/v1/responses` that carried the key.
    pub fn answered(&self) -> Vec<Request> {
        self.stand.keyed(
            "/v1/responses",
            "authorization",
            &format!("Bearer {}", self.key),
        )
    }
}

/// The person's words in a Responses request: the text of its `user` messages.
pub fn user_text(body: &Value) -> String {
    let mut said = String::new();
    let input = body["input"].as_array().into_iter().flatten();
    for item in input.filter(|i| i["role"] == "user") {
        match &item["content"] {
            Value::String(s) => said.push_str(s),
            Value::Array(parts) => {
                for p in parts.iter().filter(|p| p["type"] == "input_text") {
                    said.push_str(p["text"].as_str().unwrap_or_default());
                    said.push('\n');
                }
            }
            _ => {}
        }
    }
    said
}

/// The tool outputs a Responses request carries (`function_call_output`,
/// `custom_tool_call_output`, `tool_search_output`…), oldest first.
pub fn tool_outputs(body: &Value) -> Vec<Value> {
    let input = body["input"].as_array().into_iter().flatten();
    input
        .filter(|i| i["type"].as_str().is_some_and(|t| t.ends_with("_output")))
        .cloned()
        .collect()
}

/// How a call of `name` goes out, as the request offers that tool.
enum Kind {
    /// A `custom` tool: free-form input (Codex's `apply_patch`).
    Custom,
    /// The `tool_search` tool a client runs itself (Codex finds MCP tools with it).
    ToolSearch,
    /// A function of a namespace (`mcp__svc` + `repos` for `mcp__svc__repos`), offered
    /// in the request's tools or by an earlier tool search's output.
    Namespaced {
        namespace: String,
        name: String,
    },
    Function,
}

fn kind(body: &Value, name: &str) -> Kind {
    let tools = body["tools"].as_array().into_iter().flatten();
    let found = body["input"].as_array().into_iter().flatten();
    let found = found
        .filter(|i| i["type"] == "tool_search_output")
        .filter_map(|i| i["tools"].as_array())
        .flatten();
    let all: Vec<&Value> = tools.chain(found).collect();
    if all
        .iter()
        .any(|t| t["name"] == name && t["type"] == "custom")
    {
        return Kind::Custom;
    }
    if name == "tool_search" && all.iter().any(|t| t["type"] == "tool_search") {
        return Kind::ToolSearch;
    }
    for ns in all.iter().filter(|t| t["type"] == "namespace") {
        let prefix = ns["name"].as_str().unwrap_or_default();
        let Some(function) = name
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix("__"))
        else {
            continue;
        };
        let inner = ns["tools"].as_array().into_iter().flatten();
        if inner.into_iter().any(|t| t["name"] == function) {
            return Kind::Namespaced {
                namespace: prefix.to_owned(),
                name: function.to_owned(),
            };
        }
    }
    Kind::Function
}

/// The events of one output item, from `added` to `done`; answers the finished item.
fn item(out: &mut String, seq: &mut u64, index: usize, item: Value, deltas: &[Value]) -> Value {
    let mut send = |out: &mut String, mut data: Value| {
        data["sequence_number"] = json!(*seq);
        *seq += 1;
        let name = data["type"].as_str().unwrap_or_default().to_owned();
        fake_model::event(out, &name, &data);
    };
    let mut added = item.clone();
    added["status"] = json!("in_progress");
    for field in ["arguments", "input"] {
        if added.get(field).is_some() {
            added[field] = json!("");
        }
    }
    if added["type"] == "message" {
        added["content"] = json!([]);
    }
    let id = item["id"].clone();
    send(
        out,
        json!({"type": "response.output_item.added", "output_index": index, "item": added}),
    );
    for delta in deltas {
        let mut delta = delta.clone();
        delta["item_id"] = id.clone();
        delta["output_index"] = json!(index);
        send(out, delta);
    }
    let mut done = item;
    done["status"] = json!("completed");
    send(
        out,
        json!({"type": "response.output_item.done", "output_index": index, "item": done}),
    );
    done
}

async fn responses(
    State(served): State<Served>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let number = served.shared.requests().len();
    let bearer = format!("Bearer {}", served.key);
    let key_ok = headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&*bearer);
    served.shared.keep(Request {
        path: uri.to_string(),
        headers,
        body: body.clone(),
    });
    if !key_ok {
        let error = json!({"error": {"message": "Incorrect API key provided",
            "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}});
        return (StatusCode::UNAUTHORIZED, axum::Json(error)).into_response();
    }
    let unscripted = [Say::text(UNSCRIPTED)];
    let says = served
        .shared
        .turn(&user_text(&body), tool_outputs(&body).len())
        .unwrap_or(&unscripted);
    let model = body["model"].as_str().unwrap_or("gpt-stand-in");
    let id = format!("resp_standin_{number:04}");
    let (mut out, mut seq) = (String::new(), 0u64);
    let created = json!({"type": "response.created", "sequence_number": 0, "response": {
        "id": id, "object": "response", "status": "in_progress", "model": model, "output": [],
    }});
    fake_model::event(&mut out, "response.created", &created);
    seq += 1;
    let mut output = Vec::new();
    for (index, say) in says.iter().enumerate() {
        let item_id = format!("{number:04}_{index}");
        let call_id = format!("call_standin_{item_id}");
        let done = match say {
            Say::Text(text) => {
                let part = json!({"type": "output_text", "text": text, "annotations": []});
                let full = json!({"id": format!("msg_{item_id}"), "type": "message",
                    "role": "assistant", "content": [part]});
                let deltas = [
                    json!({"type": "response.content_part.added", "content_index": 0,
                        "part": {"type": "output_text", "text": "", "annotations": []}}),
                    json!({"type": "response.output_text.delta", "content_index": 0,
                        "delta": text}),
                    json!({"type": "response.output_text.done", "content_index": 0,
                        "text": text}),
                    json!({"type": "response.content_part.done", "content_index": 0,
                        "part": part}),
                ];
                item(&mut out, &mut seq, index, full, &deltas)
            }
            Say::Call { name, input } => match kind(&body, name) {
                Kind::Custom => {
                    let input = input.as_str().unwrap_or_default();
                    let full = json!({"id": format!("ctc_{item_id}"),
                        "type": "custom_tool_call", "call_id": call_id, "name": name,
                        "input": input});
                    let deltas = [
                        json!({"type": "response.custom_tool_call_input.delta", "delta": input}),
                        json!({"type": "response.custom_tool_call_input.done", "input": input}),
                    ];
                    item(&mut out, &mut seq, index, full, &deltas)
                }
                Kind::ToolSearch => {
                    let full = json!({"id": format!("ts_{item_id}"), "type": "tool_search_call",
                        "call_id": call_id, "execution": "client", "arguments": input});
                    item(&mut out, &mut seq, index, full, &[])
                }
                kind => {
                    let arguments = input.to_string();
                    let mut full = json!({"id": format!("fc_{item_id}"),
                        "type": "function_call", "call_id": call_id, "name": name,
                        "arguments": arguments});
                    if let Kind::Namespaced { namespace, name } = kind {
                        full["namespace"] = json!(namespace);
                        full["name"] = json!(name);
                    }
                    let deltas = [
                        json!({"type": "response.function_call_arguments.delta",
                            "delta": arguments}),
                        json!({"type": "response.function_call_arguments.done",
                            "arguments": arguments}),
                    ];
                    item(&mut out, &mut seq, index, full, &deltas)
                }
            },
        };
        output.push(done);
    }
    let completed = json!({"type": "response.completed", "sequence_number": seq, "response": {
        "id": id, "object": "response", "status": "completed", "model": model,
        "output": output,
        "usage": {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 24, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 36},
    }});
    fake_model::event(&mut out, "response.completed", &completed);
    ([(header::CONTENT_TYPE, "text/event-stream")], out).into_response()
}
