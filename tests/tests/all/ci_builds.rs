//! Steering builds on a fake Buildkite (rebuild, cancel, retry: `write_builds`) and what
//! svc reads from it (job log tail, annotations, artifacts, pipeline configuration).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_server::ci::signature::sign;
use svc_tests::fake_buildkite::FakeBuildkite;
use svc_tests::{TestApp, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";

/// A monorepo connected to a fake Buildkite, with a build the owner started of `topic`.
struct World {
    fake: FakeBuildkite,
    c: svc_tests::Cloned,
    hook_url: String,
    webhook_token: String,
    head: String,
    build: Value,
}

async fn world() -> World {
    let fake = FakeBuildkite::start().await;
    let builder = TestApp::builder().buildkite(&fake.api_url, "bk-token");
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"one\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    let head = c.git.commit(&c.work, "Build me", &[("b.txt", b"b\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/ci/connections"), &c.token)
        .json(&json!({"service": "buildkite", "organization": "acme"}))
        .send()
        .await
        .unwrap();
    let made: Value = expect_json(r, StatusCode::CREATED).await;
    let r = c
        .app
        .as_user(
            Method::POST,
            &format!("{M}/ci/pipelines/pipe/builds"),
            &c.token,
        )
        .json(&json!({"branch": "topic"}))
        .send()
        .await
        .unwrap();
    let build = expect_json(r, StatusCode::CREATED).await;
    World {
        fake,
        hook_url: made["webhook_url"].as_str().unwrap().to_owned(),
        webhook_token: made["webhook_token"].as_str().unwrap().to_owned(),
        c,
        head,
        build,
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
    fn id(&self) -> &str {
        self.build["id"].as_str().unwrap()
    }

    async fn post(&self, path: &str, token: &str) -> reqwest::Response {
        self.c
            .app
            .as_user(Method::POST, &format!("{M}{path}"), token)
            .send()
            .await
            .unwrap()
    }

    /// Buildkite's webhook about the started build (and a job), signed at `at`.
    async fn webhook(&self, event: &str, state: &str, job: Option<Value>, at: i64) {
        let mut body = json!({"event": event, "pipeline": {"slug": "pipe"},
            "build": {"id": self.id(), "number": self.build["number"], "state": state,
                "commit": self.head, "branch": "topic", "meta_data": self.build["meta_data"]}});
        if let Some(job) = job {
            body["job"] = job;
        }
        let bytes = serde_json::to_vec(&body).unwrap();
        let r = self
            .c
            .app
            .client
            .post(&self.hook_url)
            .header("x-buildkite-event", event)
            .header(
                "x-buildkite-signature",
                sign(&self.webhook_token, at, &bytes),
            )
            .header("content-type", "application/json")
            .body(bytes)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{event}: {}", r.status());
    }

    async fn get(&self, path: &str) -> Value {
        self.c
            .app
            .get_json(&self.c.token, &format!("{M}{path}"))
            .await
    }

    async fn check_state(&self) -> String {
        let checks = self
            .c
            .app
            .get_json(&self.c.token, &format!("{R}/commits/{}/checks", self.head))
            .await;
        let found = checks["statuses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["context"] == "buildkite/pipe")
            .cloned()
            .unwrap();
        found["state"].as_str().unwrap().to_owned()
    }

    /// A further credential of the owner.
    async fn credential(&self, token: &str, body: Value) -> reqwest::Response {
        self.c
            .app
            .as_user(Method::POST, "/v1/user/credentials", token)
            .json(&body)
            .send()
            .await
            .unwrap()
    }
}

#[tokio::test]
async fn steering_a_build_needs_write_builds_which_a_sandbox_only_has_when_given() {
    let w = world().await;
    let id = w.id().to_owned();
    // A sandbox credential holds no permission unless made with it.
    let r = w
        .credential(&w.c.token, json!({"name": "box", "kind": "sandbox"}))
        .await;
    let sandbox: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(sandbox["permissions"], json!([]));
    let sandbox = sandbox["token"].as_str().unwrap().to_owned();
    for path in [
        format!("/ci/builds/{id}/rebuild"),
        format!("/ci/builds/{id}/cancel"),
    ] {
        let r = w.post(&path, &sandbox).await;
        let e = expect_error(r, StatusCode::FORBIDDEN, "missing_permission").await;
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("write_builds")
        );
    }
    // A sandbox cannot make itself a credential holding more than it holds.
    for body in [
        json!({"name": "m", "kind": "machine", "permissions": ["write_builds"]}),
        json!({"name": "m", "kind": "machine"}),
    ] {
        let r = w.credential(&sandbox, body.clone()).await;
        if body.get("permissions").is_some() {
            expect_error(r, StatusCode::FORBIDDEN, "missing_permission").await;
        } else {
            let made: Value = expect_json(r, StatusCode::CREATED).await;
            assert_eq!(made["permissions"], json!([]), "cut to the maker's");
        }
    }
    // The owner's machine makes a sandbox that may steer builds.
    let r = w
        .credential(
            &w.c.token,
            json!({"name": "ci-box", "kind": "sandbox", "permissions": ["write_builds"]}),
        )
        .await;
    let steering: Value = expect_json(r, StatusCode::CREATED).await;
    let list = w.c.app.get_json(&w.c.token, "/v1/user/credentials").await;
    let listed: Vec<(&str, &Value)> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), &c["permissions"]))
        .collect();
    assert!(listed.contains(&("ci-box", &json!(["write_builds"]))));
    assert!(listed.contains(&("box", &json!([]))));
    // An outsider gets 404, as everywhere.
    let eve =
        w.c.app
            .bootstrap(json!({"email": "eve@example.com"}))
            .await
            .credential
            .token;
    let r = w.post(&format!("/ci/builds/{id}/rebuild"), &eve).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // Rebuild: a new build of the same commit and branch, fresh tokens, svc_rebuild_of.
    let r = w
        .post(
            &format!("/ci/builds/{id}/rebuild"),
            steering["token"].as_str().unwrap(),
        )
        .await;
    let rebuilt: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(rebuilt["rebuild_of"], id.as_str());
    assert_eq!(rebuilt["commit"], w.head.as_str());
    assert_eq!(rebuilt["branch"], "topic");
    let created = w.fake.created();
    assert_eq!(created.len(), 2);
    let (first, again) = (&created[0].body, &created[1].body);
    assert_eq!(again["meta_data"]["svc_rebuild_of"], id.as_str());
    assert_eq!(again["commit"], first["commit"]);
    assert_eq!(again["message"], "Build me");
    assert_ne!(
        again["env"]["SVC_READ_TOKEN"], first["env"]["SVC_READ_TOKEN"],
        "fresh tokens"
    );
    assert!(again["env"]["SVC_STATUS_TOKEN"].is_string());

    // Cancel: passed through and recorded; a finished build answers 409 ci_finished.
    let new_id = rebuilt["id"].as_str().unwrap();
    let r = w
        .post(&format!("/ci/builds/{new_id}/cancel"), &w.c.token)
        .await;
    let canceled: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(
        (
            canceled["state"].as_str(),
            canceled["service_state"].as_str()
        ),
        (Some("canceled"), Some("canceled"))
    );
    let calls = w.fake.calls();
    let r = w
        .post(&format!("/ci/builds/{new_id}/cancel"), &w.c.token)
        .await;
    expect_error(r, StatusCode::CONFLICT, "ci_finished").await;
    assert_eq!(w.fake.calls(), calls, "a finished build is not sent");
    let r = w.post("/ci/builds/nope/cancel", &w.c.token).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn a_retried_job_is_recorded_at_once_and_reopens_its_build() {
    let w = world().await;
    let id = w.id().to_owned();
    let t = now();
    let job = |id: &str, state: &str, exit: Option<i64>| json!({"id": id, "name": "test", "state": state, "exit_status": exit});
    w.webhook(
        "job.finished",
        "failing",
        Some(job("job-1", "finished", Some(1))),
        t,
    )
    .await;
    w.webhook("build.finished", "failed", None, t + 1).await;
    assert_eq!(w.check_state().await, "failure");

    let r = w
        .post(&format!("/ci/builds/{id}/jobs/job-1/retry"), &w.c.token)
        .await;
    let new: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(
        (new["id"].as_str(), new["state"].as_str()),
        (Some("job-1-retry"), Some("queued"))
    );
    let b = w.get(&format!("/ci/builds/{id}")).await;
    assert_eq!(b["state"], "running", "the build is open again");
    assert!(b["finished_at"].is_null());
    let jobs = b["jobs"].as_array().unwrap();
    let old = jobs.iter().find(|j| j["id"] == "job-1").unwrap();
    assert_eq!(old["retried_by"], "job-1-retry");
    assert!(jobs.iter().any(|j| j["id"] == "job-1-retry"));
    assert_eq!(
        w.check_state().await,
        "pending",
        "its check back to pending"
    );
    // Buildkite retries a job once.
    let r = w
        .post(&format!("/ci/builds/{id}/jobs/job-1/retry"), &w.c.token)
        .await;
    expect_error(r, StatusCode::BAD_GATEWAY, "provider_error").await;
    let r = w
        .post(&format!("/ci/builds/{id}/jobs/nope/retry"), &w.c.token)
        .await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // The service's webhooks about the rerun then finish the build again.
    w.webhook(
        "job.finished",
        "running",
        Some(job("job-1-retry", "finished", Some(0))),
        t + 2,
    )
    .await;
    w.webhook("build.finished", "passed", None, t + 3).await;
    let b = w.get(&format!("/ci/builds/{id}")).await;
    assert_eq!(b["state"], "passed");
    assert_eq!(w.check_state().await, "success");
}

