//! Agent sessions end to end: models, launching, transcripts, follow-ups, stop, review
//! and chat sessions held to their limits by the server, the live socket, restarts.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::{TestApp, expect_error, expect_json};

const RUNNERS: &str = r#"
[runners.claude]
command = ["claude", "-p", "--output-format", "stream-json", "--verbose"]
format = "claude-stream-json"
[runners.codex]
command = ["codex", "exec", "--json"]
format = "codex-json"
[[models]]
id = "claude-sonnet"
runner = "claude"
args = ["--model", "sonnet"]
[[models]]
id = "codex"
runner = "codex"
"#;

#[tokio::test]
async fn members_see_the_models_the_server_offers_and_outsiders_nothing() {
    let app = TestApp::builder().agents(RUNNERS).start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com", "login": "ann"}))
        .await
        .credential
        .token;
    app.monorepo(&ann, json!({"name": "mono"})).await;
    let models = app
        .get_json(&ann, "/v1/monorepos/ann/mono/agent-models")
        .await;
    assert_eq!(
        models,
        json!({"items": [
            {"id": "claude-sonnet", "runner": "claude", "default": true},
            {"id": "codex", "runner": "codex", "default": false},
        ]})
    );

    let bob = app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob"}))
        .await
        .credential
        .token;
    let r = app
        .as_user(Method::GET, "/v1/monorepos/ann/mono/agent-models", &bob)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // A server without runners offers none.
    let plain = TestApp::start().await;
    let carol = plain
        .bootstrap(json!({"email": "carol@example.com", "login": "carol"}))
        .await
        .credential
        .token;
    plain.monorepo(&carol, json!({"name": "mono"})).await;
    let r = plain
        .as_user(Method::GET, "/v1/monorepos/carol/mono/agent-models", &carol)
        .send()
        .await
        .unwrap();
    let none: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(none, json!({"items": []}));
}

