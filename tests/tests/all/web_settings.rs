//! A monorepo's settings in the web (`/{owner}/{monorepo}/settings`, `/settings/hooks`,
//! `/settings/hooks/{id}`), for its owners: members and invites, labels, a repo's
//! releases, the CI connection, hooks with their deliveries, rename and delete with the
//! typed confirmation; forms that post to the page without JavaScript; a member and an
//! outsider get the 404 page.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::browser::Browser;
use svc_tests::fake_buildkite::FakeBuildkite;
use svc_tests::receiver::Receiver;

use crate::web_forms::{PASSWORD, World, flash_of, location};

const S: &str = "/ann/mono/settings";

/// The page a form's answer shows, when it shows one.
async fn shown(r: reqwest::Response) -> String {
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(html.len() < 100 * 1024, "{} bytes", html.len());
    html
}

/// The one-time value a form's answer shows.
fn value_shown(html: &str) -> String {
    let at = html
        .find(r#"id="shown-value""#)
        .expect("a value shown once");
    let rest = &html[at..];
    let start = rest.find("value=\"").unwrap() + "value=\"".len();
    rest[start..start + rest[start..].find('"').unwrap()].replace("&#38;", "&")
}

fn names(list: &Value, field: &str) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i[field].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn an_owner_manages_members_labels_repos_ci_and_the_name_from_the_settings() {
    let fake = FakeBuildkite::start().await;
    let app = TestApp::builder()
        .buildkite(&fake.api_url, "bk-token")
        .start()
        .await;
    let w = World::with_app(app).await;
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let origin = w.app.origin().to_owned();

    let (status, html) = w.page(&cookie, S).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    for id in [
        r#"id="members""#,
        r#"id="invites""#,
        r#"id="labels""#,
        r#"id="repo-settings""#,
        r#"id="ci-connections""#,
        r#"id="rename""#,
    ] {
        assert!(html.contains(id), "{id}: {html}");
    }
    let (_, home) = w.page(&cookie, "/ann/mono").await;
    assert!(home.contains(r#"href="/ann/mono/settings" id="settings-link""#));

    // A member by login; an unknown login is refused with the reason.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/members"),
            &[("who", "bob"), ("role", "member")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), S);
    let list = w.api(Method::GET, "/members", None).await;
    assert!(names(&list, "login").contains(&"bob".to_owned()), "{list}");
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/members"),
            &[("who", "nobody"), ("role", "member")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let html = w
        .app
        .get_page(Some(&format!("{cookie}; {}", flash_of(&r))), S)
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("no one is called nobody"), "{html}");
    // bob made owner, then member again.
    for role in ["owner", "member"] {
        let r = w
            .app
            .post_form(
                &cookie,
                &origin,
                &format!("{S}/members/bob"),
                &[("role", role)],
            )
            .await;
        assert_eq!(location(&r), S);
        let list = w.api(Method::GET, "/members", None).await;
        let bob = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["login"] == "bob")
            .unwrap()
            .clone();
        assert_eq!(bob["role"], role, "{list}");
    }

    // An invite by email: its sign-in link shown in the answer, once.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/members"),
            &[("who", "new@example.com"), ("role", "member")],
        )
        .await;
    let html = shown(r).await;
    let link = value_shown(&html);
    assert!(link.starts_with("http"), "{link}");
    let (_, html) = w.page(&cookie, S).await;
    assert!(html.contains(r#"data-email="new@example.com""#), "{html}");
    assert!(!html.contains(&link), "the link is shown once");
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/invites/new%40example.com/cancel"),
            &[],
        )
        .await;
    assert_eq!(location(&r), S);
    let invites = w.api(Method::GET, "/invites", None).await;
    assert_eq!(invites["items"], json!([]), "{invites}");

    // Labels: made with a description that is script text (shown as text), edited,
    // deleted.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/labels"),
            &[
                ("name", "triage"),
                ("color", "pink"),
                ("description", "<script>alert(1)</script> first look"),
            ],
        )
        .await;
    assert_eq!(location(&r), S);
    let (_, html) = w.page(&cookie, S).await;
    assert!(
        html.contains("&#60;script&#62;alert(1)&#60;/script&#62; first look"),
        "{html}"
    );
    assert!(!html.contains("<script>alert"), "{html}");
    let (_, html) = w.page(&cookie, &format!("{S}?edit=triage")).await;
    assert!(
        html.contains(&format!(r#"action="{S}/labels/triage""#)),
        "{html}"
    );
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/labels/triage"),
            &[
                ("name", "needs triage"),
                ("color", "blue"),
                ("description", ""),
            ],
        )
        .await;
    assert_eq!(location(&r), S);
    let labels = w.api(Method::GET, "/labels", None).await;
    let label = labels["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "needs triage")
        .expect("renamed")
        .clone();
    assert_eq!(
        (label["color"].as_str(), label["description"].as_str()),
        (Some("blue"), None),
        "{label}"
    );
    w.app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/labels/needs%20triage/delete"),
            &[],
        )
        .await;
    let labels = w.api(Method::GET, "/labels", None).await;
    assert!(!names(&labels, "name").contains(&"needs triage".to_owned()));

    // A repo's releases made public.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/repos/app"),
            &[("releases_public", "true")],
        )
        .await;
    assert_eq!(location(&r), S);
    let repo = w.api(Method::GET, "/repos/app", None).await;
    assert_eq!(repo["releases_public"], true, "{repo}");
    let (_, html) = w.page(&cookie, S).await;
    assert!(html.contains("Make releases private"), "{html}");

    // CI: the webhook token shown in the answer alone; the URL stays on the page.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/ci"),
            &[("organization", "acme")],
        )
        .await;
    let html = shown(r).await;
    let token = value_shown(&html);
    assert!(token.len() >= 32, "{token}");
    let (_, html) = w.page(&cookie, S).await;
    assert!(html.contains("/v1/ci/webhooks/ci_"), "{html}");
    assert!(!html.contains(&token), "the token is shown once");
    let ci = w.api(Method::GET, "/ci", None).await;
    let id = ci["connections"][0]["id"].as_str().unwrap().to_owned();
    let r = w
        .app
        .post_form(&cookie, &origin, &format!("{S}/ci/{id}/delete"), &[])
        .await;
    assert_eq!(location(&r), S);
    let ci = w.api(Method::GET, "/ci", None).await;
    assert_eq!(ci["connections"], json!([]), "{ci}");

    // A member and an outsider: the 404 page, for the pages and the forms.
    let bob = w.app.sign_in("bob", PASSWORD).await;
    w.app
        .bootstrap(json!({"email": "cy@example.com", "login": "cy", "password": PASSWORD}))
        .await;
    let cy = w.app.sign_in("cy", PASSWORD).await;
    for who in [&bob, &cy] {
        for page in [S, "/ann/mono/settings/hooks"] {
            let (status, html) = w.page(who, page).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{page}");
            assert!(!html.contains("Settings of"), "{html}");
        }
        let r = w
            .app
            .post_form(
                who,
                &origin,
                &format!("{S}/labels"),
                &[("name", "sneaky"), ("color", "pink")],
            )
            .await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        let r = w
            .app
            .post_form(
                who,
                &origin,
                &format!("{S}/delete"),
                &[("confirm", "ann/mono")],
            )
            .await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
    let (_, home) = w.page(&bob, "/ann/mono").await;
    assert!(!home.contains("settings-link"), "{home}");
    let labels = w.api(Method::GET, "/labels", None).await;
    assert!(!names(&labels, "name").contains(&"sneaky".to_owned()));
    // bob removed: no longer a member.
    let r = w
        .app
        .post_form(&cookie, &origin, &format!("{S}/members/bob/remove"), &[])
        .await;
    assert_eq!(location(&r), S);
    let list = w.api(Method::GET, "/members", None).await;
    assert_eq!(names(&list, "login"), ["ann"], "{list}");

    // Rename: a wrong confirmation is refused with the reason, the right one renames.
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/rename"),
            &[("to", "renamed"), ("confirm", "mono")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), S);
    let html = w
        .app
        .get_page(Some(&format!("{cookie}; {}", flash_of(&r))), S)
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains(r#"id="flash">type ann/mono to confirm: nothing was renamed"#),
        "{html}"
    );
    w.api(Method::GET, "", None).await;
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{S}/rename"),
            &[("to", "renamed"), ("confirm", "Ann/Mono")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), "/ann/renamed/settings");
    let m = w.app.get_json(&w.token, "/v1/monorepos/ann/renamed").await;
    assert_eq!(m["full_name"], "ann/renamed", "{m}");

    // Delete: refused without the name, then gone.
    let at = "/ann/renamed/settings/delete";
    let r = w
        .app
        .post_form(&cookie, &origin, at, &[("confirm", "ann/mono")])
        .await;
    assert_eq!(location(&r), "/ann/renamed/settings");
    flash_of(&r);
    let r = w
        .app
        .post_form(&cookie, &origin, at, &[("confirm", "ann/renamed")])
        .await;
    assert_eq!(location(&r), "/");
    let r = w
        .app
        .as_user(Method::GET, "/v1/monorepos/ann/renamed", &w.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_owner_adds_a_hook_and_sees_its_deliveries_with_redeliver_and_replay() {
    let w = World::new().await;
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let origin = w.app.origin().to_owned();
    let hooks = format!("{S}/hooks");
    let rx = Receiver::start().await;

    let body = format!(
        "url={}&events=push&events=merged&secret=",
        url::form_urlencoded::byte_serialize(rx.url.as_bytes()).collect::<String>()
    );
    let r = w
        .app
        .request(Method::POST, &hooks)
        .header(header::COOKIE, &cookie)
        .header(header::ORIGIN, &origin)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    let html = shown(r).await;
    let secret = value_shown(&html);
    assert_eq!(secret.len(), 43, "generated: {secret}");
    let list = w.api(Method::GET, "/hooks", None).await;
    let hook = &list["items"][0];
    assert_eq!(hook["events"], json!(["push", "merged"]), "{list}");
    let id = hook["id"].as_str().unwrap().to_owned();
    let (_, html) = w.page(&cookie, &hooks).await;
    assert!(html.contains(&format!(r#"href="{hooks}/{id}""#)), "{html}");
    assert!(!html.contains(&secret), "the secret is shown once");

    // A push: a delivery, delivered, with its try on the hook's page.
    w.git.commit(&w.work, "Second", &[("b.txt", b"b\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "HEAD:topic"]);
    rx.wait_for(1, Duration::from_secs(10)).await;
    let page = format!("{hooks}/{id}");
    let mut html = String::new();
    for _ in 0..50 {
        html = w.page(&cookie, &page).await.1;
        if html.contains(r#"<span class="badge delivered">delivered</span>"#) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        html.contains(r#"<span class="badge delivered">delivered</span>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<span class="badge success">200</span>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"data-follow="*" data-follow-ids="deliveries""#),
        "live: {html}"
    );
    let delivery = w
        .api(Method::GET, &format!("/hooks/{id}/deliveries"), None)
        .await["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/deliveries/{delivery}/redeliver"),
            &[],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), page);
    rx.wait_for(2, Duration::from_secs(10)).await;
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            &format!("{page}/replay"),
            &[("since", "0")],
        )
        .await;
    assert_eq!(location(&r), page);
    rx.wait_for(3, Duration::from_secs(10)).await;

    // A member gets the 404 page for the hook's page.
    w.api(Method::PUT, "/members/bob", Some(json!({"role": "member"})))
        .await;
    let bob = w.app.sign_in("bob", PASSWORD).await;
    let (status, _) = w.page(&bob, &page).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let r = w
        .app
        .post_form(&cookie, &origin, &format!("{page}/delete"), &[])
        .await;
    assert_eq!(location(&r), hooks);
    let list = w.api(Method::GET, "/hooks", None).await;
    assert_eq!(list["items"], json!([]), "{list}");
}

#[tokio::test]
async fn the_settings_in_a_browser_without_javascript_and_at_360_px() {
    let Some(browser) = Browser::launch_without_scripts().await else {
        return;
    };
    let w = World::new().await;
    let rx = Receiver::start().await;
    w.api(
        Method::POST,
        "/hooks",
        Some(json!({"kind": "web", "url": rx.url, "events": ["push", "branch.opened", "merged", "tag"]})),
    )
    .await;
    w.git.commit(&w.work, "Second", &[("b.txt", b"b\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "HEAD:topic"]);
    rx.wait_for(1, Duration::from_secs(10)).await;
    let hook = w.api(Method::GET, "/hooks", None).await["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    browser.use_session(w.app.origin(), &cookie).await;
    browser.client.set_window_size(1280, 900).await.unwrap();
    browser.goto(&w.app.url(S)).await;
    browser.wait_for_text("h1", "Settings of ann/mono").await;

    // A label, with scripts off.
    browser.fill("#new-label-name", "from-the-page").await;
    browser
        .fill("#new-label-description", "Made <without> scripts")
        .await;
    browser.click("#new-label-submit").await;
    browser
        .wait_for_text("#labels", "Made <without> scripts")
        .await;
    // A rename with the wrong name typed: refused, the reason shown.
    browser.fill("#rename-to", "elsewhere").await;
    browser.fill("#rename-confirm", "not it").await;
    browser.click("#rename-submit").await;
    browser
        .wait_for_text("#flash", "type ann/mono to confirm")
        .await;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    browser.screenshot(&dir, "settings").await;
    let pages = [
        ("settings", S.to_owned(), "#members"),
        ("settings-hooks", format!("{S}/hooks"), "#hooks"),
        ("settings-hook", format!("{S}/hooks/{hook}"), "#deliveries"),
    ];
    for (name, page, part) in &pages[1..] {
        browser.goto(&w.app.url(page)).await;
        browser.wait_for_text(part, "").await;
        browser.screenshot(&dir, name).await;
    }
    browser.goto(&w.app.url(S)).await;
    browser.fill("#rename-to", "elsewhere").await;
    browser.fill("#rename-confirm", "ann/mono").await;
    browser.click("#rename-submit").await;
    browser.wait_for_path("/ann/elsewhere/settings").await;
    browser.close().await;

    // At 360 px (with scripts, which the width check runs in).
    let Some(browser) = Browser::launch().await else {
        return;
    };
    browser.use_session(w.app.origin(), &cookie).await;
    for (name, page, part) in &pages {
        browser.goto(&w.app.url(page)).await;
        browser.wait_for_text(part, "").await;
        let over = crate::web_browser::overflow_at_360(&browser, Some(name)).await;
        assert!(
            over.is_none(),
            "{page} scrolls sideways at 360 px: {over:?}"
        );
    }
    browser.close().await;
}

/// The member list is live: another owner's change to it (through the API) shows on
/// an open settings page without a reload, from the `members` events; and so are a
/// hook's deliveries on its page.
#[tokio::test]
async fn the_settings_page_follows_its_members_live() {
    let w = World::new().await;
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let Some(browser) = Browser::launch().await else {
        return;
    };
    browser.use_session(w.app.origin(), &cookie).await;
    browser.goto(&w.app.url(S)).await;
    browser.wait_for_text("#members", "ann").await;
    w.api(Method::PUT, "/members/bob", Some(json!({"role": "member"})))
        .await;
    browser.wait_for_text("#members", "bob").await;
    w.api(Method::PUT, "/members/bob", Some(json!({"role": "owner"})))
        .await;
    browser
        .wait_for_text("#members li[data-login='bob'] .badge", "owner")
        .await;

    // A hook's page follows its deliveries: a push made while it is open shows.
    let rx = Receiver::start().await;
    let hook = w
        .api(
            Method::POST,
            "/hooks",
            Some(json!({"kind": "web", "url": rx.url, "events": ["push"]})),
        )
        .await;
    let page = format!("{S}/hooks/{}", hook["id"].as_str().unwrap());
    browser.goto(&w.app.url(&page)).await;
    browser
        .wait_for_text("#deliveries", "No deliveries yet")
        .await;
    w.git.ok(&w.work, &["checkout", "-q", "-b", "watched"]);
    w.git
        .commit(&w.work, "watched", &[("watched.txt", b"w\n".as_slice())]);
    w.git.ok(&w.work, &["push", "-q", "origin", "watched"]);
    browser.wait_for_text("#deliveries", "push").await;
    browser.close().await;
}
