//! CI connections and the Buildkite webhook receiver end to end: Buildkite's own
//! requests (signed, with a plain token, stale, forged), builds and jobs that never move
//! back, and the build's commit status gating a merge.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_server::ci::signature::sign;
use svc_tests::{TestApp, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";

struct World {
    c: svc_tests::Cloned,
    hook_url: String,
    token: String,
    head: String,
}

async fn world() -> World {
    let builder = TestApp::builder().buildkite("http://127.0.0.1:9/v2", "bk-token");
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"one\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    // The pipeline is a required check of the repo.
    let url = c.app.url("/ann/mono/meta.git");
    c.git.ok(c.git.home.path(), &["clone", "-q", &url, "meta"]);
    let meta = c.git.path("meta");
    let toml = "[repos.\"app\"]\nrequired_checks = [\"buildkite/pipe\"]\n";
    c.git
        .commit(&meta, "config", &[(".svc/svc.toml", toml.as_bytes())]);
    c.git.ok(&meta, &["push", "-q", "origin", "main"]);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    let head = c.git.commit(&c.work, "topic", &[("b.txt", b"b\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/ci/connections"), &c.token)
        .json(&json!({"service": "buildkite", "organization": "acme"}))
        .send()
        .await
        .unwrap();
    let made: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(made["token"], "worker_secret");
    World {
        hook_url: made["webhook_url"].as_str().unwrap().to_owned(),
        token: made["webhook_token"].as_str().unwrap().to_owned(),
        c,
        head,
    }
}

fn now() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap()
}

impl World {
    fn build(&self, state: &str) -> Value {
        json!({"id": "b-1", "number": 7, "state": state, "commit": self.head, "branch": "topic",
            "message": "topic", "web_url": "https://buildkite.com/acme/pipe/builds/7",
            "created_at": "2026-11-25T10:00:00Z", "meta_data": {}, "pipeline": {"slug": "pipe"}})
    }

    /// Sends Buildkite's request, signed at `at` (seconds).
    async fn signed(&self, event: &str, body: &Value, at: i64) -> reqwest::Response {
        let bytes = serde_json::to_vec(body).unwrap();
        self.c
            .app
            .client
            .post(&self.hook_url)
            .header("x-buildkite-event", event)
            .header("x-buildkite-signature", sign(&self.token, at, &bytes))
            .header("content-type", "application/json")
            .body(bytes)
            .send()
            .await
            .unwrap()
    }

    async fn build_state(&self) -> (String, String) {
        let b = self
            .c
            .app
            .get_json(&self.c.token, &format!("{M}/ci/builds/b-1"))
            .await;
        (
            b["state"].as_str().unwrap().to_owned(),
            b["service_state"].as_str().unwrap().to_owned(),
        )
    }

    async fn check(&self) -> Value {
        let checks = self
            .c
            .app
            .get_json(&self.c.token, &format!("{R}/commits/{}/checks", self.head))
            .await;
        checks["statuses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["context"] == "buildkite/pipe")
            .cloned()
            .unwrap_or(Value::Null)
    }
}

#[tokio::test]
async fn connecting_needs_settings_and_an_owner() {
    let c = svc_tests::Cloned::new("mono", "app").await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/ci/connections"), &c.token)
        .json(&json!({"service": "buildkite", "organization": "acme"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "ci_not_configured").await;

    let w = world().await;
    let r =
        w.c.app
            .as_user(Method::POST, &format!("{M}/ci/connections"), &w.c.token)
            .json(&json!({"service": "buildkite", "organization": "ACME"}))
            .send()
            .await
            .unwrap();
    expect_error(r, StatusCode::CONFLICT, "ci_connection_exists").await;
    let bob =
        w.c.app
            .bootstrap(json!({"email": "bob@example.com"}))
            .await
            .credential
            .token;
    let r =
        w.c.app
            .as_user(Method::PUT, &format!("{M}/members/bob"), &w.c.token)
            .json(&json!({"role": "member"}))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r =
        w.c.app
            .as_user(Method::POST, &format!("{M}/ci/connections"), &bob)
            .json(&json!({"service": "buildkite", "organization": "other"}))
            .send()
            .await
            .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let overview = w.c.app.get_json(&bob, &format!("{M}/ci")).await;
    assert_eq!(overview["services"], json!(["buildkite"]));
    assert_eq!(overview["connections"][0]["organization"], "acme");
    assert!(overview["connections"][0].get("webhook_token").is_none());
    assert_eq!(
        overview["required_checks"],
        json!([{"repo": "app", "required": ["buildkite/pipe"]}])
    );
}

#[tokio::test]
async fn webhooks_move_builds_forward_and_their_status_gates_the_merge() {
    let w = world().await;
    let t = now();
    let r = w.signed("ping", &json!({"event": "ping"}), t).await;
    assert_eq!(r.status(), StatusCode::OK);
    let r = w
        .signed("build.scheduled", &json!({"event": "build.scheduled", "build": w.build("scheduled"), "pipeline": {"slug": "pipe"}}), t)
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(w.build_state().await, ("queued".into(), "scheduled".into()));
    let status = w.check().await;
    assert_eq!(status["state"], "pending");
    assert_eq!(
        (status["app"].as_str(), status["creator"].as_str()),
        (Some("buildkite"), Some("app:buildkite"))
    );
    let merge =
        w.c.app
            .as_user(
                Method::POST,
                &format!("{R}/branches/topic/merge"),
                &w.c.token,
            )
            .send()
            .await
            .unwrap();
    expect_error(merge, StatusCode::PRECONDITION_FAILED, "checks_not_green").await;

    // A job starts and finishes; the build passes.
    let job = |state: &str, exit: Value| {
        json!({"event": format!("job.{state}"), "build": w.build("running"), "pipeline": {"slug": "pipe"},
            "job": {"id": "j-1", "name": "test", "state": state, "exit_status": exit, "web_url": "https://buildkite.com/j"}})
    };
    assert_eq!(
        w.signed("job.started", &job("running", Value::Null), t + 1)
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(w.build_state().await.0, "running");
    assert_eq!(
        w.signed("job.finished", &job("finished", json!(0)), t + 2)
            .await
            .status(),
        StatusCode::OK
    );
    let finished = json!({"event": "build.finished", "build": w.build("passed"), "pipeline": {"slug": "pipe"}});
    assert_eq!(
        w.signed("build.finished", &finished, t + 3).await.status(),
        StatusCode::OK
    );
    assert_eq!(w.build_state().await, ("passed".into(), "passed".into()));
    assert_eq!(w.check().await["state"], "success");

    // Late, out-of-order events never move anything back.
    let late = json!({"event": "build.running", "build": w.build("running"), "pipeline": {"slug": "pipe"}});
    assert_eq!(
        w.signed("build.running", &late, t + 1).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        w.signed("job.started", &job("running", Value::Null), t + 4)
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(w.build_state().await.0, "passed");
    let b =
        w.c.app
            .get_json(&w.c.token, &format!("{M}/ci/builds/b-1"))
            .await;
    assert_eq!(b["jobs"][0]["state"], "passed");
    assert_eq!(b["repo"], "app");
    let list =
        w.c.app
            .get_json(&w.c.token, &format!("{M}/ci/builds?pipeline=pipe&number=7"))
            .await;
    assert_eq!(list["items"][0]["id"], "b-1");
    let page =
        w.c.app
            .get_json(&w.c.token, &format!("{M}/events?limit=500"))
            .await;
    let kinds: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["collection"] == "ci_builds" || e["collection"] == "ci_jobs")
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["ci.build", "ci.build", "ci.job", "ci.job", "ci.build"]
    );

    let merge =
        w.c.app
            .as_user(
                Method::POST,
                &format!("{R}/branches/topic/merge"),
                &w.c.token,
            )
            .send()
            .await
            .unwrap();
    let merged: Value = expect_json(merge, StatusCode::OK).await;

    // A build of main shows in the repo's summary.
    let summary = w.c.app.get_json(&w.c.token, &format!("{R}/summary")).await;
    assert_eq!(summary["main"]["build"], Value::Null);
    let mut main_build = w.build("running");
    main_build["id"] = json!("b-main");
    main_build["branch"] = json!("main");
    main_build["commit"] = merged["sha"].clone();
    let body = json!({"event": "build.running", "build": main_build, "pipeline": {"slug": "pipe"}});
    assert_eq!(
        w.signed("build.running", &body, t + 5).await.status(),
        StatusCode::OK
    );
    let summary = w.c.app.get_json(&w.c.token, &format!("{R}/summary")).await;
    assert_eq!(summary["main"]["build"]["id"], "b-main");
    assert_eq!(summary["main"]["build"]["state"], "running");
}

#[tokio::test]
async fn forged_stale_and_oversized_webhooks_are_refused_and_disconnect_keeps_checks() {
    let w = world().await;
    let body = json!({"event": "build.scheduled", "build": w.build("scheduled"), "pipeline": {"slug": "pipe"}});
    let bytes = serde_json::to_vec(&body).unwrap();
    let send = |headers: Vec<(&'static str, String)>, bytes: Vec<u8>| {
        let mut r =
            w.c.app
                .client
                .post(&w.hook_url)
                .header("x-ci-event", "build.scheduled")
                .body(bytes);
        for (k, v) in headers {
            r = r.header(k, v);
        }
        r.send()
    };
    let t = now();
    for (headers, why) in [
        (vec![], "none"),
        (vec![("x-ci-token", "wrong".to_owned())], "a wrong token"),
        (
            vec![("x-ci-signature", sign("wrong", t, &bytes))],
            "a forged signature",
        ),
        (
            vec![("x-ci-signature", sign(&w.token, t - 301, &bytes))],
            "a stale timestamp",
        ),
        (
            vec![("x-ci-signature", sign(&w.token, t, b"other body"))],
            "another body",
        ),
    ] {
        let r = send(headers, bytes.clone()).await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{why}");
    }
    let r = send(vec![("x-ci-token", w.token.clone())], bytes.clone())
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "the plain token");
    let r = send(
        vec![("x-ci-signature", sign(&w.token, t + 299, &bytes))],
        bytes.clone(),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "within 5 minutes");
    let mut padded = body.clone();
    padded["build"]["meta_data"] = json!({"note": "x".repeat(4 * 1024 * 1024)});
    let padded = serde_json::to_vec(&padded).unwrap();
    let r = send(vec![("x-ci-token", w.token.clone())], padded)
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "a 4 MiB body");
    // Over 5 MiB: refused from the header, before the body is read.
    let url = url::Url::parse(&w.hook_url).unwrap();
    let addr = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap());
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: {addr}\r\nX-Ci-Token: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        url.path(),
        w.token,
        5 * 1024 * 1024 + 1
    );
    tokio::io::AsyncWriteExt::write_all(&mut s, head.as_bytes())
        .await
        .unwrap();
    let mut answer = vec![0u8; 12];
    tokio::io::AsyncReadExt::read_exact(&mut s, &mut answer)
        .await
        .unwrap();
    assert_eq!(&answer, b"HTTP/1.1 413");
    assert_eq!(w.check().await["state"], "pending");

    let overview = w.c.app.get_json(&w.c.token, &format!("{M}/ci")).await;
    let id = overview["connections"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r =
        w.c.app
            .as_user(
                Method::DELETE,
                &format!("{M}/ci/connections/{id}"),
                &w.c.token,
            )
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = send(vec![("x-ci-token", w.token.clone())], bytes)
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::NOT_FOUND,
        "a disconnected webhook URL"
    );
    assert_eq!(w.check().await["state"], "pending", "its check stays");
    let r =
        w.c.app
            .as_user(Method::GET, &format!("{M}/ci/builds/b-1"), &w.c.token)
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND, "its builds go");
}

