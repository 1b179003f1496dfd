//! Runner output formats: a coding agent's standard output, JSON lines, read one line
//! at a time as it arrives into transcript messages. Nothing a runner prints is lost:
//! a line a format does not understand is kept as assistant text.

use std::collections::HashSet;

use serde_json::{Value, json};
use svc_protocol::agent::{NewMessage, Part, Role};

/// The longest line taken, in bytes; a longer one is cut and kept as text (no runner
/// writes a JSON line that long, so it is not one to parse).
pub const LINE_MAX: usize = 1 << 20;

/// A runner's output format, as the server's TOML names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Claude Code: `claude -p --output-format stream-json --verbose`.
    ClaudeStreamJson,
    /// Codex: `codex exec --json`.
    CodexJson,
    /// A program written for svc: one `NewMessage` per line.
    SvcJsonl,
}

/// What a run said at its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub is_error: bool,
    pub summary: Option<String>,
}

/// Reads one runner's output line by line. Holds what a format spreads over several lines.
pub struct Reader {
    format: Format,
    outcome: Option<Outcome>,
    /// Codex items whose call was already given at `item.started`, so their
    /// `item.completed` gives only the result.
    started: HashSet<String>,
}

impl Reader {
    pub fn new(format: Format) -> Reader {
        Reader {
            format,
            outcome: None,
            started: HashSet::new(),
        }
    }

    /// The messages one line of output gives (often none, sometimes several).
    pub fn line(&mut self, line: &str) -> Vec<NewMessage> {
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            return Vec::new();
        }
        if line.len() > LINE_MAX {
            let cut = &line[..line.floor_char_boundary(LINE_MAX)];
            return say(Role::Assistant, vec![text(cut)]);
        }
        let read = match self.format {
            Format::ClaudeStreamJson => json_of(line).and_then(|v| self.claude(&v)),
            Format::CodexJson => json_of(line).and_then(|v| self.codex(&v)),
            Format::SvcJsonl => serde_json::from_str(line).ok().map(|m| vec![m]),
        };
        read.unwrap_or_else(|| say(Role::Assistant, vec![text(line)]))
    }

    /// What the run said at its end, if its format says (Claude's `result` line, Codex's
    /// turn ends and errors): `Some` once seen.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// One Claude line; `None` when it is not one Claude documents (kept as text).
    fn claude(&mut self, v: &Value) -> Option<Vec<NewMessage>> {
        match str_of(v, "type")? {
            // Partial-message deltas (`--include-partial-messages`) repeat what the whole
            // assistant line brings after them.
            "system" | "stream_event" => Some(Vec::new()),
            "result" => {
                let failed = str_of(v, "subtype").is_some_and(|s| s != "success");
                let summary = str_of(v, "result").map(str::to_owned);
                let is_error = flag(v, "is_error") || failed;
                self.outcome = Some(Outcome { is_error, summary });
                Some(Vec::new())
            }
            "assistant" => claude_message(Role::Assistant, v),
            "user" => claude_message(Role::User, v),
            _ => None,
        }
    }

    /// One Codex line; `None` when it is not one Codex documents (kept as text).
    fn codex(&mut self, v: &Value) -> Option<Vec<NewMessage>> {
        match str_of(v, "type")? {
            "thread.started" | "turn.started" => Some(Vec::new()),
            "turn.completed" => {
                if !self.outcome.as_ref().is_some_and(|o| o.is_error) {
                    let (is_error, summary) = (false, None);
                    self.outcome = Some(Outcome { is_error, summary });
                }
                Some(Vec::new())
            }
            kind @ ("turn.failed" | "error") => {
                let said = if kind == "error" { v } else { v.get("error")? };
                let (is_error, summary) = (true, str_of(said, "message").map(str::to_owned));
                self.outcome = Some(Outcome { is_error, summary });
                Some(Vec::new())
            }
            kind @ ("item.started" | "item.updated" | "item.completed") => {
                let item = v.get("item")?;
                let (id, item_type) = (str_of(item, "id")?, str_of(item, "type")?);
                if kind == "item.completed" {
                    return self.codex_item(id, item_type, item);
                }
                // Items are whole only when completed; but a running command or tool call
                // shows at once, so a live transcript has it while it runs.
                let runs = matches!(item_type, "command_execution" | "mcp_tool_call");
                if kind == "item.started" && runs {
                    let call = codex_call(id, item_type, item)?;
                    self.started.insert(id.to_owned());
                    return Some(say(Role::Assistant, vec![call]));
                }
                Some(Vec::new())
            }
            _ => None,
        }
    }

    /// A completed Codex item.
    fn codex_item(&mut self, id: &str, item_type: &str, item: &Value) -> Option<Vec<NewMessage>> {
        let field = |name: &str| str_of(item, name).map(str::to_owned);
        let part = match item_type {
            "agent_message" => text(field("text")?),
            "reasoning" => thinking(field("text")?),
            "error" => text(field("message")?),
            "web_search" => codex_call(id, item_type, item)?,
            "todo_list" => {
                let items = item.get("items")?.as_array()?.iter();
                let lines = items.map(|t| {
                    let done = if flag(t, "completed") { "x" } else { " " };
                    format!("- [{done}] {}", str_of(t, "text").unwrap_or(""))
                });
                text(lines.collect::<Vec<_>>().join("\n"))
            }
            "command_execution" | "mcp_tool_call" | "file_change" => {
                let result = codex_result(id, item_type, item)?;
                let mut messages = say(Role::Tool, vec![result]);
                if !self.started.remove(id) {
                    let call = codex_call(id, item_type, item)?;
                    messages.insert(0, msg(Role::Assistant, vec![call]));
                }
                return Some(messages);
            }
            _ => return None,
        };
        Some(say(Role::Assistant, vec![part]))
    }
}

