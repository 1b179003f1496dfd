//! A repo's branches page (`/-/{repo}/branches`): open and merged tabs, each branch's
//! facts, checks, author and armed auto-merge, create and delete forms that work without
//! JavaScript; for members only, user text as text, narrow screens without sideways
//! scrolling.

use reqwest::{Method, StatusCode};
use serde_json::json;
use svc_tests::browser::Browser;

use super::web_forms::{PASSWORD, World, location};

const PAGE: &str = "/ann/mono/-/app/branches";
const XSS: &str = "<script>alert(1)</script>";

/// `name` pushed from main with one commit of its own.
fn push(w: &World, name: &str, file: &str) {
    w.git
        .ok(&w.work, &["checkout", "-q", "-B", name, "origin/main"]);
    w.git.commit(&w.work, name, &[(file, b"x\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", name]);
}

#[tokio::test]
async fn the_branches_page_lists_open_and_merged_branches_with_their_facts() {
    let w = World::new().await;
    w.require_ci();
    push(&w, "feat/open", "a.txt");
    push(&w, "feat/done", "b.txt");
    w.api(
        Method::PATCH,
        "/repos/app/branches/feat%2Fopen",
        Some(json!({"title": XSS})),
    )
    .await;
    w.api(
        Method::PUT,
        "/repos/app/branches/feat%2Fopen/auto-merge",
        None,
    )
    .await;
    w.api(
        Method::POST,
        "/repos/app/branches/feat%2Fdone/merge?force=1",
        Some(json!({})),
    )
    .await;
    // Fresh facts, so the row has them.
    w.api(Method::GET, "/repos/app/branches/feat%2Fopen?fresh=1", None)
        .await;
    let cookie = w.app.sign_in("ann", PASSWORD).await;

    let (status, html) = w.page(&cookie, PAGE).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let list = &html[html.find(r#"id="branch-list""#).unwrap()..];
    assert!(
        list.contains(r#"href="/ann/mono/-/app/branches/feat%2Fopen">feat/open</a>"#),
        "{list}"
    );
    assert!(!list.contains("feat/done"), "merged is on its tab: {list}");
    assert!(!html.contains("<script>alert"), "{html}");
    assert!(html.contains("&#60;script&#62;alert(1)"), "{html}");
    assert!(list.contains("by ann"), "{list}");
    // feat/done merged into main since: its commit and the merge commit.
    assert!(list.contains("1 ahead, 2 behind"), "{list}");
    assert!(list.contains("merges cleanly"), "{list}");
    assert!(list.contains("auto-merge armed by ann"), "{list}");
    assert!(
        list.contains(r#"checks <span class="badge missing">missing"#),
        "{list}"
    );
    assert!(
        list.contains(r#"action="/ann/mono/-/app/branches/feat%2Fopen/delete""#),
        "{list}"
    );

    let (_, html) = w.page(&cookie, &format!("{PAGE}?state=merged")).await;
    let list = &html[html.find(r#"id="branch-list""#).unwrap()..];
    assert!(list.contains("feat/done"), "{list}");
    assert!(list.contains("merged by ann"), "{list}");
    assert!(!list.contains("feat/open"), "{list}");

    // Linked from the repo's tree and the monorepo page.
    let (_, html) = w.page(&cookie, "/ann/mono/-/app").await;
    assert!(
        html.contains(r#"<a id="branches-link" href="/ann/mono/-/app/branches">"#),
        "{html}"
    );
    let (_, html) = w.page(&cookie, "/ann/mono").await;
    assert!(
        html.contains(r#"<a href="/ann/mono/-/app/branches">app</a>"#),
        "{html}"
    );

    // Outsiders get the 404 page, for the list and its forms.
    let bob = w.app.sign_in("bob", PASSWORD).await;
    let (status, _) = w.page(&bob, PAGE).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let r = w
        .app
        .post_form(&bob, w.app.origin(), PAGE, &[("name", "sneaky")])
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn branches_are_created_and_deleted_from_the_page() {
    let w = World::new().await;
    push(&w, "feat/base", "base.txt");
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let origin = w.app.origin().to_owned();

    // From main, then from another branch: on to the new branch's page.
    let r = w
        .app
        .post_form(&cookie, &origin, PAGE, &[("name", "fix/one"), ("from", "")])
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), "/ann/mono/-/app/branches/fix%2Fone");
    let r = w
        .app
        .post_form(
            &cookie,
            &origin,
            PAGE,
            &[("name", "fix/two"), ("from", "feat/base")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let two = w
        .api(Method::GET, "/repos/app/branches/fix%2Ftwo", None)
        .await;
    let base = w
        .api(Method::GET, "/repos/app/branches/feat%2Fbase", None)
        .await;
    assert_eq!(two["head"], base["head"]);

    // A name that is taken: back to the list with the reason.
    let r = w
        .app
        .post_form(&cookie, &origin, PAGE, &[("name", "fix/one")])
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), PAGE);
    assert!(
        r.headers()
            .get_all(reqwest::header::SET_COOKIE)
            .iter()
            .any(|v| v.to_str().unwrap().starts_with("svc_flash=")),
        "a flash"
    );

    // Deleted: back to the list, and it is gone from it.
    let r = w
        .app
        .post_form(&cookie, &origin, &format!("{PAGE}/fix%2Fone/delete"), &[])
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&r), PAGE);
    let (_, html) = w.page(&cookie, PAGE).await;
    assert!(!html.contains("fix/one"), "{html}");
    assert!(html.contains("fix/two"), "{html}");
}

#[tokio::test]
async fn the_branches_page_in_a_browser_without_javascript_at_360_px_and_live() {
    let Some(browser) = Browser::launch_without_scripts().await else {
        return;
    };
    let w = World::new().await;
    push(
        &w,
        "feature/a-rather-long-branch-name-that-will-not-fit-on-a-phone-screen",
        "a.txt",
    );
    let cookie = w.app.sign_in("ann", PASSWORD).await;
    browser.use_session(w.app.origin(), &cookie).await;
    browser.goto(&w.app.url(PAGE)).await;
    browser.wait_for_text("#branch-list", "a-rather-long").await;

    // Create one with the form, scripts off.
    browser.click("#new-branch-box summary").await;
    browser.fill("#new-branch-name", "from-the-page").await;
    browser.click("#new-branch-submit").await;
    browser
        .wait_for_path("/ann/mono/-/app/branches/from-the-page")
        .await;
    browser.goto(&w.app.url(PAGE)).await;
    browser.wait_for_text("#branch-list", "from-the-page").await;
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    browser.screenshot(&dir, "branches").await;
    browser.close().await;

    // At 360 px (with scripts, which the width check runs in).
    let Some(browser) = Browser::launch().await else {
        return;
    };
    browser.use_session(w.app.origin(), &cookie).await;
    browser.goto(&w.app.url(PAGE)).await;
    browser.wait_for_text("#branch-list", "from-the-page").await;
    let over = super::web_browser::overflow_at_360(&browser, Some("branches")).await;
    assert!(over.is_none(), "sideways scroll at 360 px: {over:?}");
    // Live: a branch pushed meanwhile shows up without a reload.
    push(&w, "pushed-while-watching", "live.txt");
    browser
        .wait_for_text("#branch-list", "pushed-while-watching")
        .await;
    browser.close().await;
}
