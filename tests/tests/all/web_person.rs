//! The person's own page, `/settings`: their credentials with the browser session
//! marked and Revoke, changing the password, signing out everywhere, each a form that
//! works without JavaScript; and the page in Chromium with scripts off and at 360 px.

use std::path::PathBuf;

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::browser::Browser;

const PASSWORD: &str = "correct horse";
const NEW_PASSWORD: &str = "battery staple";

/// ann, with a password and a machine credential (`token`).
struct World {
    app: TestApp,
    token: String,
}

impl World {
    async fn new() -> World {
        let app = TestApp::start().await;
        let token = app
            .bootstrap(json!({"email": "ann@example.com", "login": "ann", "password": PASSWORD}))
            .await
            .credential
            .token;
        World { app, token }
    }

    /// A form's POST from the page: the session cookie, `origin` as `Origin`.
    async fn post(
        &self,
        cookie: &str,
        origin: &str,
        path: &str,
        fields: &[(&str, &str)],
    ) -> reqwest::Response {
        self.app
            .request(Method::POST, path)
            .header(header::COOKIE, cookie)
            .header(header::ORIGIN, origin)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(
                url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(fields)
                    .finish(),
            )
            .send()
            .await
            .unwrap()
    }

    /// The person's page as `cookie` sees it (with `flash`, a refused form's cookie).
    async fn settings(&self, cookie: &str) -> String {
        let r = self.app.get_page(Some(cookie), "/settings").await;
        assert_eq!(r.status(), StatusCode::OK);
        let html = r.text().await.unwrap();
        assert!(html.len() < 100 * 1024, "{} bytes", html.len());
        html
    }

    /// The status of an API read with `token`.
    async fn api_status(&self, token: &str) -> StatusCode {
        self.app
            .as_user(Method::GET, "/v1/user", token)
            .send()
            .await
            .unwrap()
            .status()
    }

    /// The status of a password sign-in.
    async fn sign_in_status(&self, password: &str) -> StatusCode {
        self.app
            .request(Method::POST, "/v1/login/password")
            .header(header::ORIGIN, self.app.origin())
            .json(&json!({"login": "ann", "password": password}))
            .send()
            .await
            .unwrap()
            .status()
    }
}

fn location(r: &reqwest::Response) -> String {
    r.headers()[header::LOCATION].to_str().unwrap().to_owned()
}

/// The flash cookie a refused form's answer sets, as `name=value`.
fn flash_of(r: &reqwest::Response) -> String {
    r.headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|v| v.starts_with("svc_flash="))
        .expect("a flash")
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

/// The credential id of the row marked "this browser" (its Revoke form's address).
fn this_browser(html: &str) -> String {
    let marked: Vec<&str> = html.split(r#"<li class="this-browser">"#).skip(1).collect();
    assert_eq!(marked.len(), 1, "one row is this browser's: {html}");
    let after = marked[0].split("/settings/credentials/").nth(1).unwrap();
    after.split('/').next().unwrap().to_owned()
}

#[tokio::test]
async fn the_person_revokes_a_credential_and_changes_the_password_without_javascript() {
    let w = World::new().await;
    // Not signed in: the sign-in page, coming back here.
    let r = w.app.get_page(None, "/settings").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), "/v1/login/browser?return_to=%2Fsettings");

    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let other = w.app.sign_in("ann", PASSWORD).await;
    let made: Value = w
        .app
        .as_user(Method::POST, "/v1/user/credentials", &w.token)
        .json(&json!({"name": "<b>laptop</b>", "kind": "machine"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let laptop = made["token"].as_str().unwrap().to_owned();
    let laptop_id = made["id"].as_str().unwrap().to_owned();

    // Every credential listed, each browser marking its own session, names escaped.
    let html = w.settings(&cookie).await;
    let listed = w.app.get_json(&w.token, "/v1/user/credentials").await;
    let ids: Vec<&str> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 4, "{listed}");
    for id in &ids {
        assert!(
            html.contains(&format!("/settings/credentials/{id}/revoke")),
            "{id}: {html}"
        );
    }
    assert!(html.contains("&#60;b&#62;laptop&#60;/b&#62;"), "{html}");
    assert!(!html.contains("<b>laptop"), "{html}");
    let mine = this_browser(&html);
    let theirs = this_browser(&w.settings(&other).await);
    assert_ne!(mine, theirs);
    assert!(ids.contains(&mine.as_str()) && ids.contains(&theirs.as_str()));
    assert!(mine != laptop_id && theirs != laptop_id);

    // A revoke from another site is refused; from the page it revokes, and the API then
    // refuses that token.
    let revoke = format!("/settings/credentials/{laptop_id}/revoke");
    let r = w.post(&cookie, "https://evil.example", &revoke, &[]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(w.api_status(&laptop).await, StatusCode::OK);
    let r = w.post(&cookie, w.app.origin(), &revoke, &[]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), "/settings");
    assert_eq!(w.api_status(&laptop).await, StatusCode::UNAUTHORIZED);
    assert!(!w.settings(&cookie).await.contains(&revoke));

    // The password: a wrong current one is refused with the flash, then changed.
    let change = |current: &'static str, again: &'static str| {
        [
            ("current", current),
            ("password", NEW_PASSWORD),
            ("password_again", again),
        ]
    };
    let r = w
        .post(
            &cookie,
            w.app.origin(),
            "/settings/password",
            &change("wrong horse", NEW_PASSWORD),
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), "/settings");
    let with_flash = format!("{cookie}; {}", flash_of(&r));
    let html = w.settings(&with_flash).await;
    assert!(
        html.contains("the current password is wrong"),
        "the flash: {html}"
    );
    let r = w
        .post(
            &cookie,
            w.app.origin(),
            "/settings/password",
            &change(PASSWORD, "battery stapler"),
        )
        .await;
    let html = w.settings(&format!("{cookie}; {}", flash_of(&r))).await;
    assert!(html.contains("The two passwords differ"), "{html}");
    assert_eq!(w.sign_in_status(PASSWORD).await, StatusCode::OK);
    let r = w
        .post(
            &cookie,
            w.app.origin(),
            "/settings/password",
            &change(PASSWORD, NEW_PASSWORD),
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), "/settings");
    assert!(
        r.headers()
            .get_all(header::SET_COOKIE)
            .iter()
            .all(|v| !v.to_str().unwrap().starts_with("svc_flash=")),
        "no flash when done"
    );
    assert_eq!(w.sign_in_status(PASSWORD).await, StatusCode::UNAUTHORIZED);
    assert_eq!(w.sign_in_status(NEW_PASSWORD).await, StatusCode::OK);
}

