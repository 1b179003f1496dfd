//! The monorepo page and code browsing on the web: `/{owner}/{monorepo}`,
//! `/-/{repo}/tree|blob|commits/{ref}/{path}`, `/-/{repo}/commit/{sha}` and
//! `/-/{repo}/releases`, as HTML, for the monorepo's members only.

use std::path::PathBuf;

use reqwest::{Method, StatusCode, header};
use serde_json::json;
use svc_tests::TestApp;
use svc_tests::git::Git;

const PASSWORD: &str = "correct horse";
const M: &str = "/v1/monorepos/ann/mono";

/// ann (who signs in with a password), `ann/mono` with repo `app` (main pushed, branch
/// `feature/x` open) and an empty repo `empty`.
struct World {
    app: TestApp,
    token: String,
    git: Git,
    work: PathBuf,
    main: String,
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
        app.repo(&token, "ann/mono", "empty").await;
        let git = Git::new(&token);
        git.ok(git.home.path(), &["clone", "-q", &url, "work"]);
        let work = git.path("work");
        let long: String = (1..=3000).map(|n| format!("line number {n}\n")).collect();
        let mut binary = b"\x89PNG\r\n\x1a\n".to_vec();
        binary.extend([0u8; 64]);
        let huge = vec![b'a'; 600 * 1024];
        git.commit(
            &work,
            "First <b>commit</b>",
            &[
                (
                    "README.md",
                    b"# Hello app\n\nSome **bold** words. <script>alert(1)</script>\n",
                ),
                (
                    "src/main.rs",
                    b"fn main() {\n    println!(\"<script>alert(1)</script>\");\n}\n",
                ),
                ("dir with space/a&b.txt", b"x\n"),
                ("long.txt", long.as_bytes()),
                ("logo.png", &binary),
                ("huge.txt", &huge),
            ],
        );
        for n in 1..=55 {
            git.commit(
                &work,
                &format!("Count {n}"),
                &[("count.txt", format!("{n}\n").as_bytes())],
            );
        }
        let main = git.ok(&work, &["rev-parse", "HEAD"]).trim().to_owned();
        git.ok(&work, &["push", "-q", "origin", "HEAD:main"]);
        git.ok(&work, &["checkout", "-q", "-b", "feature/x"]);
        git.commit(
            &work,
            "Add feature",
            &[("feature.txt", b"only on the branch\n")],
        );
        git.ok(&work, &["push", "-q", "origin", "feature/x"]);
        let w = World {
            app,
            token,
            git,
            work,
            main,
        };
        let r = w
            .api(Method::PATCH, "/repos/app/branches/feature%2Fx")
            .json(&json!({"title": "<script>alert(1)</script> title"}))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.status());
        let r = w
            .api(Method::POST, &format!("/repos/app/statuses/{}", w.main))
            .json(&json!({"context": "ci/test", "state": "success"}))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.status());
        w
    }

    fn api(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.app.as_user(method, &format!("{M}{path}"), &self.token)
    }

    /// Signs `login` in with the password; answers the session cookie pair.
    async fn sign_in(&self, login: &str) -> String {
        self.app.sign_in(login, PASSWORD).await
    }

    /// GETs a page without following redirects: status, `Location`, body.
    async fn get(&self, cookie: Option<&str>, path: &str) -> (StatusCode, String, String) {
        let r = self.app.get_page(cookie, path).await;
        let status = r.status();
        let location = r
            .headers()
            .get(header::LOCATION)
            .map(|l| l.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (status, location, r.text().await.unwrap())
    }

    /// A page that must answer 200, small enough.
    async fn page(&self, cookie: &str, path: &str) -> String {
        let (status, _, html) = self.get(Some(cookie), path).await;
        assert_eq!(status, StatusCode::OK, "{path}: {html}");
        assert!(html.len() < 100 * 1024, "{path} is {} bytes", html.len());
        assert!(!html.contains("<script>alert"), "{path}: {html}");
        html
    }
}

/// `text` as the pages escape it.
fn esc(text: &str) -> String {
    text.replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

/// The href values of `<a>`s in `html` that start with `prefix`.
fn links(html: &str, prefix: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|h| h.starts_with(prefix))
        .map(|h| h.replace("&amp;", "&").replace("&#38;", "&"))
        .collect()
}

