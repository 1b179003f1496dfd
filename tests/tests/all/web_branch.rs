//! The branch page, `/{owner}/{monorepo}/-/{repo}/branches/{branch}`: facts, checks, the
//! diff (capped, the rest streamed or raw), reviews, artifacts and the merge button with
//! the gate's reason; for members only.

use std::path::PathBuf;

use reqwest::multipart::{Form, Part};
use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::browser::Browser;
use svc_tests::git::Git;

const PASSWORD: &str = "correct horse";
const R: &str = "/v1/monorepos/ann/mono/repos/app";
const PAGE: &str = "/ann/mono/-/app/branches/feat%2Fx";
const API: &str = "/v1/monorepos/ann/mono/repos/app/branches/feat%2Fx";

/// ann (signing in with a password), `ann/mono` with repo `app`: main with `a.txt`, and
/// branch `feat/x` editing it and adding a file whose text holds a script tag.
struct World {
    app: TestApp,
    token: String,
    git: Git,
    work: PathBuf,
    head: String,
}

impl World {
    async fn new() -> World {
        let app = TestApp::start().await;
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
        let work = git.path("work");
        let lines: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        git.commit(&work, "base", &[("a.txt", lines.as_bytes())]);
        git.ok(&work, &["push", "-q", "origin", "HEAD:main"]);
        git.ok(&work, &["checkout", "-q", "-b", "feat/x"]);
        let edited = lines.replace("line 10\n", "line ten\n");
        let head = git.commit(
            &work,
            "work",
            &[
                ("a.txt", edited.as_bytes()),
                ("web/x.html", b"<script>alert('diff')</script>\n"),
            ],
        );
        git.ok(&work, &["push", "-q", "origin", "feat/x"]);
        World {
            app,
            token,
            git,
            work,
            head,
        }
    }

    async fn api(&self, method: Method, path: &str, body: Value) -> Value {
        let r = self
            .app
            .as_user(method, path, &self.token)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let v: Value = r.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "{path}: {status} {v}");
        v
    }

    async fn sign_in(&self, login: &str) -> String {
        self.app.sign_in(login, PASSWORD).await
    }

    async fn page(&self, cookie: Option<&str>, path: &str) -> (StatusCode, String) {
        let r = self.app.get_page(cookie, path).await;
        let status = r.status();
        (status, r.text().await.unwrap())
    }

    /// The facts computed now, so the page shows them.
    async fn fresh_facts(&self) -> Value {
        self.app
            .get_json(&self.token, &format!("{API}?fresh=1"))
            .await
    }
}

/// `text` as the templates escape it.
fn esc(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('\'', "&#39;")
        .replace('"', "&#34;")
}

fn count(html: &str, needle: &str) -> usize {
    html.matches(needle).count()
}

