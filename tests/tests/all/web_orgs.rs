//! A namespace's pages: an org's page, its members and invites (owners manage them with
//! forms that work without JavaScript) and its settings; a person's namespace; the 404
//! page for outsiders; the monorepo pages and the git door beside them.

use std::path::PathBuf;

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::browser::Browser;

const PASSWORD: &str = "correct horse";

/// ann owns org `acme` (named with markup) and its monorepo `acme/mono`; bob and carol
/// exist outside it. Each has a token and a session cookie.
struct World {
    app: TestApp,
    ann: String,
    ann_cookie: String,
    bob_cookie: String,
    carol_cookie: String,
}

impl World {
    async fn new() -> World {
        let app = TestApp::start().await;
        let mut tokens = Vec::new();
        for login in ["ann", "bob", "carol"] {
            let email = format!("{login}@example.com");
            let made = app
                .bootstrap(json!({"email": email, "login": login, "password": PASSWORD}))
                .await;
            tokens.push(made.credential.token);
        }
        let ann = tokens[0].clone();
        let r = app
            .as_user(Method::POST, "/v1/orgs", &ann)
            .json(&json!({"login": "acme", "name": "Acme <Tools>", "description": "we make <b>things</b>"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        app.monorepo(&ann, json!({"name": "mono", "owner": "acme"}))
            .await;
        World {
            ann_cookie: app.sign_in("ann", PASSWORD).await,
            bob_cookie: app.sign_in("bob", PASSWORD).await,
            carol_cookie: app.sign_in("carol", PASSWORD).await,
            app,
            ann,
        }
    }

    async fn page(&self, cookie: &str, path: &str) -> (StatusCode, String) {
        let r = self.app.get_page(Some(cookie), path).await;
        let status = r.status();
        let html = r.text().await.unwrap();
        assert!(html.len() < 100 * 1024, "{path}: {} bytes", html.len());
        (status, html)
    }

    /// A form's POST from the page, with this service's `Origin`.
    async fn post(&self, cookie: &str, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        self.app
            .request(Method::POST, path)
            .header(header::COOKIE, cookie)
            .header(header::ORIGIN, self.app.origin())
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

    /// The org's members as the API lists them: `(login, role)`.
    async fn members(&self) -> Vec<(String, String)> {
        let list = self.app.get_json(&self.ann, "/v1/orgs/acme/members").await;
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["login"].as_str().unwrap().to_owned(),
                    m["role"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }
}

fn location(r: &reqwest::Response) -> String {
    r.headers()[header::LOCATION].to_str().unwrap().to_owned()
}

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

fn pair(login: &str, role: &str) -> (String, String) {
    (login.to_owned(), role.to_owned())
}

#[tokio::test]
async fn an_owner_manages_the_org_s_people_from_its_pages() {
    let w = World::new().await;
    let people = "/acme/-/people";

    // The org's page: its monorepos and its people, its text escaped.
    let (status, html) = w.page(&w.ann_cookie, "/acme").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains(r#"href="/acme/mono""#), "{html}");
    assert!(html.contains("Acme &#60;Tools&#62;"), "{html}");
    assert!(
        html.contains("we make &#60;b&#62;things&#60;/b&#62;"),
        "{html}"
    );
    assert!(!html.contains("<b>things"), "{html}");
    assert!(html.contains(r#"href="/acme/-/people""#), "{html}");
    assert!(html.contains(r#"href="/acme/-/settings""#), "{html}");

    // Invite bob (who has an account: in at once), and dan (who has none: a link to pass
    // on, shown once on the answer).
    let r = w
        .post(
            &w.ann_cookie,
            people,
            &[("email", "bob@example.com"), ("role", "member")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), people);
    assert_eq!(
        w.members().await,
        [pair("ann", "owner"), pair("bob", "member")]
    );
    let r = w
        .post(
            &w.ann_cookie,
            people,
            &[("email", "dan@example.com"), ("role", "owner")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(html.contains(r#"id="invite-link""#), "{html}");
    assert!(html.contains("/login/link/"), "{html}");
    let (_, html) = w.page(&w.ann_cookie, people).await;
    assert!(html.contains("dan@example.com"), "{html}");
    assert!(
        !html.contains("/login/link/"),
        "the link is shown once: {html}"
    );

    // Change bob's role, cancel dan's invite.
    let r = w
        .post(
            &w.ann_cookie,
            "/acme/-/people/bob/role",
            &[("role", "owner")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        w.members().await,
        [pair("ann", "owner"), pair("bob", "owner")]
    );
    let r = w
        .post(
            &w.ann_cookie,
            "/acme/-/invites/dan%40example.com/cancel",
            &[],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let invites = w.app.get_json(&w.ann, "/v1/orgs/acme/invites").await;
    assert_eq!(invites["items"], json!([]));

    // Remove bob; then ann, the only owner, may not make herself a member: the flash.
    let r = w
        .post(&w.ann_cookie, "/acme/-/people/bob/remove", &[])
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(w.members().await, [pair("ann", "owner")]);
    let r = w
        .post(
            &w.ann_cookie,
            "/acme/-/people/ann/role",
            &[("role", "member")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), people);
    let flash = format!("{}; {}", w.ann_cookie, flash_of(&r));
    let (_, html) = w.page(&flash, people).await;
    assert!(html.contains("without an owner"), "{html}");

    // A member sees the people, without the owners' forms, and no settings.
    let r = w
        .post(
            &w.ann_cookie,
            people,
            &[("email", "bob@example.com"), ("role", "member")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let (status, html) = w.page(&w.bob_cookie, people).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("ann"), "{html}");
    assert!(!html.contains("Change role"), "{html}");
    assert!(html.contains("Leave acme"), "{html}");
    let (status, _) = w.page(&w.bob_cookie, "/acme/-/settings").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let r = w
        .post(
            &w.bob_cookie,
            "/acme/-/people/ann/role",
            &[("role", "member")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        w.members().await,
        [pair("ann", "owner"), pair("bob", "member")]
    );

    // The settings: what updateOrg changes, an empty field cleared.
    let (status, html) = w.page(&w.ann_cookie, "/acme/-/settings").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(r#"value="Acme &#60;Tools&#62;""#), "{html}");
    let r = w
        .post(
            &w.ann_cookie,
            "/acme/-/settings",
            &[
                ("name", "<i>Acme</i>"),
                ("description", ""),
                ("picture_url", ""),
            ],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), "/acme/-/settings");
    let org = w.app.get_json(&w.ann, "/v1/orgs/acme").await;
    assert_eq!(
        (org["name"].clone(), org["description"].clone()),
        (json!("<i>Acme</i>"), Value::Null)
    );
    let (_, html) = w.page(&w.ann_cookie, "/acme").await;
    assert!(html.contains("&#60;i&#62;Acme&#60;/i&#62;"), "{html}");
}

#[tokio::test]
async fn outsiders_get_the_404_page_and_the_monorepo_and_door_still_answer() {
    let w = World::new().await;
    // carol is outside acme and sees none of its monorepos: none of its pages are here,
    // and its forms write nothing.
    for path in [
        "/acme",
        "/acme/-/people",
        "/acme/-/settings",
        "/nobody",
        "/ann",
    ] {
        let (status, html) = w.page(&w.carol_cookie, path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(!html.contains("acme/mono"), "{path}: {html}");
    }
    let r = w
        .post(
            &w.carol_cookie,
            "/acme/-/people",
            &[("email", "carol@example.com")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = w
        .post(&w.carol_cookie, "/acme/-/people/ann/remove", &[])
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(w.members().await, [pair("ann", "owner")]);
    // Not signed in: the sign-in page.
    let r = w.app.get_page(None, "/acme").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);

    // A person's namespace: theirs always, another's when one of its monorepos is seen.
    let (status, html) = w.page(&w.carol_cookie, "/carol").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("No monorepos you can see"), "{html}");
    w.app.monorepo(&w.ann, json!({"name": "own"})).await;
    let (status, html) = w.page(&w.ann_cookie, "/ann").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(r#"href="/ann/own""#), "{html}");
    assert!(!html.contains("acme/mono"), "{html}");

    // Once a member, carol sees the org; the monorepo page and the git door beside the
    // org's pages still answer.
    let r = w
        .app
        .as_user(Method::PUT, "/v1/orgs/acme/members/carol", &w.ann)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let (status, html) = w.page(&w.carol_cookie, "/acme").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(r#"href="/acme/mono""#), "{html}");
    let (status, _) = w.page(&w.carol_cookie, "/acme/mono").await;
    assert_eq!(status, StatusCode::OK);
    let r = w
        .app
        .as_user(
            Method::GET,
            "/acme/mono/meta/info/refs?service=git-upload-pack",
            &w.ann,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
}

#[tokio::test]
async fn an_owner_invites_and_changes_a_role_in_a_browser_without_javascript() {
    let Some(browser) = Browser::launch_without_scripts().await else {
        return;
    };
    let w = World::new().await;
    browser.use_session(w.app.origin(), &w.ann_cookie).await;
    browser.goto(&w.app.url("/acme")).await;
    browser.wait_for_text("#monorepos", "acme/mono").await;
    browser.screenshot(&screenshots(), "org").await;

    browser.click(r#"a[href="/acme/-/people"]"#).await;
    browser.wait_for_path("/acme/-/people").await;
    browser.fill("#invite-email", "bob@example.com").await;
    browser.click("#invite-submit").await;
    browser.wait_for_text("#members", "bob").await;
    browser
        .find("#role-bob")
        .await
        .select_by_value("owner")
        .await
        .unwrap();
    browser
        .click(r#"li[data-login="bob"] .role-form button"#)
        .await;
    browser.wait_for_path("/acme/-/people").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while w.members().await != [pair("ann", "owner"), pair("bob", "owner")] {
        assert!(
            std::time::Instant::now() < deadline,
            "{:?}",
            w.members().await
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    browser.screenshot(&screenshots(), "org-people").await;
    browser.goto(&w.app.url("/acme/-/settings")).await;
    browser.find("#org-settings").await;
    browser.screenshot(&screenshots(), "org-settings").await;
    browser.goto(&w.app.url("/ann")).await;
    browser.find("#monorepos").await;
    browser.screenshot(&screenshots(), "person-namespace").await;
    browser.close().await;

    // At 360 px (with scripts, which the width check runs in).
    let Some(browser) = Browser::launch().await else {
        return;
    };
    browser.use_session(w.app.origin(), &w.ann_cookie).await;
    for (path, name) in [
        ("/acme", "org"),
        ("/acme/-/people", "org-people"),
        ("/acme/-/settings", "org-settings"),
        ("/ann", "person-namespace"),
    ] {
        browser.goto(&w.app.url(path)).await;
        browser.find("main h1").await;
        let over = super::web_browser::overflow_at_360(&browser, Some(name)).await;
        assert!(
            over.is_none(),
            "{path}: sideways scroll at 360 px: {over:?}"
        );
    }
    // The people page follows the org's members (it asks again every 10 s): someone
    // added elsewhere shows without a reload.
    browser.goto(&w.app.url("/acme/-/people")).await;
    browser.find("#members").await;
    let r = w
        .app
        .as_user(Method::PUT, "/v1/orgs/acme/members/carol", &w.ann)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    browser.wait_for_text("#members", "carol").await;
    browser.close().await;
}
