//! The web as people use it, in a real Chromium: signing in through the pages, filing an
//! issue and talking in it, commenting on a passage of a document, moving through a
//! page by keyboard, and every page at a phone's width. Screenshots of each page are
//! saved for review under `$CARGO_TARGET_TMPDIR/screenshots/`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use reqwest::multipart::{Form, Part};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::browser::Browser;
use svc_tests::git::Git;

const PASSWORD: &str = "correct horse";
const M: &str = "/v1/monorepos/ann/mono";

/// ann (who signs in with a password) owns `ann/mono` with repo `app`, cloned into
/// `work`, main pushed with a README, some code and a few commits.
struct World {
    app: TestApp,
    token: String,
    git: Git,
    work: PathBuf,
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
        git.commit(
            &work,
            "Start the app",
            &[
                (
                    "README.md",
                    b"# The app\n\nIt serves **pages**. See `src/main.rs`.\n\n\
                      | Part | Where |\n|---|---|\n| server | src/main.rs |\n",
                ),
                (
                    "src/main.rs",
                    b"fn main() {\n    println!(\"a rather long line of output that goes on well past the width of a phone screen\");\n}\n",
                ),
                (
                    "src/a_file_with_a_rather_long_name_that_will_not_fit_on_a_phone.rs",
                    b"// empty\n",
                ),
            ],
        );
        for n in 1..=3 {
            git.commit(
                &work,
                &format!("Tune the cache, step {n}: a commit title long enough to wrap on a phone"),
                &[(
                    "src/cache.rs",
                    format!("const STEP: u32 = {n};\n").as_bytes(),
                )],
            );
        }
        git.ok(&work, &["push", "-q", "origin", "HEAD:main"]);
        World {
            app,
            token,
            git,
            work,
        }
    }

    fn push_branch(&self, name: &str) {
        self.git
            .ok(&self.work, &["checkout", "-q", "-B", name, "origin/main"]);
        self.git
            .commit(&self.work, name, &[("notes.txt", b"notes\n")]);
        self.git.ok(&self.work, &["push", "-q", "origin", name]);
    }

    /// An API call as ann; answers the JSON, checking the status is a success.
    async fn api(&self, method: Method, path: &str, body: Option<Value>) -> Value {
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

    /// Opens `path` signed out, signs ann in on the sign-in page it leads to, and waits
    /// to be back on `path`.
    async fn sign_in_at(&self, browser: &Browser, path: &str) {
        browser.goto(&self.app.url(path)).await;
        browser.wait_for_path("/login").await;
        browser.fill("#login", "ann").await;
        browser.fill("#password", PASSWORD).await;
        browser.click("#f button").await;
        browser.wait_for_path(path.split('?').next().unwrap()).await;
    }
}

/// Where screenshots go for people to review.
pub(crate) fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
}

/// Runs `script` in the page (its arguments as `arguments[i]`); answers its result.
async fn js(browser: &Browser, script: &str, args: Vec<Value>) -> Value {
    browser
        .client
        .execute(script, args)
        .await
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

/// Polls `script` until it answers something other than null or false; answers that.
async fn until(browser: &Browser, what: &str, script: &str, args: Vec<Value>) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let v = js(browser, script, args.clone()).await;
        if !v.is_null() && v != json!(false) {
            return v;
        }
        if Instant::now() > deadline {
            let source = browser.client.source().await.unwrap_or_default();
            panic!("never {what}: {source}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Marks the page; `stayed` tells whether the page is still the one marked (no reload).
async fn mark(browser: &Browser) {
    js(
        browser,
        "document.body.dataset.stayed = 'yes'; return null;",
        vec![],
    )
    .await;
}

async fn stayed(browser: &Browser) -> bool {
    js(
        browser,
        "return document.body.dataset.stayed === 'yes';",
        vec![],
    )
    .await
        == json!(true)
}

/// A form field's current value.
async fn value(browser: &Browser, css: &str) -> String {
    let v = js(
        browser,
        "const e = document.querySelector(arguments[0]); return e ? e.value : null;",
        vec![json!(css)],
    )
    .await;
    v.as_str()
        .unwrap_or_else(|| panic!("no field {css}"))
        .to_owned()
}

/// Null when the page does not scroll sideways at this width; else its widths and the
/// innermost elements that stick out (outside any scrolling box).
const OVERFLOW: &str = r#"
const doc = document.documentElement;
const over = doc.scrollWidth - window.innerWidth;
if (over <= 1) return null;
const sticks = (e) => {
  const r = e.getBoundingClientRect();
  return Math.max(r.right, r.left + e.scrollWidth) > window.innerWidth + 1;
};
const scrolled = (e) => {
  for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
    if (getComputedStyle(p).overflowX !== 'visible') return true;
  }
  return false;
};
const wide = Array.from(document.querySelectorAll('body *'))
  .filter((e) => sticks(e) && !e.closest('.skip') && !scrolled(e))
  .filter((e) => !Array.from(e.children).some(sticks))
  .slice(0, 8)
  .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\s+/).join('.') : '') +
    ' right=' + Math.round(e.getBoundingClientRect().right));