/// A Claude `assistant` or `user` line.
fn claude_message(role: Role, v: &Value) -> Option<Vec<NewMessage>> {
    let blocks = match v.get("message")?.get("content")? {
        Value::String(s) => return Some(say(role, vec![text(s)])),
        Value::Array(blocks) => blocks,
        _ => return None,
    };
    let parts = blocks.iter().filter_map(claude_block);
    let messages = if role == Role::Assistant {
        let parts = parts.filter(|p| !is_result(p)).collect();
        vec![msg(role, parts)]
    } else {
        // The API puts a user turn's tool results before any text.
        let (results, said): (Vec<Part>, Vec<Part>) = parts.partition(is_result);
        let said = said.into_iter().filter(|p| matches!(p, Part::Text { .. }));
        vec![msg(Role::Tool, results), msg(role, said.collect())]
    };
    Some(
        messages
            .into_iter()
            .filter(|m| !m.parts.is_empty())
            .collect(),
    )
}

/// One block of a Claude message's content; `None` for block types a transcript does
/// not show (images, redacted thinking…), which are skipped.
fn claude_block(block: &Value) -> Option<Part> {
    let field = |name: &str| str_of(block, name).map(str::to_owned);
    let value = |name: &str| block.get(name).cloned().unwrap_or(Value::Null);
    Some(match str_of(block, "type")? {
        "text" => text(field("text")?),
        "thinking" => thinking(field("thinking")?),
        "tool_use" => call(field("id")?, field("name")?, value("input")),
        "tool_result" => result(
            field("tool_use_id")?,
            value("content"),
            flag(block, "is_error"),
        ),
        _ => return None,
    })
}

/// The call a Codex tool item stands for.
fn codex_call(id: &str, item_type: &str, item: &Value) -> Option<Part> {
    let value = |name: &str| item.get(name).cloned().unwrap_or(Value::Null);
    let (name, input) = match item_type {
        "command_execution" => ("command".into(), json!({ "command": value("command") })),
        "file_change" => ("file_change".into(), json!({ "changes": value("changes") })),
        "web_search" => ("web_search".into(), json!({ "query": value("query") })),
        "mcp_tool_call" => {
            let (server, tool) = (str_of(item, "server")?, str_of(item, "tool")?);
            (format!("{server}.{tool}"), value("arguments"))
        }
        _ => return None,
    };
    Some(call(id, name, input))
}

