//! Crashes: `svc-server` killed with SIGKILL at chosen points of a change (its crash
//! points, server/src/crash.rs) and started again on the same data dir and database.
//! Nothing half-lands: git and the database agree, a change that landed has its events,
//! an upload is whole or absent, a hook delivery is sent again (at least once) and
//! recorded once, a webhook Buildkite sends again is taken once, a run's runner dies with
//! the server and its session can be carried on. A push cut off by a kill is in
//! `server_binary.rs`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use svc_server::ci::signature::sign;
use svc_tests::receiver::Receiver;
use svc_tests::{Cloned, TestApp, TestAppBuilder, expect_json};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";

/// `ann/mono` with repo `app` and a first commit on its main, on a server run as a
/// process that can be armed to die.
async fn world(builder: TestAppBuilder) -> Cloned {
    let c = Cloned::with(builder.process(), "mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"one\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    c
}

/// Pushes `branch`, made from main with one new file; answers its head.
fn push_branch(c: &Cloned, branch: &str) -> String {
    c.git
        .ok(&c.work, &["checkout", "-q", "-B", branch, "origin/main"]);
    let head = c.git.commit(
        &c.work,
        branch,
        &[(&format!("{branch}.txt"), branch.as_bytes())],
    );
    c.git.ok(&c.work, &["push", "-q", "origin", branch]);
    head
}

/// Waits until the branches git holds are the API's, each at the same commit (a
/// restarted server records what git got before it died as it starts); answers them.
async fn agreed(c: &Cloned) -> BTreeMap<String, String> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let git: BTreeMap<String, String> = c
            .git
            .ok(&c.work, &["ls-remote", "--heads", "origin"])
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(sha, name)| {
                (
                    name.trim_start_matches("refs/heads/").to_owned(),
                    sha.to_owned(),
                )
            })
            .collect();
        let list = c
            .app
            .get_json(&c.token, &format!("{R}/branches?limit=100"))
            .await;
        let mut api: BTreeMap<String, String> = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let name = b["name"].as_str().unwrap().to_owned();
                (name, b["head"].as_str().unwrap().to_owned())
            })
            .collect();
        if let Some(main) = list["default_head"].as_str() {
            api.insert("main".into(), main.to_owned());
        }
        if git == api {
            return git;
        }
        assert!(
            Instant::now() < deadline,
            "git has {git:?}, the API {api:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The monorepo's events of `kind`, oldest first.
async fn events(c: &Cloned, kind: &str) -> Vec<Value> {
    let page = c
        .app
        .get_json(&c.token, &format!("{M}/events?limit=500"))
        .await;
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| kind.is_empty() || e["kind"] == kind)
        .cloned()
        .collect()
}

/// Sends a request to a server armed to die on it: it never answers.
async fn cut_off(request: reqwest::RequestBuilder) {
    let r = request.send().await;
    assert!(r.is_err(), "the server answered: {r:?}");
}