return { scrollWidth: doc.scrollWidth, innerWidth: window.innerWidth, wide };
"#;

/// Whether the open page scrolls sideways at 360 px: `None` when it does not, else what
/// sticks out. Saves the page at that width as `<name>-narrow.png` when named.
pub(crate) async fn overflow_at_360(browser: &Browser, name: Option<&str>) -> Option<Value> {
    browser.client.set_window_size(360, 800).await.unwrap();
    let inner = until(
        browser,
        "the window is 360 px wide",
        "return window.innerWidth <= 360 ? window.innerWidth : null;",
        vec![],
    )
    .await;
    assert!(inner.as_u64().unwrap() > 300, "innerWidth {inner}");
    if let Some(name) = name {
        js(browser, "window.scrollTo(0, 0); return null;", vec![]).await;
        browser
            .screenshot(&screenshots(), &format!("{name}-narrow"))
            .await;
    }
    let v = js(browser, OVERFLOW, vec![]).await;
    (!v.is_null()).then_some(v)
}

async fn wide_window(browser: &Browser) {
    browser.client.set_window_size(1280, 900).await.unwrap();
}

/// Presses and releases `key`, sent to whatever has focus.
async fn press(browser: &Browser, key: Key) {
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: key.into() })
        .then(KeyAction::Up { value: key.into() });
    browser.client.perform_actions(keys).await.unwrap();
}

/// The focused element, described as `tag#id.class`.
async fn focused(browser: &Browser) -> String {
    js(
        browser,
        "const e = document.activeElement; if (!e) return ''; \
         return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + \
         (e.className && typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\\s+/).join('.') : '');",
        vec![],
    )
    .await
    .as_str()
    .unwrap()
    .to_owned()
}

