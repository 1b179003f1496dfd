//! CI in the web against a fake Buildkite: the monorepo's builds (`/ci`), a build with
//! its jobs, annotations and artifacts (`/ci/builds/{id}`), a job's log tail with its
//! escape codes as colour and following live while the job runs, and the forms that
//! steer a build (plain POSTs with the service's Origin, then a redirect).

use std::path::PathBuf;

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_server::ci::signature::sign;
use svc_tests::browser::Browser;
use svc_tests::fake_buildkite::FakeBuildkite;
use svc_tests::git::Git;
use svc_tests::{TestApp, expect_json};

const PASSWORD: &str = "correct horse";
const M: &str = "/v1/monorepos/ann/mono";

/// ann (who signs in with a password) owns `ann/mono` with repo `app`, connected to a
/// fake Buildkite, and started a build of `topic` whose job `test` runs.
struct World {
    fake: FakeBuildkite,
    app: TestApp,
    token: String,
    cookie: String,
    hook_url: String,
    webhook_token: String,
    head: String,
    build: Value,
    _git: Git,
}

impl World {
    async fn new() -> World {
        let fake = FakeBuildkite::start().await;
        let app = TestApp::builder()
            .buildkite(&fake.api_url, "bk-token")
            .start()
            .await;
        let token = app
            .bootstrap(json!({"email": "ann@example.com", "login": "ann", "password": PASSWORD}))
            .await
            .credential
            .token;
        app.monorepo(&token, json!({"name": "mono"})).await;
        let url = app.repo(&token, "ann/mono", "app").await["clone_url"]
            .as_str()
            .unwrap()
            .to_owned();
        let git = Git::new(&token);
        git.ok(git.home.path(), &["clone", "-q", &url, "work"]);
        let work: PathBuf = git.path("work");
        git.commit(&work, "first", &[("a.txt", b"one\n")]);
        git.ok(&work, &["push", "-q", "origin", "main"]);
        git.ok(&work, &["checkout", "-q", "-b", "topic"]);
        let head = git.commit(&work, "Build me", &[("b.txt", b"b\n")]);
        git.ok(&work, &["push", "-q", "origin", "topic"]);
        let r = app
            .as_user(Method::POST, &format!("{M}/ci/connections"), &token)
            .json(&json!({"service": "buildkite", "organization": "acme"}))
            .send()
            .await
            .unwrap();
        let made: Value = expect_json(r, StatusCode::CREATED).await;
        let r = app
            .as_user(
                Method::POST,
                &format!("{M}/ci/pipelines/pipe/builds"),
                &token,
            )
            .json(&json!({"branch": "topic"}))
            .send()
            .await
            .unwrap();
        let build = expect_json(r, StatusCode::CREATED).await;
        let cookie = app.sign_in("ann", PASSWORD).await;
        let w = World {
            fake,
            hook_url: made["webhook_url"].as_str().unwrap().to_owned(),
            webhook_token: made["webhook_token"].as_str().unwrap().to_owned(),
            app,
            token,
            cookie,
            head,
            build,
            _git: git,
        };
        w.webhook(
            "job.started",
            json!({"id": "job-1", "name": "test <unit>", "state": "running"}),
        )
        .await;
        w
    }

    fn id(&self) -> &str {
        self.build["id"].as_str().unwrap()
    }

    fn build_page(&self) -> String {
        format!("/ann/mono/ci/builds/{}", self.id())
    }