/// Uploads `bytes` as `name` of release v1.
fn upload(c: &Cloned, name: &str, bytes: Vec<u8>) -> reqwest::RequestBuilder {
    c.app
        .as_user(
            Method::PUT,
            &format!("{R}/releases/v1/files/{name}"),
            &c.token,
        )
        .body(bytes)
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[tokio::test]
async fn a_merge_killed_before_main_moves_lands_nothing_and_after_lands_whole() {
    let mut c = world(TestApp::builder()).await;
    let rx = Receiver::start().await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/hooks"), &c.token)
        .json(&json!({"kind": "web", "url": rx.url, "events": ["merged"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let first = agreed(&c).await["main"].clone();
    let head = push_branch(&c, "topic");
    let merge = format!("{R}/branches/topic/merge");

    // Killed with the merge recorded as pending but main not moved: nothing landed.
    c.app.crash_at("merge.pending").await;
    cut_off(c.app.as_user(Method::POST, &merge, &c.token)).await;
    c.app.crashed("merge.pending").await;
    let refs = agreed(&c).await;
    assert_eq!(
        (refs["main"].as_str(), refs["topic"].as_str()),
        (first.as_str(), head.as_str())
    );
    let b = c
        .app
        .get_json(&c.token, &format!("{R}/branches/topic"))
        .await;
    assert_eq!(b["state"], "open", "{b}");
    assert!(events(&c, "merged").await.is_empty());

    // Killed once main moved but before the merge was recorded: it lands whole at start.
    c.app.crash_at("merge.moved").await;
    cut_off(c.app.as_user(Method::POST, &merge, &c.token)).await;
    c.app.crashed("merge.moved").await;
    let refs = agreed(&c).await;
    let merged = refs["main"].clone();
    assert_ne!(merged, first, "main moved before the kill");
    assert!(!refs.contains_key("topic") || refs["topic"] == head);
    let b = c
        .app
        .get_json(&c.token, &format!("{R}/branches/topic"))
        .await;
    assert_eq!(
        (b["state"].as_str(), b["merge_sha"].as_str()),
        (Some("merged"), Some(merged.as_str())),
        "{b}"
    );
    let events = events(&c, "merged").await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["head"], merged.as_str(), "{}", events[0]);
    let got = rx.wait_for(1, Duration::from_secs(15)).await;
    assert_eq!(got[0].json()["merge_commit"], merged.as_str());
    let log = c.git.ok(&c.work, &["ls-remote", "origin", "main"]);
    assert!(log.starts_with(&merged));
}

#[tokio::test]
async fn a_release_upload_killed_midway_or_before_its_row_keeps_the_old_file() {
    let mut c = world(TestApp::builder()).await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{R}/releases"), &c.token)
        .json(&json!({"tag": "v1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let old = b"the first build".to_vec();
    let r = upload(&c, "app.bin", old.clone()).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let on_disk = |c: &Cloned| -> Vec<String> {
        std::fs::read_dir(c.app.data_dir.path().join("releases"))
            .unwrap()
            .flat_map(|repo| std::fs::read_dir(repo.unwrap().path()).unwrap())
            .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let sqlite = c.app.config.database_url.starts_with("sqlite:");

    // Killed with the new bytes whole on disk but before its row: the old file stays.
    c.app.crash_at("release.received").await;
    cut_off(upload(&c, "app.bin", b"the second build".to_vec())).await;
    c.app.crashed("release.received").await;
    // And killed halfway through a new file's bytes: it is not there.
    c.app.crash_at("release.receiving").await;
    let big: Vec<u8> = (0..4u32 << 20).map(|i| (i * 7 % 251) as u8).collect();
    cut_off(upload(&c, "big.bin", big.clone())).await;
    c.app.crashed("release.receiving").await;

    let release = c.app.get_json(&c.token, &format!("{R}/releases/v1")).await;
    let files = release["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{release}");
    assert_eq!(
        (files[0]["name"].as_str(), files[0]["sha256"].as_str()),
        (Some("app.bin"), Some(sha256(&old).as_str()))
    );
    let r = c
        .app
        .as_user(
            Method::GET,
            &format!("{R}/releases/v1/files/app.bin"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.bytes().await.unwrap().as_ref(), old.as_slice());
    if sqlite {
        // The only process sweeps what the kills left before it serves.
        assert_eq!(on_disk(&c).len(), 1, "{:?}", on_disk(&c));
    }

    // Sent again, the upload lands; each landed upload has its one event.
    let r = upload(&c, "big.bin", big.clone()).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = c
        .app
        .as_user(
            Method::GET,
            &format!("{R}/releases/v1/files/big.bin"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["x-svc-sha256"], sha256(&big).as_str());
    assert_eq!(r.bytes().await.unwrap().len(), big.len());
    let kinds: Vec<Value> = events(&c, "")
        .await
        .into_iter()
        .filter(|e| e["collection"] == "releases")
        .map(|e| e["kind"].clone())
        .collect();
    assert_eq!(
        kinds,
        ["release.created", "release.updated", "release.updated"]
    );
    if sqlite {
        assert_eq!(on_disk(&c).len(), 2, "{:?}", on_disk(&c));
    }
}

#[tokio::test]
async fn a_ci_webhook_killed_after_it_was_taken_is_taken_once_when_sent_again() {
    let builder = TestApp::builder().buildkite("http://127.0.0.1:9/v2", "bk-token");
    let mut c = world(builder).await;
    let head = push_branch(&c, "topic");
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/ci/connections"), &c.token)
        .json(&json!({"service": "buildkite", "organization": "acme"}))
        .send()
        .await
        .unwrap();
    let made: Value = expect_json(r, StatusCode::CREATED).await;
    let (url, token) = (
        made["webhook_url"].as_str().unwrap().to_owned(),
        made["webhook_token"].as_str().unwrap().to_owned(),
    );
    let at = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap();
    // Buildkite's own client, apart from the server it calls.
    let buildkite = svc_tests::client();
    let webhook = |event: &str, state: &str| {
        let body = serde_json::to_vec(&json!({"event": event, "build": {"id": "b-1",
            "number": 7, "state": state, "commit": head, "branch": "topic", "message": "topic",
            "web_url": "https://buildkite.com/acme/pipe/builds/7",
            "created_at": "2026-11-25T10:00:00Z", "meta_data": {}, "pipeline": {"slug": "pipe"}},
            "pipeline": {"slug": "pipe"}}))
        .unwrap();
        buildkite
            .post(&url)
            .header("x-buildkite-event", event)
            .header("x-buildkite-signature", sign(&token, at, &body))
            .header("content-type", "application/json")
            .body(body)
    };
    let status = |checks: &Value| {
        checks["statuses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["context"] == "buildkite/pipe")
            .map(|s| s["state"].clone())
    };

    // Killed after taking the webhook, before answering: Buildkite sends it again.
    let before = events(&c, "").await.len();
    c.app.crash_at("ci.applied").await;
    cut_off(webhook("build.running", "running")).await;
    c.app.crashed("ci.applied").await;
    let checks_url = format!("{R}/commits/{head}/checks");
    let build = c
        .app
        .get_json(&c.token, &format!("{M}/ci/builds/b-1"))
        .await;
    assert_eq!(
        build["state"], "running",
        "it landed before the kill: {build}"
    );
    let checks = c.app.get_json(&c.token, &checks_url).await;
    assert_eq!(status(&checks), Some(json!("pending")), "{checks}");
    let landed = events(&c, "").await.len();
    assert!(landed > before, "the build's events landed with it");

    let r = webhook("build.running", "running").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(events(&c, "").await.len(), landed, "taken once");
    let r = webhook("build.finished", "passed").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let checks = c.app.get_json(&c.token, &checks_url).await;
    assert_eq!(status(&checks), Some(json!("success")), "{checks}");
}

/// A runner (svc's own JSON lines) that says one thing and, on its first run, starts a
/// child and waits for it for ever; later runs end at once.
fn sleeper(marker: &str) -> String {
    format!(
        r#"#!/bin/sh
cat >/dev/null
n=$(cat "$HOME/runs" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$HOME/runs"
echo '{{"role":"assistant","parts":[{{"type":"text","text":"Run '$n'."}}]}}'
if [ "$n" = 1 ]; then sleep {marker} & sleep {marker}; fi
"#
    )
}

/// Whether a process with `marker` in its command line runs.
fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
    })
}

/// One kill cuts off both a hook delivery, sent but not recorded, and an agent run. On
/// PostgreSQL another server could hold their leases, so they wait for those to lapse.
#[tokio::test]
async fn a_hook_delivery_and_an_agent_run_cut_off_by_a_kill_are_carried_on() {
    use std::os::unix::fs::PermissionsExt;
    let marker = "1414.213";
    let dir = tempfile::tempdir().unwrap();
    let runner = dir.path().join("runner");
    std::fs::write(&runner, sleeper(marker)).unwrap();
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let agents = format!(
        "[runners.r]\ncommand = [\"{}\"]\nformat = \"svc-jsonl\"\n[[models]]\nid = \"m\"\nrunner = \"r\"\n",
        runner.display()
    );
    let mut c = world(TestApp::builder().agents(&agents)).await;
    c.app.crash_at("hook.sent").await;

    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/agents"), &c.token)
        .json(&json!({"prompt": "Work", "branch": "work"}))
        .send()
        .await
        .unwrap();
    let session: Value = expect_json(r, StatusCode::CREATED).await;
    let session = format!("{M}/agents/{}", session["id"].as_str().unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    while !running(marker) {
        assert!(Instant::now() < deadline, "the runner never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let rx = Receiver::start().await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/hooks"), &c.token)
        .json(&json!({"kind": "web", "url": rx.url, "events": ["push"]}))
        .send()
        .await
        .unwrap();
    let hook: Value = expect_json(r, StatusCode::CREATED).await;
    let deliveries = format!("{M}/hooks/{}/deliveries", hook["id"].as_str().unwrap());
    // (The push may or may not hear its answer before the kill.)
    c.git
        .ok(&c.work, &["checkout", "-q", "-B", "topic", "origin/main"]);
    let head = c.git.commit(&c.work, "topic", &[("b.txt", b"b\n")]);
    c.git.run(&c.work, &["push", "-q", "origin", "topic"]);
    c.app.crashed("hook.sent").await;

    // The runner died with the server.
    let deadline = Instant::now() + Duration::from_secs(5);
    while running(marker) {
        assert!(Instant::now() < deadline, "the runner outlived the server");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The push landed with its delivery, sent again once the cut-off try is let go of.
    assert_eq!(agreed(&c).await["topic"], head);
    let deadline = Instant::now() + Duration::from_secs(120);
    let d = loop {
        let list = c.app.get_json(&c.token, &deliveries).await;
        let d = list["items"][0].clone();
        if d["state"] == "delivered" {
            break d;
        }
        assert!(Instant::now() < deadline, "never delivered: {list}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(d["attempts"], 1, "the cut-off try was never recorded: {d}");
    let got = rx.got();
    assert_eq!(got.len(), 2, "sent before the kill and again after");
    // The same delivery, each try with tokens of its own.
    let fixed = |body: Value| {
        let mut body = body.as_object().unwrap().clone();
        body.retain(|k, _| !k.starts_with("read_token") && !k.starts_with("status_token"));
        body
    };
    assert_eq!(got[0].delivery, got[1].delivery);
    assert_eq!(fixed(got[0].json()), fixed(got[1].json()));
    assert_eq!(got[0].json()["head"], head.as_str());

    // The session failed with its run; a message carries it on.
    let deadline = Instant::now() + Duration::from_secs(120);
    let s = loop {
        let s = c.app.get_json(&c.token, &session).await;
        if s["state"] != "running" {
            break s;
        }
        assert!(Instant::now() < deadline, "still running: {s}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(s["state"], "failed", "{s}");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .contains("send a message to carry on"),
        "{s}"
    );
    let creds = c.app.get_json(&c.token, "/v1/user/credentials").await;
    assert!(!creds.to_string().contains("cloud-"), "revoked: {creds}");
    let r = c
        .app
        .as_user(Method::POST, &format!("{session}/messages"), &c.token)
        .json(&json!({"message": "Go on"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let s = c.app.get_json(&c.token, &session).await;
        if s["state"] == "idle" {
            break;
        }
        assert!(Instant::now() < deadline, "not carried on: {s}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let t = c
        .app
        .get_json(&c.token, &format!("{session}/transcript"))
        .await;
    assert!(t.to_string().contains("Run 2."), "{t}");
}