#[tokio::test]
async fn a_member_files_an_issue_discusses_reacts_and_closes_it_in_the_browser() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let w = World::new().await;
    w.api(
        Method::POST,
        "/issues",
        Some(
            json!({"title": "Search ignores accents", "body": "`café` finds nothing.",
            "labels": ["bug"]}),
        ),
    )
    .await;
    w.api(
        Method::POST,
        "/issues",
        Some(json!({"title": "Document the release steps", "labels": ["documentation"]})),
    )
    .await;
    wide_window(&browser).await;

    // Signed out, the issues send ann to sign in, and back.
    w.sign_in_at(&browser, "/ann/mono/issues").await;
    browser
        .wait_for_text("#issues", "Search ignores accents")
        .await;

    // A new issue from the form; the page goes on to it.
    browser.click("#new-issue-box summary").await;
    browser
        .fill("#new-issue-title", "The footer covers the sign-in button")
        .await;
    browser
        .fill("#new-issue-body", "Seen on **narrow** screens only.")
        .await;
    browser.click("#new-issue button[type=\"submit\"]").await;
    browser.wait_for_path("/ann/mono/issues/3").await;
    browser
        .wait_for_text(".issue-title", "The footer covers the sign-in button")
        .await;
    let body = browser
        .find("#issue-body strong")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(body, "narrow", "the description is Markdown");
    browser.wait_for_text("#issue-state", "open").await;

    // A comment appears in the timeline without a reload; the form is emptied.
    mark(&browser).await;
    browser
        .fill("#comment-body", "Same here at *360 px* wide.")
        .await;
    browser.click("#comment-submit").await;
    browser
        .wait_for_text("#timeline", "Same here at 360 px wide.")
        .await;
    let em = browser
        .find("#timeline .comment .markdown em")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(em, "360 px");
    assert_eq!(value(&browser, "#comment-body").await, "");
    assert!(stayed(&browser).await, "the page was reloaded");

    // A +1 on the issue: the button turns pressed with its count, and the API agrees.
    browser
        .click("#issue-reactions button[data-content=\"+1\"]")
        .await;
    until(
        &browser,
        "the +1 was pressed",
        "const b = document.querySelector('#issue-reactions button[data-content=\"+1\"]'); \
         return b && b.getAttribute('aria-pressed') === 'true' ? b.textContent : null;",
        vec![],
    )
    .await;
    browser
        .wait_for_text("#issue-reactions button[data-content=\"+1\"] .count", "1")
        .await;
    let issue = w.api(Method::GET, "/issues/3", None).await;
    let reactions = issue["reactions"].as_array().unwrap();
    assert!(
        reactions
            .iter()
            .any(|r| r["content"] == "+1" && r["count"] == 1 && r["me"] == true),
        "{issue}"
    );
    assert_eq!(issue["comments"], 1, "{issue}");

    // Closing it: the state, the timeline and the button follow, still without a reload.
    browser.click("#close-issue").await;
    browser.wait_for_text("#issue-state", "closed").await;
    browser.wait_for_text("#timeline", "closed this").await;
    browser.find("#reopen-issue").await;
    assert!(stayed(&browser).await, "the page was reloaded");
    let issue = w.api(Method::GET, "/issues/3", None).await;
    assert_eq!(issue["state"], "closed", "{issue}");
    js(&browser, "window.scrollTo(0, 0); return null;", vec![]).await;
    browser.screenshot(&screenshots(), "issue").await;
    let issue_overflow = overflow_at_360(&browser, Some("issue")).await;
    wide_window(&browser).await;

    // The list: the two open ones, the closed one under its tab.
    browser.goto(&w.app.url("/ann/mono/issues")).await;
    browser.wait_for_text("#issue-tabs", "Closed 1").await;
    let open = browser.find("#issues").await.text().await.unwrap();
    assert!(open.contains("Document the release steps"), "{open}");
    assert!(!open.contains("The footer covers"), "{open}");
    browser.screenshot(&screenshots(), "issues").await;
    let list_overflow = overflow_at_360(&browser, Some("issues")).await;
    browser
        .goto(&w.app.url("/ann/mono/issues?state=closed"))
        .await;
    browser
        .wait_for_text("#issues", "#3 The footer covers the sign-in button")
        .await;
    assert!(
        issue_overflow.is_none() && list_overflow.is_none(),
        "sideways scroll at 360 px: issue {issue_overflow:?}, list {list_overflow:?}"
    );
    browser.close().await;
}

/// Selects, in the framed document, from the start of `from` to the end of `to` (each
/// found in one text node, possibly different ones); answers the selection's text, or
/// null while the frame is not there yet.
const SELECT_IN_FRAME: &str = r#"
const frame = document.getElementById('document');
const doc = frame && frame.contentDocument;
if (!doc || !doc.body) return null;
const find = (needle) => {
  const walk = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const at = n.data.indexOf(needle);
    if (at >= 0) return [n, at];
  }
  return null;
};
const start = find(arguments[0]);
const end = find(arguments[1]);
if (!start || !end) return null;
const range = doc.createRange();
range.setStart(start[0], start[1]);
range.setEnd(end[0], end[1] + arguments[1].length);
const sel = frame.contentWindow.getSelection();
sel.removeAllRanges();
sel.addRange(range);
return String(sel);
"#;

