//! The web home, `/`: the activity log, the needs-you list and the monorepos, for the
//! signed-in person only; live in a real Chromium as a push lands.

use std::path::PathBuf;

use reqwest::{Method, StatusCode, header};
use serde_json::json;
use svc_tests::TestApp;
use svc_tests::browser::Browser;
use svc_tests::git::Git;

const PASSWORD: &str = "correct horse";

/// A server with ann (who signs in with a password), her monorepo `ann/mono` with repo
/// `app` cloned into `work`.
struct Home {
    app: TestApp,
    token: String,
    git: Git,
    work: PathBuf,
}

impl Home {
    async fn new() -> Home {
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
        git.commit(&work, "First", &[("README.md", b"hello\n")]);
        git.ok(&work, &["push", "-q", "origin", "HEAD:main"]);
        Home {
            app,
            token,
            git,
            work,
        }
    }

    /// Pushes a new branch with one commit; answers its head.
    fn push_branch(&self, name: &str) -> String {
        self.git
            .ok(&self.work, &["checkout", "-q", "-B", name, "origin/main"]);
        let head = self
            .git
            .commit(&self.work, name, &[(&format!("{name}.txt"), b"x\n")]);
        self.git.ok(&self.work, &["push", "-q", "origin", name]);
        head
    }

    /// Signs `login` in with the password; answers the session cookie pair.
    async fn sign_in(&self, login: &str) -> String {
        self.app.sign_in(login, PASSWORD).await
    }

    async fn page(&self, cookie: Option<&str>, path: &str) -> (StatusCode, String) {
        let r = self.app.get_page(cookie, path).await;
        let status = r.status();
        (status, r.text().await.unwrap())
    }

    /// Waits until `/` shows `want`.
    async fn home_shows(&self, cookie: &str, want: &str) -> String {
        for _ in 0..200 {
            let (status, html) = self.page(Some(cookie), "/").await;
            assert_eq!(status, StatusCode::OK);
            if html.contains(want) {
                return html;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the home never showed {want:?}");
    }
}

#[tokio::test]
async fn the_home_shows_needs_activity_and_monorepos_to_its_person_only() {
    let h = Home::new().await;
    let head = h.push_branch("fix");
    let r = h
        .app
        .as_user(
            Method::POST,
            &format!("/v1/monorepos/ann/mono/repos/app/statuses/{head}"),
            &h.token,
        )
        .json(&json!({"context": "ci/test", "state": "failure"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let r = h
        .app
        .as_user(
            Method::PATCH,
            "/v1/monorepos/ann/mono/repos/app/branches/fix",
            &h.token,
        )
        .json(&json!({"title": "<script>alert(1)</script>"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());

    // Signed out: to the sign-in page, coming back here.
    let r = h.app.request(Method::GET, "/").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        r.headers()[header::LOCATION],
        "/v1/login/browser?return_to=%2F"
    );

    let cookie = h.sign_in("ann").await;
    let html = h.home_shows(&cookie, "badge failing").await;
    assert!(
        html.contains(r#"href="/ann/mono/-/app/branches/fix""#),
        "{html}"
    );
    assert!(html.contains("ann opened app:fix with 1 commit"), "{html}");
    assert!(html.contains("ann pushed 1 commit to app:main"), "{html}");
    assert!(
        html.contains(r#"<a href="/ann/mono">ann/mono</a>"#),
        "{html}"
    );
    // User text is text.
    assert!(
        html.contains("&#60;script&#62;alert(1)&#60;/script&#62;"),
        "{html}"
    );
    assert!(!html.contains("<script>alert(1)"), "{html}");
    assert!(html.len() < 100 * 1024);

    // Bob, outside the monorepo, sees none of it.
    h.app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob", "password": PASSWORD}))
        .await;
    let bob = h.sign_in("bob").await;
    let (_, html) = h.page(Some(&bob), "/").await;
    assert!(!html.contains("ann/mono"), "{html}");
    assert!(html.contains("Nothing needs you."));
    let (status, html) = h.page(Some(&bob), "/ann/nothing-here").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("There is nothing here you can see"), "{html}");

    // The page's own headers: no inline script may run.
    let r = h
        .app
        .request(Method::GET, "/")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    let csp = r.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    let html = r.text().await.unwrap();
    let css = html
        .split("href=\"/assets/")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let r = h
        .app
        .request(Method::GET, &format!("/assets/{css}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()[header::CACHE_CONTROL]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
}

/// Where screenshots go for people to review.
fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
}

#[tokio::test]
async fn a_push_shows_on_the_open_home_without_a_reload() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let h = Home::new().await;
    let head = h.push_branch("first");
    let r = h
        .app
        .as_user(
            Method::POST,
            &format!("/v1/monorepos/ann/mono/repos/app/statuses/{head}"),
            &h.token,
        )
        .json(&json!({"context": "ci/test", "state": "failure"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    browser.goto(&h.app.url("/")).await;
    browser.wait_for_path("/login").await;
    browser.fill("#login", "ann").await;
    browser.fill("#password", PASSWORD).await;
    browser.click("#f button").await;
    browser.wait_for_path("/").await;
    browser.wait_for_text("#activity", "app:first").await;
    browser.wait_for_text("#monorepos", "ann/mono").await;
    browser.wait_for_text("#needs", "app:first").await;
    browser.screenshot(&screenshots(), "home").await;

    // Marks the page: a reload would lose it.
    browser
        .client
        .execute("document.body.dataset.stayed = 'yes'; return null;", vec![])
        .await
        .unwrap();
    h.push_branch("second");
    browser.wait_for_text("#activity", "app:second").await;
    let stayed = browser
        .client
        .execute("return document.body.dataset.stayed || null;", vec![])
        .await
        .unwrap();
    assert_eq!(stayed, json!("yes"), "the page was reloaded");
    let first = browser.find("#activity li").await.text().await.unwrap();
    assert!(first.contains("app:second"), "newest first: {first}");
    browser.screenshot(&screenshots(), "home-live").await;
    browser.close().await;
}

#[tokio::test]
async fn the_icon_is_where_browsers_look_for_it() {
    let app = TestApp::start().await;
    // Asked for by every page, signed in or not.
    let r = app
        .request(Method::GET, "/favicon.ico")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()[header::CONTENT_TYPE], "image/x-icon");
    assert_eq!(r.headers()[header::CACHE_CONTROL], "public, max-age=86400");
    assert_eq!(r.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    let icon = r.bytes().await.unwrap();
    assert_eq!(&icon[..4], b"\0\0\x01\0", "an ICO");
    assert!(icon.len() < 1024, "{} bytes", icon.len());
}
