//! Writes from pages without JavaScript (a form POST to the page's own route, the
//! `Origin` rule, a 303 back, a flash when refused), the monorepo's pages beside repos
//! of any name (`/issues` and a repo named `issues`), and a write flow in a Chromium with
//! JavaScript off.

use std::path::PathBuf;

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::browser::Browser;
use svc_tests::git::Git;

pub(crate) const PASSWORD: &str = "correct horse";
const M: &str = "/v1/monorepos/ann/mono";

/// ann (password sign-in) owns `ann/mono` with repo `app`, cloned into `work`, main
/// pushed; bob exists outside it.
pub(crate) struct World {
    pub app: TestApp,
    pub token: String,
    pub git: Git,
    pub work: PathBuf,
}

impl World {
    pub async fn new() -> World {
        World::with_app(TestApp::start().await).await
    }

    /// The same on a server started as the caller chose.
    pub async fn with_app(app: TestApp) -> World {
        let token = app
            .bootstrap(json!({"email": "ann@example.com", "login": "ann", "password": PASSWORD}))
            .await
            .credential
            .token;
        app.bootstrap(json!({"email": "bob@example.com", "login": "bob", "password": PASSWORD}))
            .await;
        app.monorepo(&token, json!({"name": "mono"})).await;
        let url = app.repo(&token, "ann/mono", "app").await["clone_url"]
            .as_str()
            .unwrap()
            .to_owned();
        let git = Git::new(&token);
        git.ok(git.home.path(), &["clone", "-q", &url, "work"]);
        let work = git.path("work");
        git.commit(&work, "First", &[("README.md", b"hello\n")]);
        git.ok(&work, &["push", "-q", "origin", "HEAD:main"]);
        World {
            app,
            token,
            git,
            work,
        }
    }

    /// The meta layer's config requires check `ci` of `app`: merges wait for it, so an
    /// armed auto-merge stays armed.
    pub fn require_ci(&self) {
        let url = self.app.url("/ann/mono/meta.git");
        self.git
            .ok(self.git.home.path(), &["clone", "-q", &url, "meta"]);
        let meta = self.git.path("meta");
        self.git.commit(
            &meta,
            "config",
            &[(
                ".svc/svc.toml",
                b"[repos.\"app\"]\nrequired_checks = [\"ci\"]\n",
            )],
        );
        self.git.ok(&meta, &["push", "-q", "origin", "main"]);
    }

    /// An API call as ann; answers the JSON, checking the status is a success.
    pub async fn api(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let mut r = self.app.as_user(method, &format!("{M}{path}"), &self.token);
        if let Some(b) = body {
            r = r.json(&b);
        }
        let r = r.send().await.unwrap();
        let status = r.status();
        let text = r.text().await.unwrap();
        assert!(status.is_success(), "{path}: {status} {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    pub async fn page(&self, cookie: &str, path: &str) -> (StatusCode, String) {
        let r = self.app.get_page(Some(cookie), path).await;
        let status = r.status();
        let html = r.text().await.unwrap();
        assert!(html.len() < 100 * 1024, "{path}: {} bytes", html.len());
        (status, html)
    }
}

pub(crate) fn location(r: &reqwest::Response) -> String {
    r.headers()[header::LOCATION].to_str().unwrap().to_owned()
}

/// The flash cookie a refused form's answer sets, as `name=value`.
pub(crate) fn flash_of(r: &reqwest::Response) -> String {
    let set = r
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|v| v.starts_with("svc_flash="))
        .expect("a flash");
    set.split(';').next().unwrap().to_owned()
}

