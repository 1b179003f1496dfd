//! The issues pages (`/issues` with its tabs, search, label and pages; `/issues/{n}`
//! with its timeline, forms and reactions) and the artifact viewer (the document in a
//! sandboxed frame of this server, its threads, the quote and selection controls), as
//! HTML through a real server: for members only, user text as text.

use std::path::PathBuf;

use reqwest::multipart::{Form, Part};
use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::git::Git;

const PASSWORD: &str = "correct horse";
const M: &str = "/v1/monorepos/ann/mono";
const XSS: &str = "<script>alert(1)</script>";

/// ann (password sign-in) owns `ann/mono` with repo `app`, cloned into `work`, main
/// pushed; bob exists outside it.
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

    fn push_branch(&self, name: &str) {
        self.git
            .ok(&self.work, &["checkout", "-q", "-B", name, "origin/main"]);
        self.git.commit(&self.work, name, &[("b.txt", b"b\n")]);
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

    async fn sign_in(&self, login: &str) -> String {
        self.app.sign_in(login, PASSWORD).await
    }

    async fn get(&self, cookie: Option<&str>, path: &str) -> reqwest::Response {
        self.app.get_page(cookie, path).await
    }

    /// A page's status and HTML, checking the size every page keeps under.
    async fn page(&self, cookie: Option<&str>, path: &str) -> (StatusCode, String) {
        let r = self.get(cookie, path).await;
        let status = r.status();
        let html = r.text().await.unwrap();
        assert!(html.len() < 100 * 1024, "{path}: {} bytes", html.len());
        (status, entities(&html))
    }

    async fn ok_page(&self, cookie: &str, path: &str) -> String {
        let (status, html) = self.page(Some(cookie), path).await;
        assert_eq!(status, StatusCode::OK, "{path}: {html}");
        html
    }
}

/// The page with the escapes of `<`, `>` and `&` spelled one way (askama writes them as
/// numeric references), for readable assertions.
fn entities(html: &str) -> String {
    html.replace("&#60;", "&lt;")
        .replace("&#62;", "&gt;")
        .replace("&#38;", "&amp;")
        .replace("&#34;", "&quot;")
}

/// The part of a page inside the element whose opening tag holds `marker`.
fn section<'a>(html: &'a str, marker: &str) -> &'a str {
    let start = html
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in {html}"));
    &html[start..]
}

fn signed_out_goes_to_sign_in(location: &str, path: &str) {
    let back: String = url::form_urlencoded::byte_serialize(path.as_bytes()).collect();
    assert_eq!(location, format!("/v1/login/browser?return_to={back}"));
}