/// The result of a completed Codex tool item.
fn codex_result(id: &str, item_type: &str, item: &Value) -> Option<Part> {
    let status = str_of(item, "status").unwrap_or("");
    let failed = status == "failed";
    let (output, is_error) = match item_type {
        "command_execution" => {
            let out = str_of(item, "aggregated_output").unwrap_or("");
            let code = item.get("exit_code").and_then(Value::as_i64);
            (json!(out), failed || code.is_some_and(|c| c != 0))
        }
        "file_change" => (json!(status), failed),
        "mcp_tool_call" => {
            let present = |name: &str| item.get(name).filter(|v| !v.is_null());
            let error = present("error");
            let output = present("result").or(error).cloned().unwrap_or(Value::Null);
            (output, failed || error.is_some())
        }
        _ => return None,
    };
    Some(result(id, output, is_error))
}

fn json_of(line: &str) -> Option<Value> {
    serde_json::from_str(line).ok()
}

fn str_of<'a>(v: &'a Value, name: &str) -> Option<&'a str> {
    v.get(name)?.as_str()
}

/// A boolean field, false when missing.
fn flag(v: &Value, name: &str) -> bool {
    v.get(name).and_then(Value::as_bool).unwrap_or(false)
}

fn is_result(part: &Part) -> bool {
    matches!(part, Part::ToolResult { .. })
}

fn text(text: impl Into<String>) -> Part {
    Part::Text { text: text.into() }
}

fn thinking(text: impl Into<String>) -> Part {
    Part::Thinking { text: text.into() }
}

fn call(id: impl Into<String>, name: impl Into<String>, input: Value) -> Part {
    let (id, name) = (id.into(), name.into());
    Part::ToolCall { id, name, input }
}

fn result(id: impl Into<String>, output: Value, is_error: bool) -> Part {
    Part::ToolResult {
        id: id.into(),
        output,
        is_error,
    }
}

fn msg(role: Role, parts: Vec<Part>) -> NewMessage {
    NewMessage { role, parts }
}