#[tokio::test]
async fn a_repo_named_like_a_monorepo_page_has_its_pages_and_the_pages_theirs() {
    let w = World::new().await;
    let url = w.app.repo(&w.token, "ann/mono", "issues").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    // Pushed through its clone address, cloned again without `.git` (the door's other
    // address, beside the issue pages' `/issues/{number}`).
    w.git
        .ok(w.git.home.path(), &["clone", "-q", &url, "tracker"]);
    let tracker = w.git.path("tracker");
    w.git
        .commit(&tracker, "Tracker", &[("TRACKER.md", b"the tracker\n")]);
    w.git.ok(&tracker, &["push", "-q", "origin", "HEAD:main"]);
    let bare = url.strip_suffix(".git").unwrap();
    w.git.ok(w.git.home.path(), &["clone", "-q", bare, "again"]);
    assert!(w.git.path("again").join("TRACKER.md").exists());
    w.api(
        Method::POST,
        "/issues",
        Some(json!({"title": "An issue of the monorepo"})),
    )
    .await;
    let cookie = w.app.sign_in("ann", PASSWORD).await;

    // The repo's tree at /-/issues, the issues at /issues.
    let (status, html) = w.page(&cookie, "/ann/mono/-/issues").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("TRACKER.md"), "{html}");
    let (status, html) = w.page(&cookie, "/ann/mono/issues").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("An issue of the monorepo"), "{html}");
    let (status, html) = w.page(&cookie, "/ann/mono/issues/1").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("An issue of the monorepo"), "{html}");
    // The monorepo page links to both.
    let (_, html) = w.page(&cookie, "/ann/mono").await;
    assert!(html.contains(r#"href="/ann/mono/issues""#), "{html}");
    assert!(html.contains(r#"href="/ann/mono/-/issues""#), "{html}");

    // The old addresses of the pages go to the new ones (their query kept) where no repo
    // has the name; an issue's and a session's always (no repo page has that shape).
    for (old, new) in [
        ("/ann/mono/-/agents?repo=app", "/ann/mono/agents?repo=app"),
        ("/ann/mono/-/chats", "/ann/mono/chats"),
        ("/ann/mono/-/ci", "/ann/mono/ci"),
        ("/ann/mono/-/settings", "/ann/mono/settings"),
        ("/ann/mono/-/issues/1", "/ann/mono/issues/1"),
        ("/ann/mono/-/agents/abc", "/ann/mono/agents/abc"),
    ] {
        let r = w.app.get_page(Some(&cookie), old).await;
        assert_eq!(r.status(), StatusCode::PERMANENT_REDIRECT, "{old}");
        assert_eq!(location(&r), new, "{old}");
    }
    // A repo that is missing and no page's word is simply not here.
    let (status, _) = w.page(&cookie, "/ann/mono/-/nothing").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = w.page(&cookie, "/ann/mono/-/app/5").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Where no repo has the name, /-/issues is the issues' old address.
    w.app.monorepo(&w.token, json!({"name": "other"})).await;
    let r = w
        .app
        .get_page(Some(&cookie), "/ann/other/-/issues?state=closed")
        .await;
    assert_eq!(r.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(location(&r), "/ann/other/issues?state=closed");
}

#[tokio::test]
async fn the_issue_forms_post_to_the_page_check_the_origin_and_go_back() {
    let w = World::new().await;
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let page = "/ann/mono/issues/1";
    let origin = w.app.origin().to_owned();

    // A new issue from the list's form: on to its page.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            "/ann/mono/issues",
            &[("title", "Forms"), ("body", "")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), page);
    let r = w
        .app
        .post_form(&cookie, &origin, "/ann/mono/issues", &[("title", " ")])
        .await;
    assert_eq!(location(&r), "/ann/mono/issues");
    flash_of(&r);

    // A comment from the page: 303 back, and it is on the page.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/comments"),
            &[("body", "Written *without* <script>x()</script> scripts")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), page);
    let (_, html) = w.page(&cookie, page).await;
    assert!(html.contains("<em>without</em>"), "{html}");
    assert!(!html.contains("<script>x()"), "{html}");

    // From a foreign page: refused, back with the reason in a flash for that page, which
    // the page shows once (as text) and clears.
    let r = w
        .app
        .post_form(
            &cookie,
            "https://evil.example",
            &format!("{page}/comments"),
            &[("body", "forged")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), page);
    let flash = flash_of(&r);
    let shown = w
        .app
        .get_page(Some(&format!("{cookie}; {flash}")), page)
        .await;
    let cleared = shown
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .any(|v| v.to_str().unwrap().starts_with("svc_flash=;"));
    assert!(cleared, "the page clears the flash");
    let html = shown.text().await.unwrap();
    assert!(
        html.contains(r#"id="flash">this request must come from a page of this service"#),
        "{html}"
    );
    assert!(!html.contains("forged"), "{html}");
    let issue = w.api(Method::GET, "/issues/1", None).await;
    assert_eq!(issue["comments"], 1, "{issue}");

    // The API's refusal travels the same way (a blank comment).
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/comments"),
            &[("body", " ")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert!(flash_of(&r).len() > "svc_flash=".len());

    // Close with a reason, then reopen.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/state"),
            &[("state", "closed"), ("state_reason", "not_planned")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let issue = w.api(Method::GET, "/issues/1", None).await;
    assert_eq!(
        (issue["state"].as_str(), issue["state_reason"].as_str()),
        (Some("closed"), Some("not_planned")),
        "{issue}"
    );
    w.app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/state"),
            &[("state", "open")],
        )
        .await;
    let issue = w.api(Method::GET, "/issues/1", None).await;
    assert_eq!(issue["state"], "open", "{issue}");

    // An outsider gets the 404 page and writes nothing.
    let bob = w.app.sign_in("bob", PASSWORD).await;
    let r = w
        .app
        .post_form(
            &bob,
            &origin,
            &format!("{page}/comments"),
            &[("body", "hi")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let issue = w.api(Method::GET, "/issues/1", None).await;
    assert_eq!(issue["comments"], 1, "{issue}");
}

#[tokio::test]
async fn the_branch_forms_merge_arm_and_review_from_the_page() {
    let w = World::new().await;
    for name in ["feat/a", "feat/b"] {
        w.git
            .ok(&w.work, &["checkout", "-q", "-B", name, "origin/main"]);
        w.git
            .commit(&w.work, name, &[(&format!("{}.txt", &name[5..]), b"x\n")]);
        w.git.ok(&w.work, &["push", "-q", "origin", name]);
    }
    w.require_ci();
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let origin = w.app.origin().to_owned();
    let page = "/ann/mono/-/app/branches/feat%2Fa";
    let (_, html) = w.page(&cookie, page).await;
    assert!(
        html.contains(&format!(r#"action="{page}/reviews""#)),
        "{html}"
    );

    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/reviews"),
            &[("state", "comment"), ("body", "Looks *fine*")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), page);
    let (_, html) = w.page(&cookie, page).await;
    assert!(html.contains("<em>fine</em>"), "{html}");

    // Arming and cancelling auto-merge on the other branch.
    let other = "/ann/mono/-/app/branches/feat%2Fb";
    let r = w
        .app
        .post_form(&cookie, &origin, &format!("{other}/auto-merge"), &[])
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let (_, html) = w.page(&cookie, other).await;
    assert!(html.contains(r#"id="auto-merge-off-form""#), "{html}");
    w.app
        .post_form(&cookie, &origin, &format!("{other}/auto-merge/cancel"), &[])
        .await;
    let b = w
        .api(Method::GET, "/repos/app/branches/feat%2Fb", None)
        .await;
    assert!(b["auto_merge"].is_null(), "{b}");

    // The merge waits for ci: refused, back with the reason; then past the checks.
    let r = w
        .app
        .post_form(&cookie, &origin, &format!("{page}/merge"), &[])
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), page);
    let flash = flash_of(&r);
    let html = w
        .app
        .get_page(Some(&format!("{cookie}; {flash}")), page)
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains(r#"id="flash">"#), "{html}");
    assert!(html.contains("ci"), "{html}");
    let r = w
        .app
        .post_form(&cookie, &origin, &format!("{page}/merge?force=1"), &[])
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let b = w
        .api(Method::GET, "/repos/app/branches/feat%2Fa", None)
        .await;
    assert_eq!(b["state"], "merged", "{b}");
}

#[tokio::test]
async fn with_javascript_off_a_person_comments_on_and_closes_an_issue() {
    let Some(browser) = Browser::launch_without_scripts().await else {
        return;
    };
    let w = World::new().await;
    w.api(
        Method::POST,
        "/issues",
        Some(json!({"title": "Works without scripts"})),
    )
    .await;
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    browser.use_session(w.app.origin(), &cookie).await;
    browser.goto(&w.app.url("/ann/mono/issues/1")).await;
    browser
        .wait_for_text(".issue-title", "Works without scripts")
        .await;
    // The script did not run: it would have titled the times.
    let time = browser.find("time[datetime]").await;
    assert_eq!(time.attr("title").await.unwrap(), None);

    browser
        .fill("#comment-body", "Sent by a **plain** form.")
        .await;
    browser.click("#comment-submit").await;
    browser
        .wait_for_text("#timeline", "Sent by a plain form.")
        .await;
    browser.wait_for_path("/ann/mono/issues/1").await;
    browser.click("#close-issue").await;
    browser.wait_for_text("#issue-state", "closed").await;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    browser.screenshot(&dir, "issue-without-javascript").await;
    let issue = w.api(Method::GET, "/issues/1", None).await;
    assert_eq!(
        (issue["state"].as_str(), issue["comments"].as_i64()),
        (Some("closed"), Some(1)),
        "{issue}"
    );
    browser.close().await;
}

#[tokio::test]
async fn the_issue_page_edits_its_text_labels_assignees_and_comments_without_scripts() {
    let w = World::new().await;
    w.api(Method::PUT, "/members/bob", Some(json!({"role": "member"})))
        .await;
    w.api(
        Method::POST,
        "/issues",
        Some(json!({"title": "Old title", "body": "Old body", "labels": ["bug"]})),
    )
    .await;
    let id = w
        .api(
            Method::POST,
            "/issues/1/comments",
            Some(json!({"body": "ann's <b>own</b> words"})),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let origin = w.app.origin().to_owned();
    let page = "/ann/mono/issues/1";

    // The page holds the forms, the texts escaped in them.
    let (_, html) = w.page(&cookie, page).await;
    assert!(
        html.contains(r#"<input id="edit-title" name="title" value="Old title""#),
        "{html}"
    );
    assert!(
        html.contains("ann&#39;s &#60;b&#62;own&#60;/b&#62; words</textarea>"),
        "{html}"
    );
    assert!(html.contains(r#"value="bug""#), "{html}");

    let issue = w.api(Method::GET, "/issues/1", None).await;
    let version = issue["body_version"].to_string();
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/edit"),
            &[
                ("title", "New title"),
                ("body", "New *body*"),
                ("base_version", &version),
            ],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), page);
    // The same form again, on the version it showed: the description moved since.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/edit"),
            &[
                ("title", "New title"),
                ("body", "Another body"),
                ("base_version", &version),
            ],
        )
        .await;
    flash_of(&r);
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/labels"),
            &[
                ("labels", "documentation, question"),
                ("assignees", "bob"),
                ("links", "App:feature, app:fix/one"),
            ],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert!(!format!("{:?}", r.headers()).contains("svc_flash"), "{r:?}");
    let (_, html) = w.page(&cookie, page).await;
    assert!(
        html.contains(r#"name="links" value="app:feature, app:fix/one""#),
        "{html}"
    );
    // The form as shown, one link left out: that one is unlinked, nothing else moves.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/labels"),
            &[
                ("labels", "documentation, question"),
                ("assignees", "bob"),
                ("links", "app:feature"),
            ],
        )
        .await;
    assert!(!format!("{:?}", r.headers()).contains("svc_flash"), "{r:?}");
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/labels"),
            &[("labels", ""), ("assignees", ""), ("links", "feature")],
        )
        .await;
    let (_, html) = w.page(&format!("{cookie}; {}", flash_of(&r)), page).await;
    assert!(html.contains("repo:branch"), "the reason shown: {html}");
    let issue = w.api(Method::GET, "/issues/1", None).await;
    assert_eq!(issue["title"], "New title", "{issue}");
    assert_eq!(issue["body"], "New *body*", "{issue}");
    assert_eq!(
        issue["labels"],
        json!(["documentation", "question"]),
        "{issue}"
    );
    assert_eq!(issue["assignees"], json!(["bob"]), "{issue}");
    assert_eq!(
        issue["links"],
        json!([{"repo": "app", "branch": "feature"}]),
        "{issue}"
    );

    // The comment: edited by its author, then deleted.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/comments/{id}/edit"),
            &[("body", "Better words")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let (_, html) = w.page(&cookie, page).await;
    assert!(html.contains("Better words"), "{html}");
    // bob, a member, may neither edit nor delete ann's comment: no forms, and refused.
    let bob = w.app.sign_in("bob", PASSWORD).await;
    let (_, html) = w.page(&bob, page).await;
    assert!(!html.contains(&format!("/comments/{id}/delete")), "{html}");
    let r = w
        .app
        .post_form(&bob, &origin, &format!("{page}/comments/{id}/delete"), &[])
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    flash_of(&r);
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/comments/{id}/delete"),
            &[],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let (_, html) = w.page(&cookie, page).await;
    assert!(!html.contains("Better words"), "{html}");
}

/// Reactions without JavaScript: a reactions group is a form; "React" gives the one
/// picked, a reaction's button gives it or (when it is one's own) takes it back; a
/// content the API does not know comes back as the reason.
#[tokio::test]
async fn reactions_are_given_and_taken_back_from_the_page_without_scripts() {
    let w = World::new().await;
    w.api(Method::POST, "/issues", Some(json!({"title": "React"})))
        .await;
    let id = w
        .api(
            Method::POST,
            "/issues/1/comments",
            Some(json!({"body": "hi"})),
        )
        .await["id"]
        .as_i64()
        .unwrap();
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let origin = w.app.origin().to_owned();
    let page = "/ann/mono/issues/1";
    let (_, html) = w.page(&cookie, page).await;
    assert!(
        html.contains(&format!(r#"<form method="post" action="{page}/reactions""#)),
        "{html}"
    );
    assert!(
        html.contains(&format!(
            r#"<form method="post" action="{page}/comments/{id}/reactions""#
        )),
        "{html}"
    );
    let post = |path: String, fields: Vec<(&'static str, &'static str)>| {
        let (cookie, origin) = (cookie.clone(), origin.clone());
        let app = &w.app;
        async move {
            let r = app.post_form(&cookie, &origin, &path, &fields).await;
            assert_eq!(r.status(), StatusCode::SEE_OTHER);
            assert_eq!(location(&r), page);
            r
        }
    };
    let r = post(
        format!("{page}/reactions"),
        vec![("pick", "heart"), ("give_picked", "1")],
    )
    .await;
    assert!(!format!("{:?}", r.headers()).contains("svc_flash"), "{r:?}");
    post(
        format!("{page}/comments/{id}/reactions"),
        vec![("pick", "rocket"), ("give_picked", "1")],
    )
    .await;
    let issue = w.api(Method::GET, "/issues/1", None).await;
    assert_eq!(issue["reactions"][0]["content"], "heart", "{issue}");
    assert_eq!(issue["reactions"][0]["count"], 1, "{issue}");
    let comment = w
        .api(Method::GET, &format!("/issues/1/comments/{id}"), None)
        .await;
    assert_eq!(comment["reactions"][0]["content"], "rocket", "{comment}");
    // The page shows them as one's own: their buttons take them back.
    let (_, html) = w.page(&cookie, page).await;
    assert!(html.contains(r#"name="take" value="heart""#), "{html}");
    assert!(html.contains(r#"name="take" value="rocket""#), "{html}");
    post(
        format!("{page}/reactions"),
        vec![("take", "heart"), ("pick", "+1")],
    )
    .await;
    post(
        format!("{page}/comments/{id}/reactions"),
        vec![("take", "rocket"), ("pick", "+1")],
    )
    .await;
    let issue = w.api(Method::GET, "/issues/1", None).await;
    assert_eq!(issue["reactions"], json!([]), "{issue}");
    let comment = w
        .api(Method::GET, &format!("/issues/1/comments/{id}"), None)
        .await;
    assert_eq!(comment["reactions"], json!([]), "{comment}");
    let r = post(
        format!("{page}/reactions"),
        vec![("pick", "thumbs"), ("give_picked", "1")],
    )
    .await;
    assert!(flash_of(&r).contains("rocket"), "the reason: {r:?}");
}

#[tokio::test]
async fn the_artifact_threads_start_reply_and_resolve_without_scripts() {
    let w = World::new().await;
    w.git
        .ok(&w.work, &["checkout", "-q", "-B", "plan", "origin/main"]);
    w.git.commit(&w.work, "plan", &[("plan.txt", b"p\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "plan"]);
    let doc = b"# Plan\n\nShip the cache on Monday.\n";
    let r = w
        .app
        .as_user(
            Method::POST,
            &format!("{M}/repos/app/branches/plan/artifacts"),
            &w.token,
        )
        .multipart(reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(doc.to_vec()).file_name("plan.md"),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let origin = w.app.origin().to_owned();
    let page = "/ann/mono/-/app/branches/plan/artifacts/plan.md";
    let (_, html) = w.page(&cookie, page).await;
    assert!(
        html.contains(&format!(r#"method="post" action="{page}/threads""#)),
        "{html}"
    );

    // A thread on a quoted passage, then a reply in it: back to the threads each time.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/threads"),
            &[
                ("quote", "on Monday"),
                ("body", "Why *Monday*?"),
                ("version", "1"),
            ],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), format!("{page}#threads"));
    let threads = w
        .api(
            Method::GET,
            "/repos/app/branches/plan/artifacts/plan.md/threads",
            None,
        )
        .await;
    let root = threads["items"][0]["root"].clone();
    assert_eq!(root["anchor"]["exact"], "on Monday", "{threads}");
    let id = root["id"].as_str().unwrap().to_owned();
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/threads"),
            &[("in_reply_to", id.as_str()), ("body", "The release train.")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    // An empty comment is refused, with the API's reason shown once on the page.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/threads"),
            &[("body", "")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let flash = flash_of(&r);
    let (_, html) = w.page(&format!("{cookie}; {flash}"), page).await;
    assert!(html.contains(r#"id="flash""#), "{html}");

    // Resolved from the page.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/threads/{id}/state"),
            &[("state", "resolved")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let threads = w
        .api(
            Method::GET,
            "/repos/app/branches/plan/artifacts/plan.md/threads",
            None,
        )
        .await;
    assert_eq!(
        threads["items"][0]["root"]["state"], "resolved",
        "{threads}"
    );
    assert_eq!(
        threads["items"][0]["replies"][0]["body"],
        "The release train."
    );
    let (_, html) = w.page(&cookie, page).await;
    assert!(
        html.contains("<em>Monday</em>") && html.contains("Reopen"),
        "{html}"
    );

    // Bob, no member, gets the 404 page and writes nothing.
    let bob = w.app.sign_in("bob", PASSWORD).await;
    let r = w
        .app
        .post_form(
            &bob,
            &origin,
            &format!("{page}/threads"),
            &[("body", "sneaky")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}