    /// Buildkite's webhook about the build's job.
    async fn webhook(&self, event: &str, job: Value) {
        let at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let body = json!({"event": event, "pipeline": {"slug": "pipe"},
            "build": {"id": self.id(), "number": self.build["number"], "state": "running",
                "commit": self.head, "branch": "topic", "meta_data": self.build["meta_data"]},
            "job": job});
        let bytes = serde_json::to_vec(&body).unwrap();
        let r = self
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

    async fn page(&self, cookie: Option<&str>, path: &str) -> (StatusCode, String) {
        let r = self.app.get_page(cookie, path).await;
        (r.status(), r.text().await.unwrap())
    }
}

#[tokio::test]
async fn builds_jobs_and_a_coloured_log_tail_for_members_only() {
    let w = World::new().await;
    // 1.5 MiB of log: colour, markup that must stay text, and a progress bar.
    let mut log = b"\x1b[1;31mred start\x1b[0m\n".to_vec();
    while log.len() < 1024 * 1024 * 3 / 2 {
        log.extend_from_slice(b"building a rather long line of the log \x1b[32mok\x1b[0m\n");
    }
    log.extend_from_slice(b"<script>alert(1)</script>\n10%\r55%\r100%\n\x1b[92mdone\x1b[0m\n");
    w.fake.set_log("job-1", &log);

    let (status, html) = w.page(Some(&w.cookie), "/ann/mono/ci").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let number = w.build["number"].as_i64().unwrap();
    assert!(html.contains(&format!("pipe #{number}")), "{html}");
    assert!(
        html.contains(&format!("href=\"{}\"", w.build_page())),
        "{html}"
    );
    assert!(
        html.contains(&format!("/ann/mono/-/app/commit/{}", w.head)),
        "{html}"
    );

    let (status, html) = w.page(Some(&w.cookie), &w.build_page()).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(
        html.contains("test &#60;unit&#62;"),
        "the job's name, escaped: {html}"
    );
    assert!(
        html.contains(&format!("{}/jobs/job-1", w.build_page())),
        "{html}"
    );
    assert!(
        html.contains("id=\"cancel\""),
        "a running build can be canceled: {html}"
    );

    let job = format!("{}/jobs/job-1", w.build_page());
    let (status, html) = w.page(Some(&w.cookie), &job).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.len() < 100 * 1024,
        "a page under 100 KB: {}",
        html.len()
    );
    assert!(
        html.contains("<span class=\"a-f2\">ok</span>"),
        "colour, not codes"
    );
    assert!(html.contains("<span class=\"a-f10\">done</span>"));
    assert!(!html.contains("\u{1b}"), "no raw escape reaches the page");
    assert!(html.contains("&#60;script&#62;alert(1)&#60;/script&#62;"));
    assert!(!html.contains("<script>alert"));
    assert!(
        html.contains("\n100%\n"),
        "a carriage return starts its line over"
    );
    assert!(!html.contains("red start"), "only the log's tail is shown");
    assert!(
        html.contains("The last part of a 1.5 MB log"),
        "{}",
        &html[..2000]
    );
    assert!(
        html.contains("data-live-log"),
        "the job runs: the page follows it"
    );

    // Outsiders get the 404 page, strangers the sign-in; a missing job the 404 page.
    w.app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob", "password": PASSWORD}))
        .await;
    let bob = w.app.sign_in("bob", PASSWORD).await;
    for path in ["/ann/mono/ci", &w.build_page(), &job] {
        let (status, html) = w.page(Some(&bob), path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(html.contains("There is nothing here you can see"), "{path}");
        assert!(
            !html.contains("pipe #"),
            "{path}: nothing of the build shows"
        );
        let r = w.app.get_page(None, path).await;
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "{path}");
        let to = r.headers()[header::LOCATION].to_str().unwrap();
        assert!(to.starts_with("/v1/login/browser?return_to="), "{to}");
    }
    let (status, _) = w
        .page(Some(&w.cookie), &format!("{}/jobs/nope", w.build_page()))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // A finished job's page no longer follows.
    w.webhook(
        "job.finished",
        json!({"id": "job-1", "name": "test <unit>", "state": "finished", "exit_status": 1}),
    )
    .await;
    let (_, html) = w.page(Some(&w.cookie), &job).await;
    assert!(!html.contains("data-live-log"));
    assert!(html.contains("exit 1"));
}