/// One message, as the list a line gives.
fn say(role: Role, parts: Vec<Part>) -> Vec<NewMessage> {
    vec![msg(role, parts)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each line gives, and the reader after the last.
    fn read(format: Format, lines: &str) -> (Vec<Vec<NewMessage>>, Reader) {
        let mut reader = Reader::new(format);
        let got = lines.lines().map(|l| reader.line(l)).collect();
        (got, reader)
    }

    fn assistant(parts: Vec<Part>) -> NewMessage {
        msg(Role::Assistant, parts)
    }

    fn tool(parts: Vec<Part>) -> NewMessage {
        msg(Role::Tool, parts)
    }

    fn outcome(is_error: bool, summary: Option<&str>) -> Option<Outcome> {
        let summary = summary.map(str::to_owned);
        Some(Outcome { is_error, summary })
    }

    const CLAUDE_RUN: &str = r#"{"type":"system","subtype":"init","cwd":"/home/ann/src/svc","session_id":"4d1c9a52-7a0e-4f3b-9a57-0c2d8e5f1b66","tools":["Task","Bash","Glob","Grep","Read","Edit","Write","TodoWrite"],"mcp_servers":[],"model":"claude-sonnet-4-5-20250929","permissionMode":"bypassPermissions","slash_commands":["compact","review"],"apiKeySource":"none","output_style":"default","uuid":"b0e5f7a1-2c3d-4e5f-8a9b-0c1d2e3f4a5b"}
{"type":"assistant","message":{"id":"msg_01VxY2kq8bT3wZ","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"thinking","thinking":"The tests live in server/tests; run them first.","signature":"EqQBCkYIBxgCKkBz"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":5120,"cache_read_input_tokens":0,"output_tokens":12,"service_tier":"standard"}},"parent_tool_use_id":null,"session_id":"4d1c9a52-7a0e-4f3b-9a57-0c2d8e5f1b66","uuid":"c1"}
{"type":"assistant","message":{"id":"msg_01VxY2kq8bT3wZ","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"I'll run the tests."},{"type":"tool_use","id":"toolu_01A9f","name":"Bash","input":{"command":"cargo test -p svc-server","description":"Run the server tests"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":0,"cache_read_input_tokens":5120,"output_tokens":61,"service_tier":"standard"}},"parent_tool_use_id":null,"session_id":"4d1c9a52-7a0e-4f3b-9a57-0c2d8e5f1b66","uuid":"c2"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01A9f","type":"tool_result","content":"test result: ok. 42 passed; 0 failed","is_error":false}]},"parent_tool_use_id":null,"session_id":"4d1c9a52-7a0e-4f3b-9a57-0c2d8e5f1b66","uuid":"c3"}
{"type":"assistant","message":{"id":"msg_01Hq7","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"All 42 tests pass."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":2,"output_tokens":9}},"parent_tool_use_id":null,"session_id":"4d1c9a52-7a0e-4f3b-9a57-0c2d8e5f1b66","uuid":"c4"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":18234,"duration_api_ms":15020,"num_turns":3,"result":"All 42 tests pass.","session_id":"4d1c9a52-7a0e-4f3b-9a57-0c2d8e5f1b66","total_cost_usd":0.0421,"usage":{"input_tokens":10,"cache_creation_input_tokens":5120,"cache_read_input_tokens":10240,"output_tokens":82},"permission_denials":[],"uuid":"c5"}"#;

    #[test]
    fn claude_run_reads_message_by_message() {
        let (got, reader) = read(Format::ClaudeStreamJson, CLAUDE_RUN);
        let thought = "The tests live in server/tests; run them first.";
        let bash =
            json!({"command": "cargo test -p svc-server", "description": "Run the server tests"});
        let passed = json!("test result: ok. 42 passed; 0 failed");
        let want = vec![
            vec![],
            vec![assistant(vec![thinking(thought)])],
            vec![assistant(vec![
                text("I'll run the tests."),
                call("toolu_01A9f", "Bash", bash),
            ])],
            vec![tool(vec![result("toolu_01A9f", passed, false)])],
            vec![assistant(vec![text("All 42 tests pass.")])],
            vec![],
        ];
        assert_eq!(got, want);
        assert_eq!(
            reader.outcome().cloned(),
            outcome(false, Some("All 42 tests pass."))
        );
    }

    #[test]
    fn claude_user_text_tool_errors_and_unknown_blocks() {
        let lines = r#"{"type":"user","message":{"role":"user","content":"Also fix the typo in README.md"},"session_id":"s1"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02","content":[{"type":"text","text":"No such file"}],"is_error":true},{"type":"tool_result","tool_use_id":"toolu_03","content":"ok"},{"type":"text","text":"Stop after this one."}]},"session_id":"s1"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"Fixed."}]},"session_id":"s1"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"redacted_thinking","data":"xyz"}]},"session_id":"s1"}
{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Fix"}},"session_id":"s1"}
{"type":"system","subtype":"compact_boundary","session_id":"s1"}"#;
        let (got, reader) = read(Format::ClaudeStreamJson, lines);
        let not_found = json!([{"type": "text", "text": "No such file"}]);
        let results = vec![
            result("toolu_02", not_found, true),
            result("toolu_03", json!("ok"), false),
        ];
        let want = vec![
            vec![msg(
                Role::User,
                vec![text("Also fix the typo in README.md")],
            )],
            vec![
                tool(results),
                msg(Role::User, vec![text("Stop after this one.")]),
            ],
            vec![assistant(vec![text("Fixed.")])],
            vec![],
            vec![],
            vec![],
        ];
        assert_eq!(got, want);
        assert_eq!(reader.outcome(), None);
    }

    #[test]
    fn claude_error_result_sets_outcome() {
        let line = r#"{"type":"result","subtype":"error_max_turns","is_error":false,"duration_ms":90210,"num_turns":30,"session_id":"s1","total_cost_usd":1.2}"#;
        let (got, reader) = read(Format::ClaudeStreamJson, line);
        assert_eq!(got, vec![vec![]]);
        assert_eq!(reader.outcome().cloned(), outcome(true, None));
    }

    const CODEX_RUN: &str = r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Looking at the layout**"}}
{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"Cargo.toml\nserver\n","exit_code":0,"status":"completed"}}
{"type":"item.started","item":{"id":"item_2","type":"todo_list","items":[{"text":"Read the config","completed":false},{"text":"Fix the parser","completed":false}]}}
{"type":"item.updated","item":{"id":"item_2","type":"todo_list","items":[{"text":"Read the config","completed":true},{"text":"Fix the parser","completed":false}]}}
{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"server/src/config.rs","kind":"update"}],"status":"completed"}}
{"type":"item.completed","item":{"id":"item_2","type":"todo_list","items":[{"text":"Read the config","completed":true},{"text":"Fix the parser","completed":true}]}}
{"type":"item.completed","item":{"id":"item_4","type":"agent_message","text":"Fixed the parser in config.rs."}}
{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}"#;

    #[test]
    fn codex_run_reads_message_by_message() {
        let (got, reader) = read(Format::CodexJson, CODEX_RUN);
        let ls = json!({"command": "bash -lc ls"});
        let changes = json!({"changes": [{"path": "server/src/config.rs", "kind": "update"}]});
        let want = vec![
            vec![],
            vec![],
            vec![assistant(vec![thinking("**Looking at the layout**")])],
            vec![assistant(vec![call("item_1", "command", ls)])],
            vec![tool(vec![result(
                "item_1",
                json!("Cargo.toml\nserver\n"),
                false,
            )])],
            vec![],
            vec![],
            vec![
                assistant(vec![call("item_3", "file_change", changes)]),
                tool(vec![result("item_3", json!("completed"), false)]),
            ],
            vec![assistant(vec![text(
                "- [x] Read the config\n- [x] Fix the parser",
            )])],
            vec![assistant(vec![text("Fixed the parser in config.rs.")])],
            vec![],
        ];
        assert_eq!(got, want);
        assert_eq!(reader.outcome().cloned(), outcome(false, None));
    }

    #[test]
    fn codex_command_completed_without_start_gives_call_and_failed_result() {
        let line = r#"{"type":"item.completed","item":{"id":"item_7","type":"command_execution","command":"cargo build","aggregated_output":"error[E0425]: cannot find value `x`\n","exit_code":101,"status":"failed"}}"#;
        let (got, _) = read(Format::CodexJson, line);
        let build = json!({"command": "cargo build"});
        let failed = json!("error[E0425]: cannot find value `x`\n");
        let want = vec![vec![
            assistant(vec![call("item_7", "command", build)]),
            tool(vec![result("item_7", failed, true)]),
        ]];
        assert_eq!(got, want);
    }

    #[test]
    fn codex_mcp_call_started_then_completed_with_error() {
        let lines = r#"{"type":"item.started","item":{"id":"item_5","type":"mcp_tool_call","server":"svc","tool":"read_issue","arguments":{"number":12},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_5","type":"mcp_tool_call","server":"svc","tool":"read_issue","arguments":{"number":12},"result":null,"error":{"message":"no issue 12"},"status":"failed"}}
{"type":"item.completed","item":{"id":"item_6","type":"mcp_tool_call","server":"svc","tool":"list_branches","result":{"content":[{"type":"text","text":"main"}]},"status":"completed"}}"#;
        let (got, _) = read(Format::CodexJson, lines);
        let no_issue = json!({"message": "no issue 12"});
        let listed = json!({"content": [{"type": "text", "text": "main"}]});
        let want = vec![
            vec![assistant(vec![call(
                "item_5",
                "svc.read_issue",
                json!({"number": 12}),
            )])],
            vec![tool(vec![result("item_5", no_issue, true)])],
            vec![
                assistant(vec![call("item_6", "svc.list_branches", Value::Null)]),
                tool(vec![result("item_6", listed, false)]),
            ],
        ];
        assert_eq!(got, want);
    }

    /// Found by fuzzing: a number is stored and sent as the runner wrote it, so a
    /// message read back from its wire shape is the same message.
    #[test]
    fn a_large_number_survives_the_wire_shape() {
        let line = r#"{"type":"item.started","item":{"id":"item_5","type":"mcp_tool_call","server":"svc","tool":"read_issue","arguments":{"number":1.2999e+27},"status":"in_progress"}}"#;
        let (got, _) = read(Format::CodexJson, line);
        let message = &got[0][0];
        let wire = serde_json::to_string(message).unwrap();
        let back: NewMessage = serde_json::from_str(&wire).unwrap();
        assert_eq!(&back, message, "{wire}");
    }

    #[test]
    fn codex_search_error_item_and_failed_turn() {
        let lines = r#"{"type":"item.completed","item":{"id":"item_8","type":"web_search","query":"gix shallow clone"}}
{"type":"item.completed","item":{"id":"item_9","type":"error","message":"command timed out"}}
{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}
{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}"#;
        let (got, reader) = read(Format::CodexJson, lines);
        let query = json!({"query": "gix shallow clone"});
        let want = vec![
            vec![assistant(vec![call("item_8", "web_search", query)])],
            vec![assistant(vec![text("command timed out")])],
            vec![],
            vec![],
        ];
        assert_eq!(got, want);
        let failed = outcome(true, Some("stream disconnected before completion"));
        assert_eq!(reader.outcome().cloned(), failed);

        let (_, reader) = read(
            Format::CodexJson,
            r#"{"type":"error","message":"quota exceeded"}"#,
        );
        assert_eq!(
            reader.outcome().cloned(),
            outcome(true, Some("quota exceeded"))
        );
    }

    #[test]
    fn svc_jsonl_reads_messages_and_ignores_extra_fields() {
        let lines = r#"{"index":0,"at":"2025-06-01T10:00:00Z","role":"user","parts":[{"type":"text","text":"Review my branch"}]}
{"role":"assistant","parts":[{"type":"thinking","text":"Look at the diff."},{"type":"tool-call","id":"c1","name":"diff","input":{"base":"main"}}]}
{"role":"tool","parts":[{"type":"tool-result","id":"c1","output":"+1 -1","is_error":false}]}
{"role":"robot","parts":[]}"#;
        let (got, reader) = read(Format::SvcJsonl, lines);
        let want = vec![
            vec![msg(Role::User, vec![text("Review my branch")])],
            vec![assistant(vec![
                thinking("Look at the diff."),
                call("c1", "diff", json!({"base": "main"})),
            ])],
            vec![tool(vec![result("c1", json!("+1 -1"), false)])],
            vec![assistant(vec![text(r#"{"role":"robot","parts":[]}"#)])],
        ];
        assert_eq!(got, want);
        assert_eq!(reader.outcome(), None);
    }

    #[test]
    fn lines_not_understood_are_kept_as_text() {
        let lines = [
            "warning: config file not found\r\n",
            "   \r\n",
            "[1,2,3]\n",
            r#"{"type":"hologram","event":{}}"#,
            r#"{"type":"item.completed","item":{"id":"item_1","type":"hologram"}}"#,
            "",
        ];
        for format in [
            Format::ClaudeStreamJson,
            Format::CodexJson,
            Format::SvcJsonl,
        ] {
            let mut reader = Reader::new(format);
            let got: Vec<_> = lines.iter().map(|l| reader.line(l)).collect();
            let want = vec![
                vec![assistant(vec![text("warning: config file not found")])],
                vec![],
                vec![assistant(vec![text("[1,2,3]")])],
                vec![assistant(vec![text(lines[3])])],
                vec![assistant(vec![text(lines[4])])],
                vec![],
            ];
            assert_eq!(got, want, "{format:?}");
        }
    }

    #[test]
    fn line_over_max_is_cut_at_char_boundary() {
        // "é" is two bytes after a one-byte "x": byte LINE_MAX falls inside one.
        let long = format!("x{}", "é".repeat(LINE_MAX));
        let got = Reader::new(Format::SvcJsonl).line(&long);
        assert_eq!(got, vec![assistant(vec![text(&long[..LINE_MAX - 1])])]);
    }

    #[test]
    fn format_names_from_toml() {
        #[derive(serde::Deserialize)]
        struct Runner {
            format: Format,
        }
        let name = |s: &str| toml::from_str(&format!("format = \"{s}\"")).map(|r: Runner| r.format);
        assert_eq!(
            name("claude-stream-json").ok(),
            Some(Format::ClaudeStreamJson)
        );
        assert_eq!(name("codex-json").ok(), Some(Format::CodexJson));
        assert_eq!(name("svc-jsonl").ok(), Some(Format::SvcJsonl));
        assert!(name("claude").is_err());
    }
}