#[tokio::test]
async fn the_page_shows_facts_checks_diff_reviews_and_artifacts_as_text() {
    let w = World::new().await;
    w.api(
        Method::PATCH,
        API,
        json!({"title": "Make **it** <script>alert('t')</script>",
               "description": "Hello *world*\n\n<script>alert('d')</script>\n\n[x](javascript:alert(1))"}),
    )
    .await;
    let statuses = format!("{R}/statuses/{}", w.head);
    w.api(
        Method::POST,
        &statuses,
        json!({"context": "ci/test", "state": "failure", "target_url": "https://ci.example/1",
               "description": "2 tests <b>failed</b>"}),
    )
    .await;
    w.api(
        Method::POST,
        &statuses,
        json!({"context": "lint", "state": "success"}),
    )
    .await;
    w.api(
        Method::POST,
        &format!("{API}/reviews"),
        json!({"state": "request_changes", "body": "Please **fix** <script>alert('r')</script>"}),
    )
    .await;
    let r = w
        .app
        .as_user(Method::POST, &format!("{API}/artifacts"), &w.token)
        .multipart(Form::new().part(
            "file",
            Part::bytes(b"# Notes\n".to_vec()).file_name("notes.md"),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    w.fresh_facts().await;

    let cookie = w.sign_in("ann").await;
    let (status, html) = w.page(Some(&cookie), PAGE).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.len() < 100 * 1024, "{} bytes", html.len());

    // No script of anyone's: the layout's own is the only one.
    assert_eq!(count(&html, "<script"), 1, "{html}");
    assert!(!html.contains("javascript:"), "{html}");
    // The title and description as Markdown; the branch's facts.
    assert!(html.contains("<h1>Make <strong>it</strong>"), "{html}");
    assert!(html.contains("<em>world</em>"), "{html}");
    assert!(html.contains("<code>app:feat/x</code>"), "{html}");
    assert!(html.contains("1 ahead"), "{html}");
    assert!(html.contains("0 behind"), "{html}");
    assert!(html.contains("Merges cleanly into main."), "{html}");
    assert!(html.contains(&w.head[..10]), "{html}");
    assert!(
        html.contains(r#"data-monorepo="ann/mono""#),
        "the live socket's monorepo"
    );

    // Checks: each with its state and its link (a script link is none).
    assert!(
        html.contains(
            r#"<a href="https://ci.example/1" rel="noopener noreferrer nofollow">ci/test</a>"#
        ),
        "{html}"
    );
    assert!(
        html.contains(r#"<span class="badge failure">failure</span>"#),
        "{html}"
    );
    assert!(html.contains(&esc("2 tests <b>failed</b>")), "{html}");
    assert!(html.contains("<th scope=\"row\">lint"), "{html}");
    // The gate's reason, before anyone presses the button.
    assert!(html.contains(r#"id="merge-gate""#), "{html}");
    assert!(
        html.contains("Merging would be refused now: the checks do not pass: ci/test is failure"),
        "{html}"
    );
    assert!(
        html.contains(r#"<button id="merge" type="submit""#),
        "{html}"
    );
    assert!(
        html.contains(&format!(r#"data-path="{API}/merge""#)),
        "{html}"
    );
    assert!(html.contains(r#"id="merge-force""#), "{html}");

    // The diff: files, hunks with old and new line numbers, the file's text as text.
    assert!(html.contains(r#"<section id="diff""#), "{html}");
    assert!(
        html.contains(&format!(
            r#"data-stream="{API}/diff?patches=1&amp;stream=1""#
        )),
        "{html}"
    );
    assert!(
        html.contains(r#"data-complete="1""#),
        "a small diff is all on the page"
    );
    assert!(
        html.contains(r##"<li data-path="a.txt"><a href="#f-1">a.txt</a>"##),
        "{html}"
    );
    assert!(
        html.contains(
            r#"<tr class="del"><td class="n">10</td><td class="n"></td><td>-line 10</td></tr>"#
        ),
        "{html}"
    );
    assert!(
        html.contains(
            r#"<tr class="add"><td class="n"></td><td class="n">10</td><td>+line ten</td></tr>"#
        ),
        "{html}"
    );
    assert!(
        html.contains(
            r#"<tr class="ctx"><td class="n">9</td><td class="n">9</td><td> line 9</td></tr>"#
        ),
        "{html}"
    );
    assert!(
        html.contains(&esc("+<script>alert('diff')</script>")),
        "{html}"
    );
    assert!(
        html.contains(&format!(
            r#"href="/ann/mono/-/app/blob/{}/web/x.html">view</a>"#,
            w.head
        )),
        "{html}"
    );
    assert!(html.contains("raw diff"), "{html}");

    // Reviews and the form to post one.
    assert!(html.contains("changes requested"), "{html}");
    assert!(html.contains("Please <strong>fix</strong>"), "{html}");
    assert!(html.contains(r#"<form id="review-form""#), "{html}");
    assert!(
        html.contains(&format!(r#"data-path="{API}/reviews""#)),
        "{html}"
    );
    assert!(html.contains(r#"value="request_changes""#), "{html}");

    // Artifacts link to their pages.
    assert!(
        html.contains(
            r#"<a href="/ann/mono/-/app/branches/feat%2Fx/artifacts/notes.md">notes.md</a>"#
        ),
        "{html}"
    );

    // What the page's links and script read answers the cookie.
    let raw = html
        .split(r#"<a href=""#)
        .find(|s| s.contains("format=patch"))
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .replace("&amp;", "&");
    let r = w
        .app
        .request(Method::GET, &raw)
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.text().await.unwrap().contains("+line ten"));
    let r = w
        .app
        .request(Method::GET, &format!("{API}/diff?patches=1&stream=1"))
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let lines = r.text().await.unwrap();
    assert_eq!(
        lines
            .lines()
            .filter(|l| l.contains(r#""type":"file""#))
            .count(),
        2
    );
}

#[tokio::test]
async fn outsiders_see_the_404_page_and_visitors_sign_in_first() {
    let w = World::new().await;
    let r = w.app.request(Method::GET, PAGE).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        r.headers()[header::LOCATION],
        "/v1/login/browser?return_to=%2Fann%2Fmono%2F-%2Fapp%2Fbranches%2Ffeat%252Fx"
    );

    w.app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob", "password": PASSWORD}))
        .await;
    let bob = w.sign_in("bob").await;
    let (status, html) = w.page(Some(&bob), PAGE).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("There is nothing here you can see"), "{html}");
    assert!(!html.contains("feat/x"), "{html}");

    let ann = w.sign_in("ann").await;
    for missing in [
        "/ann/mono/-/app/branches/nope",
        "/ann/mono/-/nope/branches/feat%2Fx",
    ] {
        let (status, html) = w.page(Some(&ann), missing).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
        assert!(html.contains("There is nothing here you can see"), "{html}");
    }
    // Main is no branch under review: its links go to its tree.
    let r = w
        .app
        .request(Method::GET, "/ann/mono/-/app/branches/main")
        .header(header::COOKIE, &ann)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()[header::LOCATION], "/ann/mono/-/app/tree/main");
}

#[tokio::test]
async fn a_long_diff_stays_under_100_kb_and_leaves_the_rest_to_the_stream() {
    let w = World::new().await;
    let body: String = (1..=120)
        .map(|i| format!("generated line {i} <&>\n"))
        .collect();
    let files: Vec<(String, String)> = (0..400)
        .map(|i| (format!("gen/dir{:02}/file{i:03}.txt", i % 17), body.clone()))
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_bytes()))
        .collect();
    w.git.commit(&w.work, "many", &refs);
    w.git.ok(&w.work, &["push", "-q", "origin", "feat/x"]);

    let cookie = w.sign_in("ann").await;
    let (status, html) = w.page(Some(&cookie), PAGE).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.len() < 100 * 1024, "{} bytes", html.len());
    assert!(html.contains("402 files changed"), "{html}");
    assert!(html.contains(r#"data-complete="0""#), "{html}");
    assert!(html.contains(r#"id="diff-rest""#), "{html}");
    assert!(html.contains("are not listed"), "{html}");
    // Something of the diff is on the page, escaped.
    assert!(html.contains(&esc("+generated line 1 <&>")), "{html}");
    // The part the page leaves out is marked for the script.
    assert!(
        html.contains(r#"class="diff-file pending""#) || html.contains("<span>gen/"),
        "{html}"
    );
}

#[tokio::test]
async fn merging_from_the_page_moves_main_and_the_page_says_so() {
    let w = World::new().await;
    let cookie = w.sign_in("ann").await;
    w.fresh_facts().await;
    let (_, html) = w.page(Some(&cookie), PAGE).await;
    assert!(
        html.contains("The checks pass and it merges cleanly: ready to merge."),
        "{html}"
    );
    assert!(!html.contains(r#"id="merge-force""#), "{html}");

    // What the button sends: the session cookie and this service's Origin.
    let r = w
        .app
        .request(Method::POST, &format!("{API}/merge"))
        .header(header::COOKIE, &cookie)
        .header(header::ORIGIN, w.app.origin())
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let merged: Value = r.json().await.unwrap();
    let sha = merged["sha"].as_str().unwrap();

    let (status, html) = w.page(Some(&cookie), PAGE).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains(r#"<p id="merged""#), "{html}");
    assert!(
        html.contains("Merged into <a href=\"/ann/mono/-/app/tree/main\">main</a> by ann"),
        "{html}"
    );
    assert!(
        html.contains(&format!(
            "main moved: it is now at <a href=\"/ann/mono/-/app/tree/main\"><code title=\"{sha}\">"
        )),
        "{html}"
    );
    assert!(!html.contains(r#"id="merge""#), "no button once merged");
    assert!(
        html.contains(r#"<span class="badge merged">merged</span>"#),
        "{html}"
    );
}

/// Where screenshots go for people to review.
fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
}

async fn js(browser: &Browser, script: &str) -> Value {
    browser.client.execute(script, vec![]).await.unwrap()
}

#[tokio::test]
async fn in_a_browser_the_diff_streams_in_the_page_follows_its_branch_and_merges() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let w = World::new().await;
    let body: String = (1..=100).map(|i| format!("generated line {i}\n")).collect();
    let files: Vec<(String, String)> = (0..300)
        .map(|i| (format!("gen/file{i:03}.txt"), body.clone()))
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_bytes()))
        .collect();
    let head = w.git.commit(&w.work, "many", &refs);
    w.git.ok(&w.work, &["push", "-q", "origin", "feat/x"]);
    let statuses = format!("{R}/statuses/{head}");
    w.api(
        Method::POST,
        &statuses,
        json!({"context": "ci/test", "state": "failure"}),
    )
    .await;

    browser.goto(&w.app.url(PAGE)).await;
    browser.wait_for_path("/login").await;
    browser.fill("#login", "ann").await;
    browser.fill("#password", PASSWORD).await;
    browser.click("#f button").await;
    browser.wait_for_path(PAGE).await;

    // The rest of the diff streams in: every file gets its section, none left pending.
    browser
        .wait_for_text("#diff-rest", "The whole diff is shown")
        .await;
    let n = js(
        &browser,
        "return document.querySelectorAll('#diff .diff-file').length;",
    )
    .await;
    assert_eq!(n, json!(302));
    let pending = js(
        &browser,
        "return document.querySelectorAll('#diff .diff-file.pending').length;",
    )
    .await;
    assert_eq!(pending, json!(0));
    let listed = js(
        &browser,
        "return document.querySelectorAll('#diff-files li a').length;",
    )
    .await;
    assert_eq!(listed, json!(302));
    // Past the rows drawn at once, a file waits for a click.
    let waiting = js(
        &browser,
        "return document.querySelectorAll('#diff .diff-load').length;",
    )
    .await;
    assert!(waiting.as_u64().unwrap() > 0, "{waiting}");
    browser.click("#diff .diff-load").await;
    js(&browser, "window.scrollTo(0, 0); return null;").await;
    browser.screenshot(&screenshots(), "branch").await;

    // The merge is refused, with the gate's reason.
    browser.click("#merge").await;
    browser
        .wait_for_text("#merge-form", "ci/test is failure")
        .await;

    // Events of the branch refresh the page in place: a green check, then a push.
    js(
        &browser,
        "document.body.dataset.stayed = 'yes'; return null;",
    )
    .await;
    w.api(
        Method::POST,
        &statuses,
        json!({"context": "ci/test", "state": "success"}),
    )
    .await;
    browser.wait_for_text("#merge-gate", "ready to merge").await;
    let newer = w
        .git
        .commit(&w.work, "more", &[("a.txt", b"changed again\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "feat/x"]);
    browser.wait_for_text("#facts", &newer[..10]).await;
    let stayed = js(&browser, "return document.body.dataset.stayed || null;").await;
    assert_eq!(stayed, json!("yes"), "the page was reloaded");

    // A review from the form.
    browser.fill("#review-body", "Looks **good**").await;
    browser.click("#review-form input[value=\"approve\"]").await;
    browser.click("#review-submit").await;
    browser.wait_for_text("#reviews", "approved").await;
    browser.wait_for_text("#reviews", "Looks good").await;

    // The merge goes; the page says main moved.
    browser.click("#merge").await;
    browser.wait_for_text("#merged", "main moved").await;
    browser.client.set_window_size(360, 800).await.unwrap();
    js(&browser, "window.scrollTo(0, 0); return null;").await;
    browser
        .screenshot(&screenshots(), "branch-merged-narrow")
        .await;
    browser.close().await;
}

/// A merged branch's page keeps the diff its merge brought into main (not "no changes"),
/// with its files' links at the merge commit; a branch main has already is not "ready to
/// merge" but says there is nothing to merge.
#[tokio::test]
async fn a_merged_branch_keeps_its_diff_and_nothing_to_merge_is_not_ready() {
    let w = World::new().await;
    let cookie = w.sign_in("ann").await;
    let merged = w
        .api(Method::POST, &format!("{API}/merge"), json!({}))
        .await;
    let sha = merged["sha"].as_str().unwrap();

    let (status, html) = w.page(Some(&cookie), PAGE).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains(r#"<p id="merged""#), "{html}");
    for path in ["a.txt", "web/x.html"] {
        assert!(
            html.contains(&format!(r#"<li data-path="{path}">"#)),
            "{path} in {html}"
        );
    }
    assert!(html.contains("line ten"), "{html}");
    assert!(!html.contains("No changes against main"), "{html}");
    assert!(
        html.contains(&format!("/ann/mono/-/app/blob/{sha}/a.txt")),
        "{html}"
    );

    // A branch at main's head: nothing to merge.
    w.git.ok(&w.work, &["fetch", "-q", "origin"]);
    w.git.ok(
        &w.work,
        &["push", "-q", "origin", "origin/main:refs/heads/same"],
    );
    let b = w
        .app
        .get_json(&w.token, &format!("{R}/branches/same?fresh=1"))
        .await;
    assert_eq!(
        (b["stale"].as_bool(), b["ahead"].as_u64()),
        (Some(false), Some(0))
    );
    let (status, html) = w.page(Some(&cookie), "/ann/mono/-/app/branches/same").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(
        html.contains("Merging would be refused now: main has every commit of it already, so there is nothing to merge."),
        "{html}"
    );
    assert!(!html.contains("ready to merge"), "{html}");
}