#[tokio::test]
async fn the_log_tail_annotations_artifacts_and_pipeline_come_from_the_service() {
    let w = world().await;
    let id = w.id().to_owned();
    let t = now();
    w.webhook(
        "job.started",
        "running",
        Some(json!({"id": "job-1", "name": "test", "state": "running"})),
        t,
    )
    .await;
    // 1.5 MiB of log with escape codes: the last 1 MiB comes back raw.
    let mut whole = b"\x1b[31mred\x1b[0m start\n".to_vec();
    whole.resize(1024 * 1024 * 3 / 2, b'x');
    whole.extend_from_slice(b"\x1b[32mdone\x1b[0m\n");
    w.fake.set_log("job-1", &whole);
    let log = |w: &World| {
        w.c.app
            .as_user(
                Method::GET,
                &format!("{M}/ci/builds/{id}/jobs/job-1/log"),
                &w.c.token,
            )
            .send()
    };
    let r = log(&w).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["cache-control"], "no-cache", "still running");
    assert_eq!(
        r.headers()["x-ci-log-size"].to_str().unwrap(),
        whole.len().to_string()
    );
    let tail = r.bytes().await.unwrap();
    assert_eq!(tail.len(), 1024 * 1024);
    assert_eq!(&tail[..], &whole[whole.len() - 1024 * 1024..]);
    w.webhook(
        "job.finished",
        "running",
        Some(json!({"id": "job-1", "name": "test", "state": "finished", "exit_status": 0})),
        t + 1,
    )
    .await;
    let r = log(&w).await.unwrap();
    assert!(
        r.headers()["cache-control"]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
    let r =
        w.c.app
            .as_user(
                Method::GET,
                &format!("{M}/ci/builds/{id}/jobs/other/log"),
                &w.c.token,
            )
            .send()
            .await
            .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // The first 100 annotations and artifacts, each artifact with svc's download link.
    w.fake.extras(120);
    let notes = w.get(&format!("/ci/builds/{id}/annotations")).await;
    let notes = notes["items"].as_array().unwrap();
    assert_eq!(notes.len(), 100);
    assert_eq!(notes[0]["body_html"], "<p>note 0</p>");
    let listed = w.get(&format!("/ci/builds/{id}/artifacts")).await;
    let listed = listed["items"].as_array().unwrap();
    assert_eq!(listed.len(), 100);
    assert_eq!(listed[3]["path"], "dist/file-3.txt");
    let link = listed[3]["download_url"].as_str().unwrap();
    assert!(link.ends_with(&format!("/ci/builds/{id}/artifacts/art-1-3/download")));
    let plain = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = plain
        .get(link)
        .bearer_auth(&w.c.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FOUND);
    assert_eq!(
        r.headers()["location"],
        "https://artifacts.buildkite.example/art-1-3?signature=short-lived"
    );
    // Only an artifact of this build.
    let r = plain
        .get(link.replace("art-1-3", "art-2-3"))
        .bearer_auth(&w.c.token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // The pipeline: read once, kept for 5 minutes, the last copy shown when a read fails.
    let p = w.get("/ci/pipelines/pipe").await;
    assert_eq!(p["name"], "The pipe");
    assert!(
        p["configuration"]
            .as_str()
            .unwrap()
            .contains("command: make test")
    );
    assert!(p["configuration_error"].is_null());
    assert_eq!(p["builds"][0]["id"], id.as_str());
    let reads = || {
        w.fake
            .calls()
            .iter()
            .filter(|c| c.as_str() == "GET pipe")
            .count()
    };
    w.get("/ci/pipelines/pipe").await;
    assert_eq!(reads(), 1, "read at most every 5 minutes");
    age_pipeline(&w.c.app, "pipe").await;
    w.fake.answer(&[500]);
    let p2 = w.get("/ci/pipelines/pipe").await;
    assert_eq!(reads(), 2);
    assert_eq!(p2["configuration"], p["configuration"], "the last copy");
    assert!(p2["configuration_error"].as_str().unwrap().contains("500"));
    let r =
        w.c.app
            .as_user(
                Method::GET,
                &format!("{M}/ci/pipelines/missing"),
                &w.c.token,
            )
            .send()
            .await
            .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

/// Moves the pipeline's last read 6 minutes back, as if time had passed.
async fn age_pipeline(app: &TestApp, slug: &str) {
    use svc_server::store::ci;
    let store = svc_server::store::Store::open(&app.config.database_url)
        .await
        .unwrap();
    for _ in 0..50 {
        let done = async {
            let mut tx = store.begin().await?;
            let monorepo =
                svc_server::store::monorepos::by_label_with_role(tx.h(), "ann", "mono", "")
                    .await?
                    .expect("the monorepo");
            let connection = ci::connections(tx.h(), &monorepo.monorepo.id)
                .await?
                .remove(0);
            let mut row = ci::pipeline(tx.h(), &connection.id, slug)
                .await?
                .expect("read once");
            row.read_at -= 6 * 60 * 1000;
            ci::put_pipeline(tx.h(), &row).await?;
            tx.commit().await
        }
        .await;
        if done.is_ok() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("could not age the pipeline");
}
