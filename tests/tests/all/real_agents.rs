//! The real coding-agent command lines, Claude Code and Codex, run by svc as runners,
//! configured with the README's own `[agents]` settings, against stand-ins of their
//! model APIs at the wire protocol (`svc_tests::fake_anthropic`, `fake_openai`). The
//! stand-in model scripts one session: a reply with text, a tool call that edits a file,
//! a shell call that commits and pushes, and a call of svc's own `repos` tool through
//! `svc mcp`; then, on a follow-up message, a second round.
//!
//! The command lines come from `.ci/agent-clis.sh` (pinned versions from the npm
//! registry, in `target/agent-clis` or `SVC_TEST_AGENT_CLIS`). A machine without them
//! fails these tests with that fix, unless `SVC_TEST_NO_AGENT_CLIS=1` says it runs
//! without them on purpose.
//!
//! From the README's settings the test changes only what points at the machine: where
//! the command lines are installed, the model APIs' base URLs (the stand-ins), the key
//! files, and the stand-in's loopback port in the runner's `host_ports` (the sandbox's
//! network reaches no other host loopback port).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::fake_anthropic::{self, FakeAnthropic};
use svc_tests::fake_model::{Round, Say};
use svc_tests::fake_openai::{self, FakeOpenAi};
use svc_tests::{TestApp, expect_json};

use crate::agents::{M, launch, settled};

/// The keys the stand-ins expect; none may show anywhere svc shows things.
const ANTHROPIC_KEY: &str = "sk-ant-api03-standin-Zq4vT9xLw2";
const OPENAI_KEY: &str = "sk-proj-standin-Hn7cR3pKd8";

/// What the README says in its settings, replaced by the test's own.
const README_CLIS: &str = "/opt/agent-clis";
const README_ANTHROPIC: &str = "https://api.anthropic.com";
const README_OPENAI: &str = "https://api.openai.com/v1";
const README_ANTHROPIC_KEY: &str = "/etc/svc/anthropic-api-key";
const README_OPENAI_KEY: &str = "/etc/svc/openai-api-key";

const PROMPT: &str = "Fix the bug";
const FOLLOW_UP: &str = "Also add a test";
const FIXED: &str = "The bug is fixed.\n";

/// Where `.ci/agent-clis.sh` installed the command lines; `None` (the caller skips)
/// only when `SVC_TEST_NO_AGENT_CLIS=1`.
fn clis() -> Option<PathBuf> {
    let dir = std::env::var_os("SVC_TEST_AGENT_CLIS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/agent-clis"),
        PathBuf::from,
    );
    let bin = dir.join("node_modules/.bin");
    if bin.join("claude").is_file() && bin.join("codex").is_file() {
        return Some(dir.canonicalize().expect("the command lines' dir"));
    }
    if std::env::var_os("SVC_TEST_NO_AGENT_CLIS").is_some_and(|v| v == "1") {
        eprintln!("SVC_TEST_NO_AGENT_CLIS=1: skipping a test of the real agent command lines");
        return None;
    }
    panic!(
        "this test runs Claude Code and Codex from {}, which has them not: run \
         .ci/agent-clis.sh (npm; SVC_AGENT_CLIS_DIR and SVC_TEST_AGENT_CLIS name another \
         dir), or set SVC_TEST_NO_AGENT_CLIS=1 to skip these tests instead",
        dir.display()
    );
}

/// The README's `[agents]` settings for Claude Code and Codex (its `toml` block naming
/// their install dir), with `replace` done and `host_ports` given to every
/// runner; as `TestAppBuilder::agents` takes them (without the header).
fn readme_agents(replace: &[(&str, &str)], host_ports: &[u16]) -> String {
    let readme = include_str!("../../../README.md");
    let block = readme
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split_once("```").map(|(toml, _)| toml))
        .find(|b| b.contains(README_CLIS))
        .expect("the README's settings for Claude Code and Codex");
    let mut text = block.to_owned();
    for (from, to) in replace {
        assert!(text.contains(from), "the README's settings name {from}");
        text = text.replace(from, to);
    }
    let mut all: toml::Table = toml::from_str(&text).expect("the README's settings are TOML");
    let mut agents = all.remove("agents").expect("[agents]");
    let runners = agents["runners"].as_table_mut().expect("runners");
    for (_, runner) in runners.iter_mut() {
        let ports = host_ports.iter().map(|p| toml::Value::from(i64::from(*p)));
        runner
            .as_table_mut()
            .expect("a runner")
            .insert("host_ports".into(), toml::Value::Array(ports.collect()));
    }
    toml::to_string(&agents).expect("settings as TOML")
}