/// A runner script in `dir`, executable; answers its path.
pub(crate) fn script(dir: &std::path::Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// `[agents]` with one model `m` whose runner runs `program` in `format`.
pub(crate) fn settings(program: &str, format: &str, extra: &str) -> String {
    format!(
        "{extra}\n[runners.r]\ncommand = [\"{program}\"]\nformat = \"{format}\"\n[[models]]\nid = \"m\"\nrunner = \"r\"\n"
    )
}

/// Claude Code's stream-json, line for line: on its first run it commits and pushes a
/// file and narrates; on a later run it answers what it was told.
const CLAUDE: &str = r#"#!/bin/sh
n=$(cat "$HOME/runs" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$HOME/runs"
told=$(cat)
echo '{"type":"system","subtype":"init","session_id":"s-1","tools":["Bash"]}'
if [ "$n" -gt 1 ]; then
  case "$told" in *"Also add tests"*) echo '{"type":"assistant","message":{"content":[{"type":"text","text":"Run 2 saw the follow-up."}]}}';; esac
  echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s-1"}'
  exit 0
fi
echo '{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"Where is the bug?"},{"type":"text","text":"I will fix it."}]}}'
echo '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"tu_1","name":"Bash","input":{"command":"git push"}}]}}'
echo "$told" > FIXED.md
git add FIXED.md && git commit -q -m "Fix the bug" && git push -q 2>"$HOME/push.err"
echo "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu_1\",\"content\":\"pushed $?\",\"is_error\":false}]}}"
echo 'plain words, not JSON'
echo '{"type":"result","subtype":"success","is_error":false,"result":"Fixed.","session_id":"s-1"}'
"#;

pub(crate) const M: &str = "/v1/monorepos/ann/mono";

/// Polls the session until its state is not `launching` or `running`.
pub(crate) async fn settled(app: &TestApp, token: &str, id: &str) -> Value {
    for _ in 0..400 {
        let s = app.get_json(token, &format!("{M}/agents/{id}")).await;
        if !matches!(s["state"].as_str(), Some("launching" | "running")) {
            return s;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("session {id} did not settle");
}

pub(crate) async fn launch(app: &TestApp, token: &str, body: Value) -> Value {
    let r = app
        .as_user(Method::POST, &format!("{M}/agents"), token)
        .json(&body)
        .send()
        .await
        .unwrap();
    expect_json(r, StatusCode::CREATED).await
}

/// A monorepo `ann/mono` whose repo `app` has a first commit on main.
pub(crate) async fn with_main(
    extra: &str,
    runner: &str,
    format: &str,
) -> (svc_tests::Cloned, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let program = script(dir.path(), "runner", runner);
    let builder = TestApp::builder().agents(&settings(&program, format, extra));
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(&c.work, "First", &[("README.md", b"hello\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "HEAD:main"]);
    (c, dir)
}

fn parts_of(transcript: &Value) -> Vec<(String, String)> {
    transcript["items"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| {
            let role = m["role"].as_str().unwrap().to_owned();
            m["parts"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |p| (role.clone(), p["type"].as_str().unwrap().to_owned()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[tokio::test]
async fn a_task_session_pushes_its_branch_with_trailers_and_a_follow_up_runs_it_again() {
    let (c, _dir) = with_main("", CLAUDE, "claude-stream-json").await;
    let (app, ann) = (&c.app, &c.token);

    let r = app
        .as_user(Method::POST, &format!("{M}/agents"), ann)
        .json(&json!({"prompt": "fix it"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "branch_required").await;

    let s = launch(
        app,
        ann,
        json!({"prompt": "Fix the bug", "branch": "fix-bug"}),
    )
    .await;
    let id = s["id"].as_str().unwrap().to_owned();
    assert_eq!(s["kind"], "task");
    assert_eq!(s["repo"], "app");
    assert_eq!(s["credential"], format!("cloud-{id}"));
    let s = settled(app, ann, &id).await;
    assert_eq!(s["state"], "idle", "{s}");

    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    let parts = parts_of(&t);
    let expected: Vec<(String, String)> = [
        ("user", "text"),
        ("assistant", "thinking"),
        ("assistant", "text"),
        ("assistant", "tool-call"),
        ("tool", "tool-result"),
        ("assistant", "text"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(parts[..6], expected[..], "{t}");
    assert_eq!(t["items"][0]["parts"][0]["text"], "Fix the bug");
    assert_eq!(t["items"][3]["parts"][0]["output"], "pushed 0", "{t}");
    assert!(t.to_string().contains("plain words, not JSON"));

    // The push went through the door as ann, with the agent recorded and the trailers.
    let commits = app
        .get_json(ann, &format!("{M}/repos/app/branches/fix-bug/commits"))
        .await;
    let head = &commits["items"][0];
    assert_eq!(
        head["message"].as_str().unwrap().lines().next(),
        Some("Fix the bug")
    );
    assert_eq!(head["trailers"]["Svc-Agent"], "r", "{head}");
    assert_eq!(head["trailers"]["Svc-Worktree"], id.as_str());
    assert_eq!(head["trailers"]["Svc-Machine"], format!("cloud-{id}"));
    let events = app.get_json(ann, &format!("{M}/events?kinds=push")).await;
    let push = events["items"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(push["agent"], "r", "{push}");
    let updates = app
        .get_json(ann, &format!("{M}/events?kinds=agent.updated"))
        .await;
    let states: Vec<&str> = updates["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["row"]["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["launching", "running", "idle"]);

    // A run's credential goes when the run ends.
    let creds = app.get_json(ann, "/v1/user/credentials").await;
    assert!(!creds.to_string().contains("cloud-"), "{creds}");

    // A follow-up runs it again, told the transcript so far.
    let r = app
        .as_user(Method::POST, &format!("{M}/agents/{id}/messages"), ann)
        .json(&json!({"message": "Also add tests"}))
        .send()
        .await
        .unwrap();
    let s: Value = expect_json(r, StatusCode::ACCEPTED).await;
    assert!(
        matches!(s["state"].as_str(), Some("running" | "idle")),
        "{s}"
    );
    assert_eq!(settled(app, ann, &id).await["state"], "idle");
    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    let last = t["items"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["parts"][0]["text"], "Run 2 saw the follow-up.", "{t}");

    // Only the launcher sends; an outsider sees nothing.
    let bob = app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob"}))
        .await
        .credential
        .token;
    let r = app
        .as_user(Method::GET, &format!("{M}/agents/{id}"), &bob)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .as_user(Method::PUT, &format!("{M}/members/bob"), ann)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let r = app
        .as_user(Method::POST, &format!("{M}/agents/{id}/messages"), &bob)
        .json(&json!({"message": "hi"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "not_launcher").await;
    let list = app.get_json(&bob, &format!("{M}/agents")).await;
    assert_eq!(list["items"][0]["id"], id.as_str());
}

/// Whether any process of the machine runs with `marker` in its command line.
pub(crate) fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains(marker))
            .unwrap_or(false)
    })
}

/// Codex's `exec --json` lines, then a child that would run for ever.
fn codex_sleeper(marker: &str) -> String {
    format!(
        r#"#!/bin/sh
cat >/dev/null
echo '{{"type":"thread.started","thread_id":"th-1"}}'
echo '{{"type":"turn.started"}}'
echo '{{"type":"item.completed","item":{{"id":"i1","type":"agent_message","text":"Working on it."}}}}'
sleep {marker} &
sleep {marker}
"#
    )
}

#[tokio::test]
async fn stopping_kills_the_whole_process_group_and_keeps_the_transcript() {
    let marker = "3141.592";
    let (c, _dir) = with_main("", &codex_sleeper(marker), "codex-json").await;
    let (app, ann) = (&c.app, &c.token);
    let s = launch(app, ann, json!({"prompt": "Work", "branch": "work"})).await;
    let id = s["id"].as_str().unwrap().to_owned();
    for _ in 0..200 {
        let t = app
            .get_json(ann, &format!("{M}/agents/{id}/transcript"))
            .await;
        if t["items"].as_array().unwrap().len() >= 2 && running(marker) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(running(marker));
    let r = app
        .as_user(Method::POST, &format!("{M}/agents/{id}/stop"), ann)
        .send()
        .await
        .unwrap();
    let s: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(s["state"], "stopped");
    assert_eq!(s["reason"], "stopped by ann");
    for _ in 0..100 {
        if !running(marker) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(!running(marker), "a process of the stopped run is left");
    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    assert_eq!(t["items"][1]["parts"][0]["text"], "Working on it.", "{t}");
    let branch = app
        .get_json(ann, &format!("{M}/repos/app/branches/work"))
        .await;
    assert_eq!(branch["name"], "work");
}

#[tokio::test]
async fn a_session_that_cannot_start_is_failed_and_its_credential_revoked() {
    let (c, _dir) = with_main("sandbox = \"none\"", "", "svc-jsonl").await;
    std::fs::remove_file(_dir.path().join("runner")).unwrap();
    let (app, ann) = (&c.app, &c.token);
    let s = launch(app, ann, json!({"prompt": "Work", "branch": "work"})).await;
    assert_eq!(s["state"], "failed", "{s}");
    assert!(
        s["reason"].as_str().unwrap().contains("cannot start"),
        "{s}"
    );
    let creds = app.get_json(ann, "/v1/user/credentials").await;
    assert!(!creds.to_string().contains("cloud-"), "{creds}");
}

/// A review runner that tries what it may not, then posts its review, reporting each
/// answer's status as svc-jsonl text.
const REVIEWER: &str = r#"#!/bin/sh
cat >/dev/null
say() { echo "{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"$1\"}]}"; }
api() { curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $SVC_TOKEN" -H 'Content-Type: application/json' -d "$2" "$SVC_SERVER/v1/monorepos/$SVC_MONOREPO$1"; }
b="/repos/$SVC_REPO/branches/$SVC_BRANCH"
echo x > x.txt; git add x.txt; git commit -q -m x
if git push -q 2>/dev/null; then say "push ok"; else say "push refused"; fi
say "approve $(api "$b/reviews" '{"state":"approve","body":""}')"
say "merge $(api "$b/merge" '{}')"
say "comment $(api "/issues/1/comments" '{"body":"hi"}')"
say "elsewhere $(api "/repos/$SVC_REPO/branches/other/reviews" '{"state":"comment","body":"no"}')"
say "chat $(api "/chats" '{"message":"Push for me"}')"
say "review $(api "$b/reviews" '{"state":"request_changes","body":"Add tests."}')"
"#;

#[tokio::test]
async fn a_review_sessions_push_approve_and_merge_are_refused_by_the_server() {
    let (c, _dir) = with_main("", REVIEWER, "svc-jsonl").await;
    let (app, ann) = (&c.app, &c.token);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "feature"]);
    c.git.commit(&c.work, "Feature", &[("f.txt", b"f\n")]);
    c.git.ok(
        &c.work,
        &["push", "-q", "origin", "feature", "feature:other"],
    );
    let r = app
        .as_user(Method::POST, &format!("{M}/issues"), ann)
        .json(&json!({"title": "An issue"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let before = app
        .get_json(ann, &format!("{M}/repos/app/branches/feature"))
        .await;

    let r = app
        .as_user(
            Method::POST,
            &format!("{M}/repos/app/branches/feature/review-agent"),
            ann,
        )
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let s: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(s["kind"], "review");
    let id = s["id"].as_str().unwrap().to_owned();
    assert_eq!(settled(app, ann, &id).await["state"], "idle");
    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    let said: Vec<String> = t["items"].as_array().unwrap()[1..]
        .iter()
        .map(|m| m["parts"][0]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        said,
        [
            "push refused",
            "approve 403",
            "merge 403",
            "comment 403",
            "elsewhere 403",
            "chat 403",
            "review 201"
        ],
        "{t}"
    );
    let after = app
        .get_json(ann, &format!("{M}/repos/app/branches/feature"))
        .await;
    assert_eq!(after["head"], before["head"]);
    let reviews = app
        .get_json(ann, &format!("{M}/repos/app/branches/feature/reviews"))
        .await;
    let items = reviews["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{reviews}");
    assert_eq!(items[0]["state"], "request_changes");
    assert_eq!(items[0]["author"], "ann");
}

/// A chat runner: answers what it was asked.
const CHATTER: &str = r#"#!/bin/sh
asked=$(cat | tr -d '"\\' | tr '\n' ' ')
echo "{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"You asked: $asked\"}]}"
"#;

#[tokio::test]
async fn a_chat_is_its_persons_alone() {
    let (c, _dir) = with_main("", CHATTER, "svc-jsonl").await;
    let (app, ann) = (&c.app, &c.token);
    let bob = app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob"}))
        .await
        .credential
        .token;
    let r = app
        .as_user(Method::PUT, &format!("{M}/members/bob"), ann)
        .json(&json!({"role": "owner"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let r = app
        .as_user(Method::POST, &format!("{M}/chats"), ann)
        .json(&json!({"message": "What does app do?"}))
        .send()
        .await
        .unwrap();
    let s: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(s["kind"], "chat");
    let id = s["id"].as_str().unwrap().to_owned();
    assert_eq!(settled(app, ann, &id).await["state"], "idle");
    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    assert_eq!(
        t["items"][1]["parts"][0]["text"], "You asked: What does app do?",
        "{t}"
    );
    let mine = app.get_json(ann, &format!("{M}/chats")).await;
    assert_eq!(mine["items"][0]["id"], id.as_str());

    // Not listed with the agents, not on the event stream, 404 to anyone else (an
    // owner too), on every route.
    let listed = app.get_json(ann, &format!("{M}/agents")).await;
    assert_eq!(listed["items"], json!([]));
    let events = app.get_json(&bob, &format!("{M}/events")).await;
    assert!(!events.to_string().contains(&id), "{events}");
    assert_eq!(
        app.get_json(&bob, &format!("{M}/chats")).await["items"],
        json!([])
    );
    for (method, tail) in [
        (Method::GET, ""),
        (Method::GET, "/transcript"),
        (Method::POST, "/stop"),
    ] {
        let r = app
            .as_user(method, &format!("{M}/agents/{id}{tail}"), &bob)
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
    assert!(
        app.try_ws(&format!("{M}/agents/{id}/live"), &bob)
            .await
            .is_err()
    );
}

/// Three messages a quarter second apart, in codex-json.
const TALKER: &str = r#"#!/bin/sh
cat >/dev/null
for i in 1 2 3; do
  sleep 0.25
  echo "{\"type\":\"item.completed\",\"item\":{\"id\":\"i$i\",\"type\":\"agent_message\",\"text\":\"line $i\"}}"
done
"#;

#[tokio::test]
async fn the_live_socket_streams_the_transcript_as_it_grows() {
    let (c, _dir) = with_main("", TALKER, "codex-json").await;
    let (app, ann) = (&c.app, &c.token);
    let s = launch(app, ann, json!({"prompt": "Talk", "branch": "talk"})).await;
    let id = s["id"].as_str().unwrap().to_owned();
    let mut ws = app.ws(&format!("{M}/agents/{id}/live"), ann).await;
    let mut texts = Vec::new();
    let mut froms = Vec::new();
    while let Ok(frame) = ws.next_or_close().await {
        assert_eq!(frame["type"], "messages");
        froms.push(frame["from"].as_i64().unwrap());
        for m in frame["messages"].as_array().unwrap() {
            texts.push(m["parts"][0]["text"].as_str().unwrap().to_owned());
        }
    }
    assert_eq!(texts, ["Talk", "line 1", "line 2", "line 3"]);
    assert_eq!(froms[0], 0);
    assert!(
        froms.len() >= 2,
        "later messages came in later frames: {froms:?}"
    );
    assert!(froms.windows(2).all(|w| w[0] < w[1]));
}

#[tokio::test]
async fn a_server_restart_fails_the_sessions_that_were_running() {
    let marker = "2718.281";
    let (mut c, _dir) = with_main("", &codex_sleeper(marker), "codex-json").await;
    let ann = c.token.clone();
    let s = launch(&c.app, &ann, json!({"prompt": "Work", "branch": "work"})).await;
    let id = s["id"].as_str().unwrap().to_owned();
    for _ in 0..200 {
        if running(marker) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    c.app.restart().await;
    let s = c.app.get_json(&ann, &format!("{M}/agents/{id}")).await;
    assert_eq!(s["state"], "failed", "{s}");
    assert!(
        s["reason"].as_str().unwrap().contains("server stopped"),
        "{s}"
    );
    assert!(!running(marker));
    // A message carries it on.
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/agents/{id}/messages"), &ann)
        .json(&json!({"message": "Go on"}))
        .send()
        .await
        .unwrap();
    let s: Value = expect_json(r, StatusCode::ACCEPTED).await;
    assert_eq!(s["state"], "running", "{s}");
    c.app
        .as_user(Method::POST, &format!("{M}/agents/{id}/stop"), &ann)
        .send()
        .await
        .unwrap();
}

/// A runner that does nothing but say so.
const QUIET: &str = r#"#!/bin/sh
cat >/dev/null
echo '{"role":"assistant","parts":[{"type":"text","text":"On it."}]}'
"#;

#[tokio::test]
async fn an_issue_is_addressed_on_a_branch_named_from_it_and_linked_to_it() {
    let (c, _dir) = with_main("", QUIET, "svc-jsonl").await;
    let (app, ann) = (&c.app, &c.token);
    let post = |path: String, body: Value| app.as_user(Method::POST, &path, ann).json(&body).send();
    let r = post(
        format!("{M}/issues"),
        json!({"title": "Fix the login page!", "body": "It breaks on Safari.", "project": "app"}),
    )
    .await
    .unwrap();
    let issue: Value = expect_json(r, StatusCode::CREATED).await;
    let n = issue["number"].as_i64().unwrap();
    let r = post(
        format!("{M}/issues/{n}/comments"),
        json!({"body": "Also on iOS."}),
    )
    .await
    .unwrap();
    assert!(r.status().is_success());

    let r = post(
        format!("{M}/issues/{n}/agent"),
        json!({"prompt": "Keep it small."}),
    )
    .await
    .unwrap();
    let s: Value = expect_json(r, StatusCode::CREATED).await;
    let branch = format!("issue-{n}-fix-the-login-page");
    assert_eq!(s["branch"], branch.as_str());
    assert_eq!(s["issue"], n);
    let told = s["prompt"].as_str().unwrap();
    for said in [
        "Fix the login page!",
        "It breaks on Safari.",
        "Also on iOS.",
        "Keep it small.",
    ] {
        assert!(told.contains(said), "{told}");
    }
    let b = app
        .get_json(ann, &format!("{M}/repos/app/branches/{branch}"))
        .await;
    assert_eq!(b["title"], "Fix the login page!", "{b}");
    let issue = app.get_json(ann, &format!("{M}/issues/{n}")).await;
    assert_eq!(
        issue["links"],
        json!([{"repo": "app", "branch": branch}]),
        "{issue}"
    );

    let r = app
        .as_user(Method::PATCH, &format!("{M}/issues/{n}"), ann)
        .json(&json!({"state": "closed"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let r = post(format!("{M}/issues/{n}/agent"), json!({}))
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "issue_closed").await;
}

/// As a chat, asks `svc mcp` (svc's tools, on the runner's PATH) to start a branch; as
/// the task that starts, says so.
const ASSISTANT: &str = r#"#!/bin/sh
cat >/dev/null
say() { echo "{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"$1\"}]}"; }
if [ "$SVC_AGENT_KIND" != chat ]; then say "task on $SVC_BRANCH"; exit 0; fi
{
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_branch","arguments":{"repo":"app","suffix":"readme","prompt":"Add a README"}}}'
  sleep 3
} | svc mcp > "$HOME/mcp.out" 2>&1
if grep -q 'assistant/readme' "$HOME/mcp.out"; then say "started assistant/readme"; else say "mcp: $(tr -d '\"\\\\' < "$HOME/mcp.out" | tr '\n' ' ')"; fi
"#;

#[tokio::test]
async fn a_chat_starts_its_own_branch_through_svc_mcp() {
    let svc = svc_tests::workspace_bin("svc");
    let extra = format!("svc = \"{}\"", svc.display());
    let (c, _dir) = with_main(&extra, ASSISTANT, "svc-jsonl").await;
    let (app, ann) = (&c.app, &c.token);
    let r = app
        .as_user(Method::POST, &format!("{M}/chats"), ann)
        .json(&json!({"message": "Please add a README"}))
        .send()
        .await
        .unwrap();
    let chat: Value = expect_json(r, StatusCode::CREATED).await;
    let id = chat["id"].as_str().unwrap();
    assert_eq!(settled(app, ann, id).await["state"], "idle");
    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    assert_eq!(
        t["items"][1]["parts"][0]["text"], "started assistant/readme",
        "{t}"
    );
    let tasks = app.get_json(ann, &format!("{M}/agents")).await;
    let task = &tasks["items"][0];
    assert_eq!(task["branch"], "assistant/readme", "{tasks}");
    assert_eq!(task["launcher"], "ann");
    assert_eq!(task["prompt"], "Add a README");
}
