//! `svc ci ...` end to end: the real `svc` against a real server and a fake Buildkite at
//! its wire protocol, read as a transcript.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use svc_server::ci::signature::sign;
use svc_tests::TestApp;
use svc_tests::fake_buildkite::FakeBuildkite;
use svc_tests::git::all_output;
use svc_tests::machine::Machine;

// The fake runs on this test's runtime while `svc` blocks a thread waiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builds_from_the_command_line() {
    let fake = FakeBuildkite::start().await;
    let builder = TestApp::builder().buildkite(&fake.api_url, "bk-token");
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"a\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    let head = c.git.commit(&c.work, "Try it", &[("x.txt", b"x\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let machine = Machine::new();
    let command = |args: &[&str]| {
        let mut cmd = machine.svc(args);
        cmd.env("SVC_TOKEN", &c.token)
            .env("SVC_SERVER", &c.app.base);
        cmd
    };
    let svc = |args: &[&str]| {
        let out = command(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", all_output(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let json = |args: &[&str]| -> Value {
        let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        serde_json::from_str(&svc(&args)).unwrap()
    };

    // An owner connects the monorepo; the webhook token is shown this once.
    let made = json(&["ci", "connect", "acme", "-R", "ann/mono"]);
    let webhook_token = made["webhook_token"].as_str().unwrap().to_owned();
    let hook_url = made["webhook_url"].as_str().unwrap().to_owned();
    let out = svc(&["ci", "connect", "other-org", "-R", "ann/mono"]);
    assert!(out.contains("shown only this once"), "{out}");
    let out = command(&["ci", "connect", "acme", "-R", "ann/mono"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "one connection per organization");
    let status = json(&["ci", "status", "-R", "ann/mono"]);
    let other = status["connections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["organization"] == "other-org")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // A member starts a build of a branch; it is listed at once.
    let out = command(&["ci", "start", "pipe", "-R", "ann/mono/app", "-b", "topic"])
        .output()
        .unwrap();
    assert!(all_output(&out).contains("several CI connections"));
    let acme = made["id"].as_str().unwrap();
    let build = json(&[
        "ci",
        "start",
        "pipe",
        "-R",
        "ann/mono/app",
        "-b",
        "topic",
        "--connection",
        acme,
    ]);
    assert_eq!(build["commit"], head.as_str());
    let id = build["id"].as_str().unwrap().to_owned();
    let table = svc(&["ci", "builds", "-R", "ann/mono"]);
    assert!(table.contains(&id) && table.contains("queued"), "{table}");

    // Buildkite reports a running job; its log is read raw, and followed to its end.
    let send = |event: &str, body: Value| {
        let bytes = serde_json::to_vec(&body).unwrap();
        let at = i64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs(),
        )
        .unwrap();
        c.app
            .client
            .post(&hook_url)
            .header("x-buildkite-event", event)
            .header("x-buildkite-signature", sign(&webhook_token, at, &bytes))
            .body(bytes)
            .send()
    };
    let b2 = json!({"id": "b-2", "number": 2, "state": "running", "commit": head,
        "branch": "topic", "meta_data": {}});
    let job = |state: &str, exit: Option<i64>| json!({"id": "job-1", "name": "test", "state": state, "exit_status": exit});
    let r = send(
        "job.started",
        json!({"build": b2, "job": job("running", None), "pipeline": {"slug": "pipe"}}),
    )
    .await
    .unwrap();
    assert!(r.status().is_success());
    fake.set_log("job-1", b"\x1b[1mone\x1b[0m\n");
    let out = command(&["ci", "log", "-R", "ann/mono", "b-2", "job-1"])
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"\x1b[1mone\x1b[0m\n", "raw, escape codes kept");
    let view = svc(&["ci", "view", "-R", "ann/mono", "b-2"]);
    assert!(view.contains("job-1") && view.contains("running"), "{view}");

    let follow = command(&["ci", "log", "-R", "ann/mono", "b-2", "job-1", "--follow"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    fake.set_log("job-1", b"\x1b[1mone\x1b[0m\ntwo\n");
    let r = send(
        "job.finished",
        json!({"build": b2, "job": job("finished", Some(1)), "pipeline": {"slug": "pipe"}}),
    )
    .await
    .unwrap();
    assert!(r.status().is_success());
    let out = tokio::task::spawn_blocking(move || follow.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "\x1b[1mone\x1b[0m\ntwo\n",
        "every byte once, in order"
    );

    // Steering: retry the failed job, rebuild by pipeline#number, cancel.
    let retried = json(&["ci", "retry", "-R", "ann/mono", "b-2", "job-1"]);
    assert_eq!(retried["id"], "job-1-retry");
    let rebuilt = json(&["ci", "rebuild", "-R", "ann/mono", "pipe#1"]);
    assert_eq!(rebuilt["rebuild_of"], id.as_str());
    let new_id = rebuilt["id"].as_str().unwrap().to_owned();
    let canceled = json(&["ci", "cancel", "-R", "ann/mono", &new_id]);
    assert_eq!(canceled["state"], "canceled");
    let out = command(&["ci", "cancel", "-R", "ann/mono", &new_id])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        all_output(&out).contains("finished"),
        "{}",
        all_output(&out)
    );

    svc(&["ci", "disconnect", "-R", "ann/mono", &other]);
    let status = json(&["ci", "status", "-R", "ann/mono"]);
    assert_eq!(status["connections"].as_array().unwrap().len(), 1);
}