#[tokio::test]
async fn signing_out_everywhere_ends_every_session_and_token() {
    let w = World::new().await;
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let other = w.app.sign_in("ann", PASSWORD).await;
    assert_eq!(w.api_status(&w.token).await, StatusCode::OK);

    let r = w
        .post(
            &cookie,
            w.app.origin(),
            "/settings/sign-out-everywhere",
            &[],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), "/v1/login/browser");
    let cleared = r
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .any(|v| v.starts_with("__Host-svc_session=;") && v.contains("Max-Age=0"));
    assert!(cleared, "the session cookie is cleared");
    // Both browsers are signed out, and the machine's token no longer works.
    for c in [&cookie, &other] {
        let r = w.app.get_page(Some(c), "/settings").await;
        assert_eq!(r.status(), StatusCode::SEE_OTHER);
        assert!(location(&r).starts_with("/v1/login/browser"));
    }
    assert_eq!(w.api_status(&w.token).await, StatusCode::UNAUTHORIZED);
    // Signing in again works.
    assert_eq!(w.sign_in_status(PASSWORD).await, StatusCode::OK);
}

fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
}

#[tokio::test]
async fn the_person_page_in_a_browser_without_javascript_and_at_360_px() {
    let Some(browser) = Browser::launch_without_scripts().await else {
        return;
    };
    let w = World::new().await;
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    browser.use_session(w.app.origin(), &cookie).await;
    // From the header's login to the page.
    browser.goto(&w.app.url("/")).await;
    browser.click("header .who").await;
    browser.wait_for_path("/settings").await;
    browser.wait_for_text(".this-browser", "this browser").await;
    browser.screenshot(&screenshots(), "settings").await;

    // Change the password with the form, scripts off.
    browser.fill("#current-password", PASSWORD).await;
    browser.fill("#new-password", NEW_PASSWORD).await;
    browser.fill("#new-password-again", NEW_PASSWORD).await;
    browser.click("#change-password-submit").await;
    browser.wait_for_path("/settings").await;
    browser.wait_for_text("#credentials", "this browser").await;
    assert_eq!(w.sign_in_status(NEW_PASSWORD).await, StatusCode::OK);

    // Sign out everywhere: the sign-in page, and the page no longer opens.
    browser.click("#sign-out-everywhere-submit").await;
    browser.wait_for_path("/login").await;
    browser.goto(&w.app.url("/settings")).await;
    browser.wait_for_path("/login").await;
    browser.close().await;

    // At 360 px (with scripts, which the width check runs in).
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let cookie = w.app.sign_in("ann", NEW_PASSWORD).await;
    browser.use_session(w.app.origin(), &cookie).await;
    browser.goto(&w.app.url("/settings")).await;
    browser.wait_for_text("#credentials", "this browser").await;
    let over = super::web_browser::overflow_at_360(&browser, Some("settings")).await;
    assert!(over.is_none(), "sideways scroll at 360 px: {over:?}");
    browser.close().await;
}