#[tokio::test]
async fn the_monorepo_page_shows_repos_branches_activity_and_machines() {
    let w = World::new().await;
    let r = w
        .api(Method::PUT, "/worktrees/wt-1")
        .json(&json!({"repo": "app", "branch": "feature/x", "machine": "laptop-1"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let cookie = w.sign_in("ann").await;

    let html = w.page(&cookie, "/ann/mono").await;
    // Repos with main's checks.
    assert!(
        html.contains(r#"<a href="/ann/mono/-/app">app</a>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<a href="/ann/mono/-/empty">empty</a>"#),
        "{html}"
    );
    assert!(html.contains(&w.main[..8]), "{html}");
    assert!(html.contains("ci/test"), "{html}");
    assert!(
        html.contains(r#"<span class="badge success">success</span>"#),
        "{html}"
    );
    // The open branch, its title as text.
    assert!(
        html.contains(r#"href="/ann/mono/-/app/branches/feature%2Fx">app:feature/x</a>"#),
        "{html}"
    );
    assert!(
        html.contains(&esc("<script>alert(1)</script> title")),
        "{html}"
    );
    // Activity and machines.
    assert!(html.contains("ann pushed"), "{html}");
    assert!(html.contains("laptop-1"), "{html}");
    // The live refresh of the branch list.
    assert!(
        html.contains(r#"data-refresh-on="push,branch.opened,merged,branch.deleted""#),
        "{html}"
    );
    assert!(html.contains(r#"data-monorepo="ann/mono""#), "{html}");
    for id in ["repos", "branches", "monorepo-activity", "machines"] {
        assert!(html.contains(&format!(r#"id="{id}""#)), "{id}: {html}");
    }

    // Another push shows on the next read.
    w.git
        .ok(&w.work, &["checkout", "-q", "-b", "second", "origin/main"]);
    w.git.commit(&w.work, "Second", &[("second.txt", b"2\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "second"]);
    let html = w.page(&cookie, "/ann/mono").await;
    assert!(html.contains("app:second"), "{html}");
    // The current label answers the name in any case.
    let (status, location, _) = w.get(Some(&cookie), "/ANN/Mono").await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(location, "/ann/mono");
}

#[tokio::test]
async fn folders_list_entries_with_their_last_commits() {
    let w = World::new().await;
    let cookie = w.sign_in("ann").await;

    // The repo's page is main's root, with its clone URL to select or copy.
    let html = w.page(&cookie, "/ann/mono/-/app").await;
    assert!(html.contains(r#"id="tree""#), "{html}");
    let clone_url = w.app.get_json(&w.token, &format!("{M}/repos/app")).await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let field = format!(
        r#"<input id="clone-url" class="mono" type="text" readonly value="{}""#,
        esc(&clone_url)
    );
    assert!(html.contains(&field), "{field} in {html}");
    assert!(
        html.contains(r#"<button type="button" data-copy="clone-url""#),
        "{html}"
    );
    assert!(
        html.contains(r#"<link rel="icon" href="/favicon.ico">"#),
        "{html}"
    );
    assert!(
        html.contains(r#"href="/ann/mono/-/app/tree/main/src">src/</a>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"href="/ann/mono/-/app/tree/main/dir%20with%20space">dir with space/</a>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"href="/ann/mono/-/app/blob/main/README.md">README.md</a>"#),
        "{html}"
    );
    // Last commits: the count file's is the newest, the others the first (as text).
    assert!(html.contains("Count 55"), "{html}");
    assert!(html.contains(&esc("First <b>commit</b>")), "{html}");
    // The README, rendered and sanitized.
    assert!(html.contains("<h1>Hello app</h1>"), "{html}");
    assert!(html.contains("<strong>bold</strong>"), "{html}");
    let at_main = w.page(&cookie, "/ann/mono/-/app/tree/main").await;
    assert!(
        at_main.contains(r#"href="/ann/mono/-/app/tree/main/src">src/</a>"#),
        "{at_main}"
    );

    // A folder, with the way up; a folder with a space in its name.
    let html = w.page(&cookie, "/ann/mono/-/app/tree/main/src").await;
    assert!(
        html.contains(r#"href="/ann/mono/-/app/blob/main/src/main.rs">main.rs</a>"#),
        "{html}"
    );
    assert!(html.contains(r#"aria-label="Parent folder""#), "{html}");
    let html = w
        .page(&cookie, "/ann/mono/-/app/tree/main/dir%20with%20space")
        .await;
    assert!(
        html.contains(
            r#"href="/ann/mono/-/app/blob/main/dir%20with%20space/a%26b.txt">a&#38;b.txt</a>"#
        ),
        "{html}"
    );

    // A branch with a slash travels as one segment.
    let html = w.page(&cookie, "/ann/mono/-/app/tree/feature%2Fx").await;
    assert!(
        html.contains(r#"href="/ann/mono/-/app/blob/feature%2Fx/feature.txt">feature.txt</a>"#),
        "{html}"
    );
    let html = w
        .page(&cookie, &format!("/ann/mono/-/app/tree/{}", w.main))
        .await;
    assert!(!html.contains("feature.txt"), "{html}");

    // A file's path goes to its page; what is not there is the 404 page.
    let (status, location, _) = w
        .get(Some(&cookie), "/ann/mono/-/app/tree/main/src/main.rs")
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(location, "/ann/mono/-/app/blob/main/src/main.rs");
    for path in [
        "/ann/mono/-/app/tree/main/nothing",
        "/ann/mono/-/app/tree/no-such-branch",
        "/ann/mono/-/nothing",
    ] {
        let (status, _, html) = w.get(Some(&cookie), path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(
            html.contains("There is nothing here you can see"),
            "{path}: {html}"
        );
    }

    // An empty repo says how to fill it.
    let html = w.page(&cookie, "/ann/mono/-/empty").await;
    assert!(html.contains(r#"id="empty-repo""#), "{html}");
    assert!(html.contains(r#"id="clone-url""#), "{html}");
    // A folder below the root shows no clone box.
    let html = w.page(&cookie, "/ann/mono/-/app/tree/main/src").await;
    assert!(!html.contains(r#"id="clone-url""#), "{html}");
}

#[tokio::test]
async fn files_show_numbered_lines_or_a_notice() {
    let w = World::new().await;
    let cookie = w.sign_in("ann").await;

    let html = w
        .page(&cookie, "/ann/mono/-/app/blob/main/src/main.rs")
        .await;
    assert!(
        html.contains(
            r##"<tr id="L1"><td class="n"><a href="#L1">1</a></td><td>fn main() {</td></tr>"##
        ),
        "{html}"
    );
    assert!(html.contains(r#"id="L3""#), "{html}");
    assert!(
        !html.contains(r#"id="L4""#),
        "no line after the last newline: {html}"
    );
    assert!(html.contains(&esc("<script>alert(1)</script>")), "{html}");
    assert!(
        html.contains(r#"href="/ann/mono/-/app/commits/main/src/main.rs""#),
        "{html}"
    );
    // Raw: the bytes, with the session.
    let raw = links(&html, "/v1/monorepos/ann/mono/repos/app/file?");
    assert_eq!(raw.len(), 1, "{html}");
    let r = w
        .app
        .request(Method::GET, &raw[0])
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.text().await.unwrap().starts_with("fn main()"));

    // Binary and huge files: a notice with the download.
    let html = w.page(&cookie, "/ann/mono/-/app/blob/main/logo.png").await;
    assert!(html.contains("This is a binary file"), "{html}");
    assert!(!html.contains(r#"id="L1""#), "{html}");
    assert_eq!(
        links(&html, "/v1/monorepos/ann/mono/repos/app/file?").len(),
        2
    );
    let html = w.page(&cookie, "/ann/mono/-/app/blob/main/huge.txt").await;
    assert!(html.contains("too large to show"), "{html}");
    assert!(!html.contains("aaaaaaaa"), "{html}");

    // A long file comes in pages of lines, each under the size cap.
    let html = w.page(&cookie, "/ann/mono/-/app/blob/main/long.txt").await;
    assert!(html.contains(r#"id="L1""#), "{html}");
    assert!(!html.contains(r#"id="L3000""#), "{html}");
    assert!(html.contains(r#"data-lines="3000""#), "{html}");
    let mut next = links(&html, "/ann/mono/-/app/blob/main/long.txt?from=");
    let mut seen = 1;
    while let Some(href) = next.first().cloned() {
        let html = w.page(&cookie, &href).await;
        let from: usize = href.rsplit('=').next().unwrap().parse().unwrap();
        assert!(html.contains(&format!(r#"id="L{from}""#)), "{href}: {html}");
        assert!(html.contains(r#"rel="prev""#), "{href}");
        next = links(&html, "/ann/mono/-/app/blob/main/long.txt?from=")
            .into_iter()
            .filter(|h| h.rsplit('=').next().unwrap().parse::<usize>().unwrap() > from)
            .collect();
        if next.is_empty() {
            assert!(html.contains(r#"id="L3000""#), "{href}: {html}");
        }
        seen += 1;
        assert!(seen < 20);
    }
    assert!(seen > 1);

    // At a branch, and the 404 page for a file that is not there.
    let html = w
        .page(&cookie, "/ann/mono/-/app/blob/feature%2Fx/feature.txt")
        .await;
    assert!(html.contains("only on the branch"), "{html}");
    let (status, _, _) = w
        .get(Some(&cookie), "/ann/mono/-/app/blob/main/feature.txt")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn history_pages_through_the_commits_of_a_path() {
    let w = World::new().await;
    let cookie = w.sign_in("ann").await;

    let html = w
        .page(&cookie, "/ann/mono/-/app/commits/main/count.txt")
        .await;
    assert!(html.contains("Count 55"), "{html}");
    assert!(html.contains("Count 6<"), "{html}");
    assert!(!html.contains("Count 5<"), "{html}");
    assert!(!html.contains("First"), "{html}");
    let older = links(&html, "/ann/mono/-/app/commits/main/count.txt?next=");
    assert_eq!(older.len(), 1, "{html}");
    let html = w.page(&cookie, &older[0]).await;
    assert!(html.contains("Count 5<"), "{html}");
    assert!(html.contains("Count 1<"), "{html}");
    assert!(!html.contains("Count 6<"), "{html}");
    assert!(links(&html, "/ann/mono/-/app/commits/main/count.txt?next=").is_empty());

    // The whole repo's, at a branch; a commit's title is text.
    let html = w.page(&cookie, "/ann/mono/-/app/commits/feature%2Fx").await;
    assert!(html.contains("Add feature"), "{html}");
    assert!(html.contains(r#"id="history""#), "{html}");
    let html = w
        .page(&cookie, "/ann/mono/-/app/commits/main/README.md")
        .await;
    assert!(html.contains(&esc("First <b>commit</b>")), "{html}");
}

#[tokio::test]
async fn a_commit_page_shows_its_message_checks_and_diff() {
    let w = World::new().await;
    let cookie = w.sign_in("ann").await;
    let root = w
        .git
        .ok(&w.work, &["rev-list", "--max-parents=0", "HEAD"])
        .trim()
        .to_owned();
    let parent = w
        .git
        .ok(&w.work, &["rev-parse", "main~1"])
        .trim()
        .to_owned();
    let page = |sha: &str| format!("/ann/mono/-/app/commit/{sha}");

    // Main's head: its title, author, parent, the check on it and its one-file diff.
    let html = w.page(&cookie, &page(&w.main)).await;
    assert!(html.contains("<h1>Count 55</h1>"), "{html}");
    assert_eq!(links(&html, &page(&parent)).len(), 1, "{html}");
    assert!(html.contains(r#"data-context="ci/test""#), "{html}");
    assert!(
        html.contains(r#"<span class="badge success">success</span>"#),
        "{html}"
    );
    assert!(html.contains(r#"data-path="count.txt""#), "{html}");
    assert!(
        html.contains("<td>-54</td>") && html.contains("<td>+55</td>"),
        "{html}"
    );
    assert!(
        !html.contains("README.md"),
        "only the commit's own changes: {html}"
    );
    assert!(!links(&html, &format!("/ann/mono/-/app/tree/{}", w.main)).is_empty());

    // The first commit: every file added, its title escaped, no parent.
    let html = w.page(&cookie, &page(&root)).await;
    assert!(html.contains(&esc("First <b>commit</b>")), "{html}");
    assert!(html.contains("none: the first commit"), "{html}");
    for path in ["README.md", "src/main.rs", "logo.png"] {
        assert!(
            html.contains(&format!(r#"data-path="{path}""#)),
            "{path}: {html}"
        );
    }

    // A commit with svc's trailers shows its agent, worktree and machine.
    w.git.ok(&w.work, &["checkout", "-q", "-b", "traced"]);
    let message = "Traced change\n\nWhy it changed.\n\nSvc-Agent: agent-7\nSvc-Worktree: wt-9\nSvc-Machine: laptop-2";
    w.git.commit(&w.work, message, &[("traced.txt", b"t\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "traced"]);
    let traced = w.git.ok(&w.work, &["rev-parse", "HEAD"]).trim().to_owned();
    let html = w.page(&cookie, &page(&traced)).await;
    assert!(html.contains("(agent agent-7)"), "{html}");
    assert!(
        html.contains("<code>wt-9</code>") && html.contains("laptop-2"),
        "{html}"
    );
    assert!(html.contains("Why it changed."), "{html}");

    // History and the tree's latest commit link to it; a sha that is none is the 404 page.
    let html = w.page(&cookie, "/ann/mono/-/app/commits/main").await;
    assert_eq!(links(&html, &page(&w.main)).len(), 1, "{html}");
    let html = w.page(&cookie, "/ann/mono/-/app/tree/main").await;
    assert!(!links(&html, &page(&w.main)).is_empty(), "{html}");
    for bad in ["1".repeat(40), w.main[..10].to_owned()] {
        let (status, _, html) = w.get(Some(&cookie), &page(&bad)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{bad}: {html}");
    }
}

#[tokio::test]
async fn releases_list_their_notes_and_files() {
    let w = World::new().await;
    let r = w
        .api(Method::POST, "/repos/app/releases?force=1")
        .json(
            &json!({"tag": "v1.0", "title": "<script>alert(1)</script> One",
            "notes": "Now **faster**. <script>alert(1)</script>"}),
        )
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
        .api(Method::PUT, "/repos/app/releases/v1.0/files/app.tar.gz")
        .body(b"tarball".to_vec())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let cookie = w.sign_in("ann").await;

    let html = w.page(&cookie, "/ann/mono/-/app/releases").await;
    assert!(html.contains(r#"data-tag="v1.0""#), "{html}");
    assert!(
        html.contains(&esc("<script>alert(1)</script> One")),
        "{html}"
    );
    assert!(html.contains("<strong>faster</strong>"), "{html}");
    assert!(html.contains("app.tar.gz"), "{html}");
    assert!(html.contains("7 bytes"), "{html}");
    let download = html
        .split("class=\"download\" href=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(
        download.ends_with("/v1/monorepos/ann/mono/repos/app/releases/v1.0/files/app.tar.gz"),
        "{download}"
    );
    // The monorepo page names the latest release.
    let html = w.page(&cookie, "/ann/mono").await;
    assert!(
        html.contains(r#"href="/ann/mono/-/app/releases">v1.0</a>"#),
        "{html}"
    );
}

#[tokio::test]
async fn outsiders_get_the_404_page_and_strangers_the_sign_in() {
    let w = World::new().await;
    w.app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob", "password": PASSWORD}))
        .await;
    let bob = w.sign_in("bob").await;
    let pages = [
        "/ann/mono",
        "/ann/mono/-/app",
        "/ann/mono/-/app/tree/main/src",
        "/ann/mono/-/app/blob/main/README.md",
        "/ann/mono/-/app/commits/main",
        "/ann/mono/-/app/releases",
    ];
    let commit = format!("/ann/mono/-/app/commit/{}", w.main);
    let pages = pages.iter().copied().chain([commit.as_str()]);
    for path in pages {
        let (status, _, html) = w.get(Some(&bob), path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(
            html.contains("There is nothing here you can see"),
            "{path}: {html}"
        );
        assert!(!html.contains("Hello app"), "{path}");
        let (status, location, _) = w.get(None, path).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{path}");
        assert!(
            location.starts_with("/v1/login/browser?return_to=%2Fann%2Fmono"),
            "{location}"
        );
    }
    // The API's unknown paths keep the API's answer.
    let r = w
        .app
        .request(Method::GET, "/v1/nothing")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}