/// A CI hook starts a build on the service for each push and merge, with the
/// specification's environment and meta_data; a failed create is a failed try.
#[tokio::test]
async fn a_ci_hook_starts_builds_with_their_environment() {
    let fake = svc_tests::fake_buildkite::FakeBuildkite::start().await;
    let builder = TestApp::builder().buildkite(&fake.api_url, "bk-token");
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"one\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/hooks"), &c.token)
        .json(&json!({"kind": "ci", "pipeline": "acme/pipe", "events": ["push", "merged", "tag"]}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/hooks"), &c.token)
        .json(&json!({"kind": "ci", "pipeline": "acme/pipe", "events": ["push", "merged"]}))
        .send()
        .await
        .unwrap();
    let hook: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(
        (hook["app"].as_str(), hook["url"].as_str()),
        (Some("buildkite"), None)
    );

    fake.answer(&[500]);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    let head = c.git.commit(&c.work, "Topic work", &[("b.txt", b"b\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let got = fake.wait_for(1).await;
    assert_eq!(got[0].authorization, "Bearer bk-token");
    let hook_id = hook["id"].as_str().unwrap();
    let mut d = Value::Null;
    for _ in 0..100 {
        let list = c
            .app
            .get_json(&c.token, &format!("{M}/hooks/{hook_id}/deliveries"))
            .await;
        d = list["items"][0].clone();
        if d["attempts"] == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        (d["state"].as_str(), d["tries"][0]["status"].as_u64()),
        (Some("pending"), Some(500))
    );
    // The retry, 10 s later, creates it.
    let got = fake.wait_for(2).await;
    let b = &got[1];
    assert_eq!((b.org.as_str(), b.pipeline.as_str()), ("acme", "pipe"));
    assert_eq!(b.body["commit"], head.as_str());
    assert_eq!(b.body["branch"], "topic");
    assert_eq!(b.body["message"], "Topic work");
    let env = &b.body["env"];
    for key in [
        "SVC_CLONE_URL",
        "SVC_READ_TOKEN",
        "SVC_STATUS_URL",
        "SVC_STATUS_TOKEN",
        "SVC_MONOREPO",
        "SVC_REPO",
        "SVC_BRANCH",
        "SVC_HEAD",
        "SVC_DELIVERY",
        "SVC_SEQ",
    ] {
        assert!(env[key].is_string(), "{key} in {env}");
    }
    assert_eq!(
        (env["SVC_MONOREPO"].as_str(), env["SVC_REPO"].as_str()),
        (Some("ann/mono"), Some("app"))
    );
    assert_eq!(env["SVC_HEAD"], head.as_str());
    let meta = &b.body["meta_data"];
    assert_eq!(meta["svc_repo"], "app");
    assert!(meta["svc_monorepo"].as_str().unwrap().starts_with("m_"));
    assert_eq!(meta["svc_delivery"], env["SVC_DELIVERY"]);

    // Its status token posts as the CI app; its read token clones.
    let r = c
        .app
        .client
        .post(env["SVC_STATUS_URL"].as_str().unwrap())
        .bearer_auth(env["SVC_STATUS_TOKEN"].as_str().unwrap())
        .json(&json!({"context": "buildkite/pipe", "state": "success"}))
        .send()
        .await
        .unwrap();
    let s: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(
        (s["creator"].as_str(), s["app"].as_str()),
        (Some("app:buildkite"), Some("buildkite"))
    );
    let header = format!(
        "http.extraHeader=Authorization: Bearer {}",
        env["SVC_READ_TOKEN"].as_str().unwrap()
    );
    let out = c.git.run(
        c.git.home.path(),
        &[
            "-c",
            "credential.helper=",
            "-c",
            &header,
            "clone",
            "-q",
            env["SVC_CLONE_URL"].as_str().unwrap(),
            "ci",
        ],
    );
    assert!(out.status.success(), "{}", svc_tests::git::all_output(&out));

    // A merge builds main's merge commit on main; a deleted branch builds nothing.
    let r = c
        .app
        .as_user(Method::POST, &format!("{R}/branches/topic/merge"), &c.token)
        .send()
        .await
        .unwrap();
    let merged: Value = expect_json(r, StatusCode::OK).await;
    let got = fake.wait_for(3).await;
    assert_eq!(got[2].body["commit"], merged["sha"]);
    assert_eq!(got[2].body["branch"], "main");
    c.git
        .ok(&c.work, &["push", "-q", "origin", "HEAD:refs/heads/gone"]);
    fake.wait_for(4).await;
    c.git
        .ok(&c.work, &["push", "-q", "origin", ":refs/heads/gone"]);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(fake.created().len(), 4, "no build of a deleted branch");
}

/// startCiBuild builds a branch's head as stored, and records the build at once.
#[tokio::test]
async fn a_member_starts_a_build_of_a_branch() {
    let fake = svc_tests::fake_buildkite::FakeBuildkite::start().await;
    let builder = TestApp::builder().buildkite(&fake.api_url, "bk-token");
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"one\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    let head = c.git.commit(&c.work, "Build me", &[("b.txt", b"b\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let start = |body: Value| {
        c.app
            .as_user(
                Method::POST,
                &format!("{M}/ci/pipelines/pipe/builds"),
                &c.token,
            )
            .json(&body)
            .send()
    };
    let r = start(json!({"branch": "topic"})).await.unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/ci/connections"), &c.token)
        .json(&json!({"service": "buildkite", "organization": "acme"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = start(json!({"branch": "nope"})).await.unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = start(json!({"branch": "topic"})).await.unwrap();
    let b: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(
        (b["state"].as_str(), b["service_state"].as_str()),
        (Some("queued"), Some("scheduled"))
    );
    assert_eq!(
        (b["commit"].as_str(), b["repo"].as_str()),
        (Some(head.as_str()), Some("app"))
    );
    let got = fake.created();
    assert_eq!(got.len(), 1, "recorded at once");
    assert_eq!(
        (got[0].org.as_str(), got[0].pipeline.as_str()),
        ("acme", "pipe")
    );
    assert_eq!(got[0].body["message"], "Build me");
    assert_eq!(got[0].body["env"]["SVC_HEAD"], head.as_str());
    assert!(got[0].body["env"]["SVC_STATUS_TOKEN"].is_string());
    let list = c.app.get_json(&c.token, &format!("{M}/ci/builds")).await;
    assert_eq!(list["items"][0]["id"], b["id"]);
    let checks = c
        .app
        .get_json(&c.token, &format!("{R}/commits/{head}/checks"))
        .await;
    assert_eq!(checks["statuses"][0]["context"], "buildkite/pipe");
    assert_eq!(checks["statuses"][0]["state"], "pending");
    fake.answer(&[422]);
    let r = start(json!({"branch": "topic"})).await.unwrap();
    expect_error(r, StatusCode::BAD_GATEWAY, "provider_error").await;
}
