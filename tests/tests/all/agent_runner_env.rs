//! What a runner gets from its settings (`[agents.runners.<name>]`): plain variables,
//! secrets masked wherever it prints them, files in its HOME, host paths read-only; and
//! its isolated network, which reaches svc and the `host_ports` but no other service
//! on the host's loopback. Bad settings are refused at start.

use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;

use reqwest::Method;
use serde_json::{Value, json};
use svc_server::agents::settings::AgentsSettings;
use svc_tests::TestApp;

use super::agents::{M, launch, running, script, settled};

/// The secret the runner is given through `secret_files`.
const KEY: &str = "sk-test-4f9a1c0e7b2d";

/// Prints what it was given, one line each (svc-jsonl: a line that is not JSON is a
/// text message), and the secret in a tool call and on standard error; on its second
/// run it fails, naming the secret.
fn printer(tools: &std::path::Path) -> String {
    format!(
        r#"#!/bin/sh
cat > /dev/null
n=$(cat "$HOME/runs" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$HOME/runs"
if [ "$n" -gt 1 ]; then echo "fatal: the model refused key $MODEL_API_KEY" >&2; exit 1; fi
echo "base=$MODEL_BASE_URL"
echo "home=$(cat "$HOME/.config/runner/settings.json")"
echo "ro=$(cat {tools}/tool.txt)"
if (echo x > {tools}/planted) 2>/dev/null; then echo "ro writable"; else echo "ro read-only"; fi
echo "key=$MODEL_API_KEY"
echo "{{\"role\":\"assistant\",\"parts\":[{{\"type\":\"tool-call\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{{\"command\":\"curl -H 'x-api-key: $MODEL_API_KEY'\"}}}}]}}"
echo "stderr has $MODEL_API_KEY" >&2
"#,
        tools = tools.display()
    )
}

#[tokio::test]
async fn a_runner_gets_its_variables_home_files_and_ro_paths_and_its_secret_only_masked() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools");
    std::fs::create_dir(&tools).unwrap();
    std::fs::write(tools.join("tool.txt"), "installed tool\n").unwrap();
    let key_file = dir.path().join("model-key");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let program = script(dir.path(), "runner", &printer(&tools));
    let settings = format!(
        r#"
[runners.r]
command = ["{program}"]
format = "svc-jsonl"
env = {{ MODEL_BASE_URL = "http://model.invalid/v1" }}
secret_files = {{ MODEL_API_KEY = "{key}" }}
ro_paths = ["{tools}"]
[runners.r.home_files]
".config/runner/settings.json" = '{{"model": "m1"}}'
[[models]]
id = "m"
runner = "r"
"#,
        key = key_file.display(),
        tools = tools.display(),
    );
    // A server of its own (a child process), whose log is kept.
    let builder = TestApp::builder().agents(&settings).process();
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(&c.work, "First", &[("README.md", b"hello\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "HEAD:main"]);
    let (app, ann) = (&c.app, &c.token);

    let s = launch(app, ann, json!({"prompt": "Go", "branch": "env"})).await;
    let id = s["id"].as_str().unwrap().to_owned();
    let s = settled(app, ann, &id).await;
    assert_eq!(s["state"], "idle", "{s}");
    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    let texts: Vec<&str> = t["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["parts"][0]["text"].as_str())
        .collect();
    assert_eq!(
        texts,
        [
            "base=http://model.invalid/v1",
            r#"home={"model": "m1"}"#,
            "ro=installed tool",
            "ro read-only",
            "key=***",
        ],
        "{t}"
    );
    let call = t["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["parts"][0]["type"] == "tool-call")
        .unwrap();
    assert_eq!(
        call["parts"][0]["input"]["command"],
        "curl -H 'x-api-key: ***'"
    );
    assert!(!tools.join("planted").exists());

    // A second run fails naming the key: its reason shows it masked.
    let r = app
        .as_user(Method::POST, &format!("{M}/agents/{id}/messages"), ann)
        .json(&json!({"message": "again"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let s = settled(app, ann, &id).await;
    assert_eq!(s["state"], "failed", "{s}");
    assert_eq!(
        s["reason"], "the runner exited with 1: fatal: the model refused key ***",
        "{s}"
    );

    // The key is nowhere: transcript, session, events, models, the server's log.
    let mut seen: Vec<Value> = Vec::new();
    for path in [
        format!("{M}/agents/{id}/transcript"),
        format!("{M}/agents/{id}"),
        format!("{M}/agents"),
        format!("{M}/events"),
        format!("{M}/agent-models"),
    ] {
        seen.push(app.get_json(ann, &path).await);
    }
    let all = serde_json::to_string(&seen).unwrap();
    assert!(all.contains("***"), "{all}");
    assert!(!all.contains(KEY), "the key shows in an answer: {all}");
    let log = app.server_log().expect("the server's log");
    assert!(log.contains("listen"), "a log was written: {log}");
    assert!(!log.contains(KEY), "the key is logged: {log}");
}

/// Reports, one line each, whether svc and two host loopback ports answer from inside
/// the sandbox.
fn prober(other: u16, allowed: u16) -> String {
    format!(
        r#"#!/bin/bash
cat > /dev/null
code=$(curl -s -m 5 -o /dev/null -w '%{{http_code}}' "$SVC_SERVER/healthz")
echo "svc $code"
for p in {other} {allowed}; do
  if (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then echo "$p open"; else echo "$p closed"; fi
done
sleep 1
"#
    )
}

/// Runs the prober as a task session on a server with `network` (and the allowed port
/// in `host_ports`); answers its lines.
async fn probe(network: &str, other: u16, allowed: u16) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let program = script(dir.path(), "runner", &prober(other, allowed));
    let ports = if network == "isolated" {
        format!("host_ports = [{allowed}]\n")
    } else {
        String::new()
    };
    let settings = format!(
        "network = \"{network}\"\n[runners.r]\ncommand = [\"{program}\"]\nformat = \"svc-jsonl\"\n{ports}[[models]]\nid = \"m\"\nrunner = \"r\"\n"
    );
    let c = svc_tests::Cloned::with(TestApp::builder().agents(&settings), "mono", "app").await;
    c.git.commit(&c.work, "First", &[("README.md", b"hello\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "HEAD:main"]);
    let (app, ann) = (&c.app, &c.token);
    // The pasta serving an isolated network forwards svc's port and the allowed one.
    let svc_port: u16 = app.base.rsplit(':').next().unwrap().parse().unwrap();
    let (low, high) = (svc_port.min(allowed), svc_port.max(allowed));
    let pasta = format!("\0-T\0{low},{high}\0");
    let s = launch(app, ann, json!({"prompt": "Probe", "branch": "net"})).await;
    let id = s["id"].as_str().unwrap().to_owned();
    let mut pasta_seen = false;
    for _ in 0..100 {
        pasta_seen |= running(&pasta);
        let s = app.get_json(ann, &format!("{M}/agents/{id}")).await;
        if pasta_seen || s["state"] != "launching" && s["state"] != "running" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(pasta_seen, network == "isolated");
    let s = settled(app, ann, &id).await;
    // The checkout was cloned through the door from inside the same sandbox.
    assert_eq!(s["state"], "idle", "{s}");
    // Its pasta ended with the run.
    assert!(!running(&pasta), "pasta outlived the run");
    let t = app
        .get_json(ann, &format!("{M}/agents/{id}/transcript"))
        .await;
    t["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["parts"][0]["text"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn an_isolated_sandbox_reaches_svc_and_its_host_ports_but_no_other_loopback_service() {
    // Two services on the host's loopback, as PostgreSQL or a local model proxy would be.
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let allowed = TcpListener::bind("127.0.0.1:0").unwrap();
    let (o, a) = (
        other.local_addr().unwrap().port(),
        allowed.local_addr().unwrap().port(),
    );
    assert_eq!(
        probe("isolated", o, a).await,
        [
            "svc 200".to_owned(),
            format!("{o} closed"),
            format!("{a} open")
        ]
    );
    // On the host's network the same runner reaches every one of them.
    assert_eq!(
        probe("host", o, a).await,
        [
            "svc 200".to_owned(),
            format!("{o} open"),
            format!("{a} open")
        ]
    );
}

#[test]
fn bad_runner_settings_are_refused_at_start_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().join("open-key");
    std::fs::write(&open, "sk-readable-by-all\n").unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
    let short = dir.path().join("short-key");
    std::fs::write(&short, "abc\n").unwrap();
    std::fs::set_permissions(&short, std::fs::Permissions::from_mode(0o600)).unwrap();
    let runner = "[runners.r]\ncommand = [\"r\"]\nformat = \"svc-jsonl\"\n";
    let cases = [
        ("env = { HOME = \"/x\" }", "HOME is the server's to set"),
        (
            "env = { SVC_TOKEN = \"x\" }",
            "SVC_TOKEN is the server's to set",
        ),
        ("secret_env = [\"PATH\"]", "PATH is the server's to set"),
        (
            "env = { K = \"v\" }\nsecret_env = [\"K\"]",
            "K is given twice",
        ),
        (
            "secret_env = [\"SURELY_NOT_SET_IN_THIS_ENVIRONMENT\"]",
            "secret_env names SURELY_NOT_SET_IN_THIS_ENVIRONMENT, which the server's environment does not have",
        ),
        (
            &format!("secret_files = {{ K = \"{}\" }}", open.display()),
            "may be read by others (mode 644)",
        ),
        (
            &format!("secret_files = {{ K = \"{}\" }}", short.display()),
            "too short to mask",
        ),
        (
            "secret_files = { K = \"/nonexistent/key\" }",
            "cannot read /nonexistent/key",
        ),
        ("ro_paths = [\"opt/tool\"]", "must be an absolute path"),
        ("ro_paths = [\"/nonexistent/tool\"]", "does not exist"),
        (
            "home_files = { \"../escape\" = \"x\" }",
            "must be a relative path within HOME",
        ),
        (
            "home_files = { \"/etc/x\" = \"x\" }",
            "must be a relative path within HOME",
        ),
    ];
    for (extra, expected) in cases {
        let err = AgentsSettings::from_toml(&format!("{runner}{extra}\n")).unwrap_err();
        let text = format!("{err:#}");
        assert!(text.contains(expected), "{extra}: {text}");
        assert!(text.contains("[agents.runners.r]"), "{extra}: {text}");
    }
    let err = AgentsSettings::from_toml(&format!(
        "network = \"host\"\n{runner}host_ports = [4000]\n"
    ))
    .unwrap_err();
    assert!(err.to_string().contains("host_ports only apply"), "{err}");
    let err =
        AgentsSettings::from_toml("sandbox = \"none\"\nnetwork = \"isolated\"\n").unwrap_err();
    assert!(
        err.to_string().contains("needs sandbox = \"bwrap\""),
        "{err}"
    );
}

/// Prints a line a moment after it starts, then stays.
const STAYER: &str = r#"#!/bin/sh
cat > /dev/null
sleep 1
echo started
exec sleep 271.828
"#;

#[tokio::test]
async fn the_pasta_of_a_sandbox_dies_with_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let program = script(dir.path(), "runner", STAYER);
    let settings = format!(
        "[runners.r]\ncommand = [\"{program}\"]\nformat = \"svc-jsonl\"\n[[models]]\nid = \"m\"\nrunner = \"r\"\n"
    );
    let builder = TestApp::builder().agents(&settings).process();
    let mut c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(&c.work, "First", &[("README.md", b"hello\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "HEAD:main"]);
    let port: u16 = c.app.base.rsplit(':').next().unwrap().parse().unwrap();
    let pasta = format!("\0-T\0{port}\0");
    // The server kills itself (SIGKILL) when it stores the runner's first line.
    c.app.crash_at("agent.message").await;
    launch(
        &c.app,
        &c.token,
        json!({"prompt": "Stay", "branch": "stay"}),
    )
    .await;
    let mut seen = false;
    for _ in 0..200 {
        seen = running(&pasta);
        if seen {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(seen, "no pasta served the sandbox");
    c.app.crashed("agent.message").await;
    let mut gone = false;
    for _ in 0..100 {
        gone = !running(&pasta) && !running("271.828");
        if gone {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(gone, "pasta or the runner outlived the server");
}