/// The README's example runner in `svc-jsonl` (its `python` block).
fn readme_runner() -> &'static str {
    let readme = include_str!("../../../README.md");
    let (_, after) = readme
        .split_once("```python\n")
        .expect("the README's svc-jsonl runner");
    after.split_once("```").expect("its block's end").0
}

/// A file readable by its owner only (a key file, as the README says to keep one).
fn key_file(dir: &Path, name: &str, key: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("{key}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path.display().to_string()
}

/// `ann/mono` with repo `app` on a server run as a process (its log kept) with
/// `agents`, main holding a first commit.
async fn server(agents: &str) -> svc_tests::Cloned {
    let builder = TestApp::builder().agents(agents).process();
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(&c.work, "First", &[("README.md", b"hello\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "HEAD:main"]);
    c
}

/// The transcript's parts as (role, type, tool name) in order.
fn parts(transcript: &Value) -> Vec<(String, String, String)> {
    let items = transcript["items"].as_array().unwrap();
    items
        .iter()
        .flat_map(|m| {
            let role = m["role"].as_str().unwrap().to_owned();
            let parts = m["parts"].as_array().unwrap().clone();
            parts.into_iter().map(move |p| {
                let name = p["name"].as_str().unwrap_or_default().to_owned();
                (role.clone(), p["type"].as_str().unwrap().to_owned(), name)
            })
        })
        .collect()
}

fn part(role: &str, kind: &str, name: &str) -> (String, String, String) {
    (role.to_owned(), kind.to_owned(), name.to_owned())
}

/// Each tool result answers the tool call right before it, and none failed.
fn results_answer_their_calls(transcript: &Value) {
    let all: Vec<&Value> = transcript["items"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .collect();
    for (i, p) in all.iter().enumerate() {
        if p["type"] == "tool-result" {
            let call = all[..i].iter().rev().find(|c| c["type"] == "tool-call");
            assert_eq!(p["id"], call.unwrap()["id"], "{transcript}");
            assert_eq!(p["is_error"], false, "a tool failed: {p}");
        }
    }
}

/// Launches the scripted session with `model` (of `runner`) on `fix-bug` and checks its
/// first round: idle at the end; the transcript's parts in order (text, the file edit,
/// the shell call that commits and pushes, svc's `repos` tool through `svc mcp`, named
/// as `tools` says, each answered); svc's own tool answered from svc with the run's
/// credential; the pushed commit. Answers the session's id.
async fn the_session_runs(
    app: &TestApp,
    ann: &str,
    (model, runner): (&str, &str),
    [write, shell, svc]: [&str; 3],
) -> String {
    let s = launch(
        app,
        ann,
        json!({"prompt": PROMPT, "branch": "fix-bug", "model": model}),
    )
    .await;
    let id = s["id"].as_str().unwrap().to_owned();
    let s = settled(app, ann, &id).await;
    assert_eq!(s["state"], "idle", "{s}");

    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    assert_eq!(
        parts(&t),
        [
            part("user", "text", ""),
            part("assistant", "text", ""),
            part("assistant", "tool-call", write),
            part("tool", "tool-result", ""),
            part("assistant", "tool-call", shell),
            part("tool", "tool-result", ""),
            part("assistant", "tool-call", svc),
            part("tool", "tool-result", ""),
            part("assistant", "text", ""),
        ],
        "{t}"
    );
    results_answer_their_calls(&t);
    assert_eq!(t["items"][1]["parts"][0]["text"], "I will write the fix.");
    let repos = t["items"][7]["parts"][0]["output"].to_string();
    assert!(repos.contains("app"), "{repos}");
    pushed(app, ann, &id, runner).await;
    id
}

/// The session's branch head: made by the agent's own commit, with svc's trailers.
async fn pushed(app: &TestApp, token: &str, id: &str, runner: &str) {
    let commits = app
        .get_json(token, &format!("{M}/repos/app/branches/fix-bug/commits"))
        .await;
    let head = &commits["items"][0];
    let message = head["message"].as_str().unwrap();
    assert_eq!(message.lines().next(), Some(PROMPT), "{head}");
    assert_eq!(head["trailers"]["Svc-Agent"], runner, "{head}");
    assert_eq!(head["trailers"]["Svc-Worktree"], id, "{head}");
    let file = app
        .as_user(
            Method::GET,
            &format!("{M}/repos/app/file?ref=fix-bug&path=FIXED.md"),
            token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(file.status(), StatusCode::OK);
    assert_eq!(file.text().await.unwrap(), FIXED);
}

/// Sends the follow-up and waits for the second round to end idle; answers the
/// transcript then.
async fn follow_up(app: &TestApp, token: &str, id: &str) -> Value {
    let r = app
        .as_user(Method::POST, &format!("{M}/agents/{id}/messages"), token)
        .json(&json!({"message": FOLLOW_UP}))
        .send()
        .await
        .unwrap();
    let _: Value = expect_json(r, StatusCode::ACCEPTED).await;
    let s = settled(app, token, id).await;
    assert_eq!(s["state"], "idle", "{s}");
    app.get_json(token, &format!("{M}/agents/{id}/transcript"))
        .await
}

/// The key shows nowhere svc shows things: the transcript, the events, the server's log.
async fn key_kept(app: &TestApp, token: &str, id: &str, key: &str) {
    let transcript = app
        .get_json(token, &format!("{M}/agents/{id}/transcript"))
        .await;
    assert!(!transcript.to_string().contains(key), "{transcript}");
    let session = app.get_json(token, &format!("{M}/agents/{id}")).await;
    assert!(!session.to_string().contains(key), "{session}");
    let events = app.get_json(token, &format!("{M}/events")).await;
    assert!(!events.to_string().contains(key), "the events hold the key");
    let log = app.server_log().expect("the server's log");
    assert!(!log.is_empty(), "the server's log is empty");
    assert!(!log.contains(key), "the server's log holds the key");
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_runs_a_session_against_the_messages_api() {
    let Some(clis) = clis() else { return };
    let shell = "git add FIXED.md && git commit -q -m 'Fix the bug' && git push -q";
    let model = FakeAnthropic::start(
        ANTHROPIC_KEY,
        vec![
            Round::new(
                PROMPT,
                vec![
                    vec![
                        Say::text("I will write the fix."),
                        Say::call("Write", json!({"file_path": "FIXED.md", "content": FIXED})),
                    ],
                    vec![Say::call(
                        "Bash",
                        json!({"command": shell, "description": "Commit and push"}),
                    )],
                    vec![Say::call("mcp__svc__repos", json!({}))],
                    vec![Say::text("Pushed the fix.")],
                ],
            ),
            Round::new(
                FOLLOW_UP,
                vec![vec![Say::text("Round two: the test is next.")]],
            ),
        ],
    )
    .await;
    let keys = tempfile::tempdir().unwrap();
    let key = key_file(keys.path(), "anthropic", ANTHROPIC_KEY);
    let openai = key_file(keys.path(), "openai", OPENAI_KEY);
    let port = model.base_url.rsplit(':').next().unwrap().parse().unwrap();
    let clis = clis.display().to_string();
    let agents = readme_agents(
        &[
            (README_CLIS, &clis),
            (README_ANTHROPIC, &model.base_url),
            (README_ANTHROPIC_KEY, &key),
            (README_OPENAI_KEY, &openai),
        ],
        &[port],
    );
    let c = server(&agents).await;
    let (app, ann) = (&c.app, &c.token);

    let id = the_session_runs(
        app,
        ann,
        ("claude-sonnet", "claude"),
        ["Write", "Bash", "mcp__svc__repos"],
    )
    .await;

    // The stand-in got the key on every request, and the tool results back.
    let answered = model.answered();
    assert_eq!(
        answered.len(),
        model.requests().len(),
        "a request without the key"
    );
    let last = &answered.last().unwrap().body;
    let results = fake_anthropic::tool_results(last);
    assert_eq!(results.len(), 3, "{last}");
    assert!(results[2].to_string().contains("app"), "{}", results[2]);

    let t = follow_up(app, ann, &id).await;
    let items = t["items"].as_array().unwrap();
    let last = &items.last().unwrap()["parts"][0];
    assert_eq!(last["text"], "Round two: the test is next.", "{t}");
    let told = fake_anthropic::user_text(&model.answered().last().unwrap().body);
    assert!(told.contains(FOLLOW_UP), "{told}");
    key_kept(app, ann, &id, ANTHROPIC_KEY).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn codex_runs_a_session_against_the_responses_api() {
    let Some(clis) = clis() else { return };
    let patch = format!(
        "*** Begin Patch\n*** Add File: FIXED.md\n+{}\n*** End Patch\n",
        FIXED.trim_end()
    );
    let shell = "git add FIXED.md && git commit -q -m 'Fix the bug' && git push -q";
    let model = FakeOpenAi::start(
        OPENAI_KEY,
        vec![
            Round::new(
                PROMPT,
                vec![
                    vec![
                        Say::text("I will write the fix."),
                        Say::call("apply_patch", json!(patch)),
                    ],
                    vec![Say::call("exec_command", json!({"cmd": shell}))],
                    // Codex offers MCP tools only once a tool search found them.
                    vec![Say::call("tool_search", json!({"query": "svc repos"}))],
                    vec![Say::call("mcp__svc__repos", json!({}))],
                    vec![Say::text("Pushed the fix.")],
                ],
            ),
            Round::new(
                FOLLOW_UP,
                vec![vec![Say::text("Round two: the test is next.")]],
            ),
        ],
    )
    .await;
    let keys = tempfile::tempdir().unwrap();
    let key = key_file(keys.path(), "openai", OPENAI_KEY);
    let anthropic = key_file(keys.path(), "anthropic", ANTHROPIC_KEY);
    let port = model
        .base_url
        .trim_end_matches("/v1")
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let clis = clis.display().to_string();
    let agents = readme_agents(
        &[
            (README_CLIS, &clis),
            (README_OPENAI, &model.base_url),
            (README_OPENAI_KEY, &key),
            (README_ANTHROPIC_KEY, &anthropic),
        ],
        &[port],
    );
    let c = server(&agents).await;
    let (app, ann) = (&c.app, &c.token);

    let id = the_session_runs(
        app,
        ann,
        ("codex", "codex"),
        ["file_change", "command", "svc.repos"],
    )
    .await;

    let answered = model.answered();
    assert_eq!(
        answered.len(),
        model.requests().len(),
        "a request without the key"
    );
    let last = &answered.last().unwrap().body;
    let outputs = fake_openai::tool_outputs(last);
    let types: Vec<&str> = outputs.iter().filter_map(|o| o["type"].as_str()).collect();
    let want = [
        "custom_tool_call_output",
        "function_call_output",
        "tool_search_output",
        "function_call_output",
    ];
    assert_eq!(types, want, "{last}");
    assert!(outputs[3].to_string().contains("app"), "{}", outputs[3]);

    let t = follow_up(app, ann, &id).await;
    let items = t["items"].as_array().unwrap();
    let last = &items.last().unwrap()["parts"][0];
    assert_eq!(last["text"], "Round two: the test is next.", "{t}");
    let told = fake_openai::user_text(&model.answered().last().unwrap().body);
    assert!(told.contains(FOLLOW_UP), "{told}");
    key_kept(app, ann, &id, OPENAI_KEY).await;
}

#[tokio::test]
async fn the_readme_example_runner_speaks_svc_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let runner = crate::agents::script(dir.path(), "note-task.py", readme_runner());
    let agents = crate::agents::settings(&runner, "svc-jsonl", "");
    let c = server(&agents).await;
    let (app, ann) = (&c.app, &c.token);
    let s = launch(app, ann, json!({"prompt": PROMPT, "branch": "fix-bug"})).await;
    let id = s["id"].as_str().unwrap().to_owned();
    let s = settled(app, ann, &id).await;
    assert_eq!(s["state"], "idle", "{s}");
    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    assert_eq!(
        parts(&t),
        [
            part("user", "text", ""),
            part("assistant", "text", ""),
            part("assistant", "tool-call", "shell"),
            part("tool", "tool-result", ""),
        ],
        "{t}"
    );
    results_answer_their_calls(&t);
    let commits = app
        .get_json(ann, &format!("{M}/repos/app/branches/fix-bug/commits"))
        .await;
    let head = &commits["items"][0];
    assert_eq!(
        head["message"].as_str().unwrap().lines().next(),
        Some("Note the task")
    );
    assert_eq!(head["trailers"]["Svc-Agent"], "r", "{head}");
    assert_eq!(head["trailers"]["Svc-Worktree"], id.as_str(), "{head}");
}