#[tokio::test]
async fn the_cancel_form_needs_the_service_s_origin_and_redirects_back() {
    let w = World::new().await;
    let cancel = format!("{}/cancel", w.build_page());
    let plain = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let post = |origin: Option<&str>| {
        let mut r = plain
            .post(w.app.url(&cancel))
            .header(header::COOKIE, &w.cookie);
        if let Some(o) = origin {
            r = r.header(header::ORIGIN, o);
        }
        r.send()
    };
    let cancels = || {
        w.fake
            .calls()
            .iter()
            .filter(|c| c.contains("cancel"))
            .count()
    };
    for origin in [None, Some("https://evil.example")] {
        let r = post(origin).await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{origin:?}");
        assert!(
            r.text()
                .await
                .unwrap()
                .contains("The build was not canceled")
        );
    }
    assert_eq!(cancels(), 0, "nothing reached the service");
    let r = post(Some(w.app.origin())).await.unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()[header::LOCATION], w.build_page());
    assert_eq!(cancels(), 1, "{:?}", w.fake.calls());
    // The API's token is no way in for a page's form: only the browser's session is.
    let r = plain
        .post(w.app.url(&cancel))
        .bearer_auth(&w.token)
        .header(header::ORIGIN, w.app.origin())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(cancels(), 1);
}

#[tokio::test]
async fn a_running_job_s_log_follows_live_in_the_browser_at_360_px() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let w = World::new().await;
    w.fake.set_log(
        "job-1",
        b"\x1b[33mstep 1\x1b[0m: compiling a crate with a long name\n",
    );
    browser.goto(&w.app.url("/login")).await;
    browser.fill("#login", "ann").await;
    browser.fill("#password", PASSWORD).await;
    browser.click("#f button").await;
    browser.wait_for_path("/").await;
    let job = format!("{}/jobs/job-1", w.build_page());
    browser.goto(&w.app.url(&job)).await;
    browser.wait_for_text("#log", "step 1").await;
    w.fake
        .set_log("job-1", b"step 1\n\x1b[32mstep 2\x1b[0m: tests pass\n");
    browser.wait_for_text("#log", "step 2: tests pass").await;
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    browser.screenshot(&shots, "ci-job").await;
    let overflow = crate::web_browser::overflow_at_360(&browser, Some("ci-job")).await;
    assert!(
        overflow.is_none(),
        "the job page scrolls sideways: {overflow:?}"
    );
    browser.goto(&w.app.url(&w.build_page())).await;
    browser.wait_for_text("#jobs", "test <unit>").await;
    browser.screenshot(&shots, "ci-build").await;
    let overflow = crate::web_browser::overflow_at_360(&browser, Some("ci-build")).await;
    assert!(
        overflow.is_none(),
        "the build page scrolls sideways: {overflow:?}"
    );
    // The build page and the builds list are live: the job's end (a webhook, whose
    // `ci.job` and `ci.build` events the pages follow) shows without a reload.
    w.webhook(
        "job.finished",
        json!({"id": "job-1", "name": "test <unit>", "state": "finished", "exit_status": 1}),
    )
    .await;
    browser.wait_for_text("#jobs", "exit 1").await;
    browser.goto(&w.app.url("/ann/mono/ci")).await;
    browser
        .wait_for_text("#builds", &format!("pipe #{}", w.build["number"]))
        .await;
    let r = w
        .app
        .as_user(
            Method::POST,
            &format!("{M}/ci/pipelines/pipe/builds"),
            &w.token,
        )
        .json(&json!({"branch": "topic"}))
        .send()
        .await
        .unwrap();
    let again: Value = expect_json(r, StatusCode::CREATED).await;
    assert_ne!(again["number"], w.build["number"]);
    browser
        .wait_for_text("#builds", &format!("pipe #{}", again["number"]))
        .await;
    browser.close().await;
}