#[tokio::test]
async fn a_reviewer_comments_on_a_selected_passage_of_a_document() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let w = World::new().await;
    w.push_branch("feat/cache");
    let doc = b"# Cache design\n\nThe cache keeps **hot entries** in memory for an hour, \
                then drops them.\n\n## Limits\n\nAt most 10 000 entries.\n";
    let r = w
        .app
        .as_user(
            Method::POST,
            &format!("{M}/repos/app/branches/feat%2Fcache/artifacts"),
            &w.token,
        )
        .multipart(Form::new().part("file", Part::bytes(doc.to_vec()).file_name("design.md")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    wide_window(&browser).await;

    let page = "/ann/mono/-/app/branches/feat%2Fcache/artifacts/design.md";
    w.sign_in_at(&browser, page).await;
    browser.wait_for_text("h1", "design.md").await;
    // Once the frame is read, the page offers to comment on a selection.
    until(
        &browser,
        "the selection button was offered",
        "const b = document.getElementById('comment-selection'); return b && !b.hidden;",
        vec![],
    )
    .await;

    // A passage across the bold words, selected as a reader would.
    let passage = "keeps hot entries in memory";
    let selected = until(
        &browser,
        "the passage was selected in the frame",
        SELECT_IN_FRAME,
        vec![json!("keeps"), json!("in memory")],
    )
    .await;
    assert_eq!(selected, json!(passage));
    browser.click("#comment-selection").await;
    let quote = until(
        &browser,
        "the quote was filled",
        "const q = document.getElementById('quote'); return q && q.value ? q.value : null;",
        vec![],
    )
    .await;
    assert_eq!(quote, json!(passage));
    assert_eq!(
        focused(&browser).await,
        "textarea#thread-body",
        "the body is next to write"
    );

    mark(&browser).await;
    browser
        .fill(
            "#thread-body",
            "Why an **hour**? Most entries go cold in minutes.",
        )
        .await;
    browser.click("#thread-submit").await;
    browser
        .wait_for_text("#thread-list", "Most entries go cold in minutes.")
        .await;
    let shown = browser
        .find("#thread-list .thread blockquote.quote")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(shown, passage);
    let count = browser.wait_for_text("#thread-count", "1 open").await;
    assert_eq!(count, "1 open · 1 thread");
    assert_eq!(value(&browser, "#quote").await, "");
    assert_eq!(value(&browser, "#thread-body").await, "");
    assert!(stayed(&browser).await, "the page was reloaded");

    // The API has the thread on the passage, on the version shown.
    let threads = w
        .api(
            Method::GET,
            "/repos/app/branches/feat%2Fcache/artifacts/design.md/threads",
            None,
        )
        .await;
    let items = threads["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{threads}");
    let root = &items[0]["root"];
    assert_eq!(root["anchor"]["exact"], passage, "{root}");
    assert_eq!(
        root["body"], "Why an **hour**? Most entries go cold in minutes.",
        "{root}"
    );
    assert_eq!(root["version"], 1, "{root}");
    assert_eq!(root["author"], "ann", "{root}");

    // The quoted passage is highlighted in the document, across its bold words, and the
    // document is set in the service's typography (a heading rule, a readable measure).
    let marked = until(
        &browser,
        "the quoted passage was highlighted",
        "const w = document.getElementById('document').contentWindow;
         const h = w.CSS.highlights.get('svc-quote');
         if (!h || h.size !== 1) return null;
         const [r] = h.values();
         return String(r);",
        vec![],
    )
    .await;
    assert_eq!(marked, json!("keeps hot entries in memory"));
    let measure = js(
        &browser,
        "const d = document.getElementById('document').contentDocument;
         const w = d.defaultView;
         return [w.getComputedStyle(d.body).maxWidth,
                 w.getComputedStyle(d.querySelector('h2')).borderBottomStyle];",
        vec![],
    )
    .await;
    assert_eq!(measure, json!(["736px", "solid"]));

    js(&browser, "window.scrollTo(0, 0); return null;", vec![]).await;
    browser.screenshot(&screenshots(), "artifact").await;
    let overflow = overflow_at_360(&browser, Some("artifact")).await;
    assert!(
        overflow.is_none(),
        "the artifact page scrolls sideways at 360 px: {overflow:?}"
    );
    browser.close().await;
}

#[tokio::test]
async fn the_code_pages_read_well_wide_and_at_360_px() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let w = World::new().await;
    w.push_branch("feature/cache");
    let r = w
        .app
        .as_user(
            Method::POST,
            &format!("{M}/repos/app/releases?force=1"),
            &w.token,
        )
        .json(&json!({"tag": "v1.0", "title": "First release",
            "notes": "Now **faster**.\n\n- a cache\n- fewer queries"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::CREATED,
        "{}",
        r.text().await.unwrap()
    );
    let r = w
        .app
        .as_user(
            Method::PUT,
            &format!("{M}/repos/app/releases/v1.0/files/app-linux-x86_64.tar.gz"),
            &w.token,
        )
        .body(b"tarball".to_vec())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    wide_window(&browser).await;
    w.sign_in_at(&browser, "/ann/mono").await;

    let head = w.git.ok(&w.work, &["rev-parse", "HEAD"]).trim().to_owned();
    let commit = format!("/ann/mono/-/app/commit/{head}");
    // (screenshot name, page, what shows it is drawn)
    let pages = [
        ("monorepo", "/ann/mono", "h1"),
        ("commit", commit.as_str(), "#diff"),
        ("tree", "/ann/mono/-/app/tree/main", "#tree"),
        ("blob", "/ann/mono/-/app/blob/main/src/main.rs", "#L2"),
        ("history", "/ann/mono/-/app/commits/main", "#history"),
        (
            "releases",
            "/ann/mono/-/app/releases",
            "[data-tag=\"v1.0\"]",
        ),
    ];
    let mut wide = Vec::new();
    for (name, path, ready) in pages {
        wide_window(&browser).await;
        browser.goto(&w.app.url(path)).await;
        browser.find(ready).await;
        // The folder's last commits may still be coming.
        until(
            &browser,
            "the folder's last commits arrived",
            "return !document.querySelector('#tree[data-retry-ms]');",
            vec![],
        )
        .await;
        browser.screenshot(&screenshots(), name).await;
        if let Some(o) = overflow_at_360(&browser, Some(name)).await {
            wide.push(format!("{name} ({path}): {o}"));
        }
    }
    // What the pages say, briefly: each is the page it claims to be.
    browser.goto(&w.app.url("/ann/mono/-/app/tree/main")).await;
    browser.wait_for_text("#tree", "src").await;
    browser.wait_for_text(".readme", "It serves pages.").await;
    browser.goto(&w.app.url("/ann/mono/-/app/releases")).await;
    browser
        .wait_for_text("[data-tag=\"v1.0\"]", "app-linux-x86_64.tar.gz")
        .await;
    // The check sees a page that is too wide.
    js(
        &browser,
        "const d = document.createElement('div'); d.id = 'too-wide'; \
         d.textContent = 'x'.repeat(400); d.style.whiteSpace = 'nowrap'; \
         document.getElementById('main').append(d); return null;",
        vec![],
    )
    .await;
    let seen = overflow_at_360(&browser, None).await;
    assert!(
        seen.as_ref()
            .is_some_and(|o| o.to_string().contains("too-wide")),
        "{seen:?}"
    );
    assert!(
        wide.is_empty(),
        "pages that scroll sideways at 360 px:\n{}",
        wide.join("\n")
    );
    browser.close().await;
}

#[tokio::test]
async fn a_keyboard_user_skips_to_the_content_and_reaches_the_comment_box() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let w = World::new().await;
    w.api(
        Method::POST,
        "/issues",
        Some(json!({"title": "Keyboard only", "body": "Try it without a mouse."})),
    )
    .await;
    wide_window(&browser).await;
    let page = "/ann/mono/issues/1";
    w.sign_in_at(&browser, page).await;
    // A fresh load: nothing has focus yet.
    browser.goto(&w.app.url(page)).await;
    browser.wait_for_text(".issue-title", "Keyboard only").await;

    // The first Tab lands on the skip link, which shows itself on focus.
    press(&browser, Key::Tab).await;
    assert_eq!(focused(&browser).await, "a.skip");
    let shown = js(
        &browser,
        "const r = document.activeElement.getBoundingClientRect(); \
         return r.left >= 0 && r.right <= window.innerWidth && r.width > 0;",
        vec![],
    )
    .await;
    assert_eq!(shown, json!(true), "the focused skip link is on screen");
    // Following it, the next Tab is inside the content, past the site's header.
    press(&browser, Key::Enter).await;
    press(&browser, Key::Tab).await;
    let inside = js(
        &browser,
        "const e = document.activeElement; \
         return !!(e && e.closest('main') && !e.closest('header.top'));",
        vec![],
    )
    .await;
    assert_eq!(
        inside,
        json!(true),
        "after the skip link, focus is in the content: {}",
        focused(&browser).await
    );

    // Tabbing on reaches the comment box, which takes typing and shows its focus.
    let mut path = Vec::new();
    for _ in 0..80 {
        let now = focused(&browser).await;
        if now == "textarea#comment-body" {
            break;
        }
        path.push(now);
        press(&browser, Key::Tab).await;
    }
    assert_eq!(
        focused(&browser).await,
        "textarea#comment-body",
        "Tab never reached the comment box; it went through {path:?}"
    );
    let outline = js(
        &browser,
        "return getComputedStyle(document.activeElement).outlineStyle;",
        vec![],
    )
    .await;
    assert_ne!(outline, json!("none"), "the focused box shows its focus");
    let focus = browser.client.active_element().await.unwrap();
    focus.send_keys("Works by keyboard.").await.unwrap();
    assert_eq!(value(&browser, "#comment-body").await, "Works by keyboard.");
    browser.close().await;
}
