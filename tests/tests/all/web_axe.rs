//! Every page a person reads, checked in Chromium by axe-core (WCAG 2.1 A and AA: no
//! violation), at 360 px without sideways scroll, and photographed wide and narrow for
//! people to review (`target/tmp/screenshots`).

use reqwest::Method;
use serde_json::json;
use svc_tests::browser::Browser;

use super::web_browser::{overflow_at_360, screenshots};
use super::web_forms::{PASSWORD, World};

/// Checks the page at `path`: axe finds nothing, nothing scrolls sideways at 360 px;
/// screenshots `name` and `name-narrow`.
async fn check(browser: &Browser, base: &str, path: &str, name: &str) -> Vec<String> {
    browser.client.set_window_size(1280, 900).await.unwrap();
    browser.goto(&format!("{base}{path}")).await;
    browser.find("main").await;
    let mut problems = Vec::new();
    if let Some(found) = browser.axe().await {
        problems.extend(found.into_iter().map(|v| format!("{path}: {v}")));
    }
    browser.screenshot(&screenshots(), name).await;
    if let Some(o) = overflow_at_360(browser, Some(name)).await {
        problems.push(format!("{path}: scrolls sideways at 360 px: {o}"));
    }
    problems
}

#[tokio::test]
async fn every_page_passes_axe_and_reads_at_360_px() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let w = World::new().await;
    // A merge queue for `app`, a branch in it, an issue.
    let url = w.app.url("/ann/mono/meta.git");
    w.git.ok(w.git.home.path(), &["clone", "-q", &url, "meta"]);
    let meta = w.git.path("meta");
    w.git.commit(
        &meta,
        "config",
        &[(
            ".svc/svc.toml",
            b"[repos.\"app\"]\nrequired_checks = [\"ci\"]\nmerge_queue = true\n" as &[u8],
        )],
    );
    w.git.ok(&meta, &["push", "-q", "origin", "main"]);
    w.git.ok(
        &w.work,
        &["checkout", "-q", "-B", "feat/queued", "origin/main"],
    );
    let head = w
        .git
        .commit(&w.work, "Queued work", &[("queued.txt", b"q\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "feat/queued"]);
    w.api(
        Method::POST,
        "/repos/app/branches/feat%2Fqueued/merge",
        None,
    )
    .await;
    w.api(
        Method::POST,
        "/issues",
        Some(json!({"title": "Pages for everyone", "body": "Readable *everywhere*."})),
    )
    .await;

    let cookie = w.app.sign_in("ann", PASSWORD).await;
    let base = w.app.origin().to_owned();
    browser.use_session(&base, &cookie).await;
    let commit = format!("/ann/mono/-/app/commit/{head}");
    let pages = [
        ("/", "axe-home"),
        ("/ann/mono", "axe-monorepo"),
        ("/ann/mono/-/app", "axe-tree"),
        ("/ann/mono/-/app/branches", "axe-branches"),
        ("/ann/mono/-/app/queue", "queue"),
        ("/ann/mono/-/app/branches/feat%2Fqueued", "axe-branch"),
        (commit.as_str(), "axe-commit"),
        ("/ann/mono/issues", "axe-issues"),
        ("/ann/mono/issues/1", "axe-issue"),
        ("/ann/mono/settings", "axe-settings"),
        ("/ann/mono/settings/hooks", "axe-settings-hooks"),
        ("/settings", "axe-person"),
        ("/ann", "axe-namespace"),
        ("/login", "axe-sign-in"),
        ("/login/device?user_code=BCDF-GHJK", "axe-device"),
    ];
    let mut problems = Vec::new();
    for (path, name) in pages {
        problems.extend(check(&browser, &base, path, name).await);
    }
    // The checker itself catches what it should: an image without a text.
    browser
        .goto("data:text/html,<html lang=en><title>t</title><main><img src=x.png></main>")
        .await;
    if let Some(caught) = browser.axe().await {
        assert!(
            caught.iter().any(|v| v.starts_with("image-alt")),
            "{caught:?}"
        );
    }
    browser.close().await;
    assert!(problems.is_empty(), "{problems:#?}");
}