#[tokio::test]
async fn the_issue_list_has_tabs_search_labels_and_pages() {
    let w = World::new().await;
    w.push_branch("feat/x");
    w.api(
        Method::POST,
        "/issues",
        Some(json!({"title": XSS, "body": "first", "labels": ["bug"],
            "link": [{"repo": "app", "branch": "feat/x"}]})),
    )
    .await;
    w.api(
        Method::POST,
        "/issues",
        Some(json!({"title": "Second issue", "body": "more"})),
    )
    .await;
    w.api(
        Method::PATCH,
        "/issues/2",
        Some(json!({"state": "closed", "state_reason": "not_planned"})),
    )
    .await;

    // Signed out: to the sign-in page, coming back here.
    let r = w.get(None, "/ann/mono/issues?state=closed").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    signed_out_goes_to_sign_in(
        r.headers()[header::LOCATION].to_str().unwrap(),
        "/ann/mono/issues?state=closed",
    );

    let ann = w.sign_in("ann").await;
    let html = w.ok_page(&ann, "/ann/mono/issues").await;
    // The title is text, never markup.
    assert!(
        html.contains("#1 &lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(!html.contains("<script>alert(1)"), "{html}");
    assert!(html.contains(r#"href="/ann/mono/issues/1""#), "{html}");
    assert!(html.contains(r#"<a class="label label-orange" href="/ann/mono/issues?state=all&amp;labels=bug">bug</a>"#), "{html}");
    assert!(!html.contains("Second issue"), "{html}");
    assert!(
        html.contains(r#"aria-current="page">Open <span class="count">1</span>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"Closed <span class="count">1</span>"#),
        "{html}"
    );
    // The new-issue form posts to the API; the page refreshes on issue events.
    assert!(html.contains(r#"id="new-issue""#), "{html}");
    assert!(
        html.contains(r#"data-path="/v1/monorepos/ann/mono/issues""#),
        "{html}"
    );
    assert!(html.contains(r#"name="title""#) && html.contains(r#"name="body""#));
    assert!(html.contains(r#"data-refresh-on="issue.opened,"#), "{html}");
    assert!(html.contains(r#"data-monorepo="ann/mono""#), "{html}");

    let html = w.ok_page(&ann, "/ann/mono/issues?state=closed").await;
    assert!(html.contains("#2 Second issue"), "{html}");
    assert!(!html.contains("#1 &lt;script"), "{html}");
    let html = w
        .ok_page(&ann, "/ann/mono/issues?state=closed&q=second")
        .await;
    assert!(html.contains("#2 Second issue"), "{html}");
    let html = w.ok_page(&ann, "/ann/mono/issues?q=nothing+like+it").await;
    assert!(html.contains("No open issues match."), "{html}");
    let html = w
        .ok_page(&ann, "/ann/mono/issues?state=open&labels=bug")
        .await;
    assert!(html.contains("#1 &lt;script"), "{html}");
    assert!(html.contains(r#"<option value="bug" selected>"#), "{html}");
    let html = w.ok_page(&ann, "/ann/mono/issues?labels=question").await;
    assert!(html.contains("No open issues match."), "{html}");
    // A search the API refuses is said on the page.
    let words = ["w"; 11].join(" ");
    let (status, html) = w
        .page(
            Some(&ann),
            &format!("/ann/mono/issues?q={}", words.replace(' ', "+")),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(r#"class="notice error-text""#), "{html}");

    // Pages by the API's cursor, 50 a page.
    for i in 0..50 {
        w.api(
            Method::POST,
            "/issues",
            Some(json!({"title": format!("Filler {i}")})),
        )
        .await;
    }
    let html = w.ok_page(&ann, "/ann/mono/issues").await;
    assert!(html.contains("Filler 49"), "{html}");
    assert!(!html.contains("#1 &lt;script"), "newest first, 50 a page");
    let next = section(&html, r#"rel="next""#);
    let href = html[..html.len() - next.len()]
        .rsplit("href=\"")
        .next()
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .replace("&amp;", "&");
    assert!(
        href.starts_with("/ann/mono/issues?state=open&cursor="),
        "{href}"
    );
    let html = w.ok_page(&ann, &href).await;
    assert!(html.contains("#1 &lt;script"), "{html}");
    assert!(html.contains("First page"), "{html}");
    assert!(!html.contains(r#"rel="next""#), "{html}");

    // Bob is not a member: the same 404 page as for what does not exist.
    let bob = w.sign_in("bob").await;
    let (status, html) = w.page(Some(&bob), "/ann/mono/issues").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("There is nothing here you can see"), "{html}");
    assert!(!html.contains("Second issue"));
    let (status, _) = w.page(Some(&ann), "/ann/nothing/issues").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn an_issue_shows_its_timeline_forms_and_reactions() {
    let w = World::new().await;
    w.push_branch("feat/x");
    w.api(
        Method::POST,
        "/issues",
        Some(
            json!({"title": XSS, "body": "Some **bold** words <script>evil()</script>",
            "link": [{"repo": "app", "branch": "feat/x"}]}),
        ),
    )
    .await;
    let comment = w
        .api(
            Method::POST,
            "/issues/1/comments",
            Some(json!({"body": "a *comment* <img src=x onerror=alert(2)>"})),
        )
        .await;
    let comment_id = comment["id"].as_i64().unwrap();
    w.api(
        Method::PATCH,
        "/issues/1",
        Some(json!({"labels": {"add": ["bug"]}, "assignees": {"add": ["ann"]}})),
    )
    .await;
    w.api(Method::PUT, "/issues/1/reactions/+1", None).await;
    w.api(
        Method::PUT,
        &format!("/issues/1/comments/{comment_id}/reactions/heart"),
        None,
    )
    .await;

    let r = w.get(None, "/ann/mono/issues/1").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    signed_out_goes_to_sign_in(
        r.headers()[header::LOCATION].to_str().unwrap(),
        "/ann/mono/issues/1",
    );

    let ann = w.sign_in("ann").await;
    let html = w.ok_page(&ann, "/ann/mono/issues/1").await;
    // The title is text in the heading and the page's title.
    assert!(
        html.contains(r#"<span class="issue-title">&lt;script&gt;alert(1)&lt;/script&gt;</span>"#),
        "{html}"
    );
    assert!(html.contains("<title>#1 &lt;script&gt;"), "{html}");
    assert!(!html.contains("<script>alert(1)"), "{html}");
    // Markdown rendered, scripts and handlers gone.
    assert!(html.contains("<strong>bold</strong>"), "{html}");
    assert!(html.contains("<em>comment</em>"), "{html}");
    assert!(
        !html.contains("evil()</script>") && !html.contains("<script>evil"),
        "{html}"
    );
    // The handler is gone from the rendered comment; its Markdown in the author's edit
    // form is text.
    assert!(!html.contains("<img src=x onerror"), "{html}");
    assert!(
        !html
            .replace("&lt;img src=x onerror", "")
            .contains("onerror"),
        "{html}"
    );
    // State, labels, assignees, the linked branch (its slash as %2F).
    assert!(
        html.contains(r#"<span class="badge open" id="issue-state">open</span>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"href="/ann/mono/issues?state=all&amp;labels=bug">bug</a>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<span class="person">ann</span>"#),
        "{html}"
    );
    assert!(
        html.contains(
            r#"<a class="branch-link" href="/ann/mono/-/app/branches/feat%2Fx">app:feat/x</a>"#
        ),
        "{html}"
    );
    // The timeline: the comment, then events as short lines.
    let timeline = section(&html, r#"id="timeline""#);
    let c = timeline.find("<em>comment</em>").unwrap();
    let l = timeline.find("added the label bug").unwrap();
    assert!(c < l, "oldest first");
    assert!(timeline.contains("assigned ann"), "{timeline}");
    assert!(
        timeline.contains(&format!(r#"data-comment="{comment_id}""#)),
        "{timeline}"
    );
    // Reactions with their counts and the routes to toggle them.
    assert!(
        html.contains(r#"data-react="/v1/monorepos/ann/mono/issues/1/reactions" data-content="+1" aria-pressed="true" aria-label="+1: 1, yours""#),
        "{html}"
    );
    assert!(
        html.contains(&format!(
            r#"data-react="/v1/monorepos/ann/mono/issues/1/comments/{comment_id}/reactions" data-content="heart" aria-pressed="true""#
        )),
        "{html}"
    );
    // The comment form and the close button.
    assert!(
        html.contains(r#"<form id="comment-form" class="stack" method="post" action="/ann/mono/issues/1/comments" data-api="comment" data-method="POST" data-path="/v1/monorepos/ann/mono/issues/1/comments">"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<textarea id="comment-body" name="body""#),
        "{html}"
    );
    assert!(html.contains(r#"id="close-issue""#), "{html}");
    assert!(!html.contains(r#"id="reopen-issue""#), "{html}");
    assert!(html.contains(r#"data-live-issue="1""#), "{html}");

    // Closed, it offers reopening and says why; the timeline says who closed it.
    w.api(
        Method::PATCH,
        "/issues/1",
        Some(json!({"state": "closed", "state_reason": "not_planned"})),
    )
    .await;
    let html = w.ok_page(&ann, "/ann/mono/issues/1").await;
    assert!(html.contains(r#"id="reopen-issue""#), "{html}");
    assert!(html.contains("closed · not planned"), "{html}");
    assert!(html.contains("closed this as not planned"), "{html}");

    // A long timeline: the newest items, and a way to the first.
    for i in 0..60 {
        w.api(
            Method::POST,
            "/issues/1/comments",
            Some(json!({"body": format!("note {i}")})),
        )
        .await;
    }
    let html = w.ok_page(&ann, "/ann/mono/issues/1").await;
    assert!(html.contains("note 59"), "{html}");
    assert!(!html.contains("<em>comment</em>"), "{html}");
    assert!(
        html.contains(r#"href="/ann/mono/issues/1?after=0">From the first</a>"#),
        "{html}"
    );
    let html = w.ok_page(&ann, "/ann/mono/issues/1?after=0").await;
    assert!(html.contains("<em>comment</em>"), "{html}");
    assert!(html.contains(r#"rel="next">Later</a>"#), "{html}");

    // Nothing else is an issue; bob sees none of it.
    for path in [
        "/ann/mono/issues/99",
        "/ann/mono/issues/abc",
        "/ann/mono/issues/0",
    ] {
        let (status, html) = w.page(Some(&ann), path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(html.contains("There is nothing here you can see"), "{html}");
    }
    let bob = w.sign_in("bob").await;
    let (status, html) = w.page(Some(&bob), "/ann/mono/issues/1").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(!html.contains("alert(1)"), "{html}");
}

fn part(name: &str, bytes: &[u8]) -> Part {
    Part::bytes(bytes.to_vec()).file_name(name.to_owned())
}

#[tokio::test]
async fn the_artifact_viewer_frames_the_document_beside_its_threads() {
    let w = World::new().await;
    w.push_branch("feat/docs");
    let arts = format!("{M}/repos/app/branches/feat%2Fdocs/artifacts");
    for doc in [
        &b"# Design\n\nThe plan text.\n"[..],
        b"# Design v2\n\nThe plan text, again.\n",
    ] {
        let r = w
            .app
            .as_user(Method::POST, &arts, &w.token)
            .multipart(Form::new().part("file", part("design.md", doc)))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
    }
    let threads = "/repos/app/branches/feat%2Fdocs/artifacts/design.md/comments";
    let first = w
        .api(
            Method::POST,
            threads,
            Some(json!({"body": "Why **this**?", "quote": "plan text", "version": 1})),
        )
        .await;
    let root = first["id"].as_str().unwrap().to_owned();
    w.api(
        Method::POST,
        threads,
        Some(json!({"body": "Because.", "in_reply_to": root})),
    )
    .await;
    w.api(
        Method::PATCH,
        &format!("/repos/app/artifact-comments/{root}"),
        Some(json!({"state": "resolved"})),
    )
    .await;
    w.api(Method::POST, threads, Some(json!({"body": XSS})))
        .await;
    w.api(
        Method::POST,
        threads,
        Some(json!({"body": "and `code`", "quote": XSS})),
    )
    .await;

    let page = "/ann/mono/-/app/branches/feat%2Fdocs/artifacts/design.md";
    let r = w.get(None, page).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    signed_out_goes_to_sign_in(r.headers()[header::LOCATION].to_str().unwrap(), page);

    let ann = w.sign_in("ann").await;
    let r = w.get(Some(&ann), page).await;
    let csp = r.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("frame-src 'self'"), "{csp}");
    let html = entities(&r.text().await.unwrap());
    assert!(html.len() < 100 * 1024);
    // The newest version, framed sandboxed from this server's own address.
    let frame_src = format!("{page}/versions/2/document");
    assert!(
        html.contains(&format!(
            r#"<iframe class="document" id="document" sandbox="allow-same-origin" src="{frame_src}""#
        )),
        "{html}"
    );
    assert!(
        html.contains(r#"href="/ann/mono/-/app/branches/feat%2Fdocs">app:feat/docs</a>"#),
        "{html}"
    );
    assert!(html.contains(&format!(r#"href="{page}?v=1""#)), "{html}");
    // The forms: a quote field, the selection button (shown by the script), a body.
    assert!(html.contains(r#"<form id="thread-form""#), "{html}");
    assert!(
        html.contains(&format!(
            r#"data-path="{M}/repos/app/branches/feat%2Fdocs/artifacts/design.md/comments""#
        )),
        "{html}"
    );
    assert!(
        html.contains(r#"<textarea id="quote" name="quote""#),
        "{html}"
    );
    assert!(
        html.contains(r#"<button type="button" id="comment-selection" hidden>"#),
        "{html}"
    );
    // Threads: the quote, Markdown, the reply, the resolved state and its reopen button.
    let thread = section(&html, &format!(r#"id="thread-{root}""#));
    assert!(
        thread.starts_with(&format!(r#"id="thread-{root}" data-thread="{root}">"#))
            || thread.contains("resolved"),
        "{thread}"
    );
    assert!(
        thread.contains(r#"<blockquote class="quote">plan text</blockquote>"#),
        "{thread}"
    );
    assert!(thread.contains("<strong>this</strong>"), "{thread}");
    assert!(thread.contains("Because."), "{thread}");
    assert!(
        thread.contains(r#"<span class="badge resolved">resolved</span>"#),
        "{thread}"
    );
    assert!(thread.contains("on v1"), "{thread}");
    assert!(thread.contains(r#"class="reopen-thread""#), "{thread}");
    assert!(
        thread.contains(&format!(r#"name="in_reply_to" value="{root}""#)),
        "{thread}"
    );
    assert!(html.contains("2 open · 3 threads"), "{html}");
    // User text stays text: a body's script is dropped, a quote's shows as text.
    assert!(!html.contains("<script>alert(1)"), "{html}");
    assert!(
        html.contains(
            r#"<blockquote class="quote">&lt;script&gt;alert(1)&lt;/script&gt;</blockquote>"#
        ),
        "{html}"
    );
    assert!(html.contains("<code>code</code>"), "{html}");
    assert!(
        html.contains(r#"data-artifact-key="app/feat/docs/design.md""#),
        "{html}"
    );

    // An older version.
    let html = w.ok_page(&ann, &format!("{page}?v=1")).await;
    assert!(
        html.contains(&format!(r#"src="{page}/versions/1/document""#)),
        "{html}"
    );
    assert!(html.contains("This is an older version."), "{html}");
    let (status, _) = w.page(Some(&ann), &format!("{page}?v=9")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // The framed document: same bytes as the API's, a policy for this frame only.
    let r = w.get(Some(&ann), &frame_src).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        r.headers()[header::CONTENT_SECURITY_POLICY],
        "sandbox allow-same-origin; default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'self'"
    );
    assert_eq!(r.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert!(
        r.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let doc = r.text().await.unwrap();
    assert!(doc.contains("Design v2"), "{doc}");

    // Bob, an outsider, and a missing artifact: the 404 page; the frame answers nothing.
    let bob = w.sign_in("bob").await;
    let (status, html) = w.page(Some(&bob), page).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("There is nothing here you can see"), "{html}");
    assert!(!html.contains("plan text"));
    let r = w.get(Some(&bob), &frame_src).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(!r.text().await.unwrap().contains("Design"));
    let (status, _) = w
        .page(
            Some(&ann),
            "/ann/mono/-/app/branches/feat%2Fdocs/artifacts/none.md",
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
