//! Agent sessions in the web: the sessions list, a session's page with its transcript
//! (live while it runs), its send and stop forms for those the API allows, "Launch an
//! agent" on a branch page, "Address with an agent" on an issue page, and the person's
//! chats. The runner is a shell script speaking `svc-jsonl`; the forms are plain POSTs.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::browser::Browser;
use svc_tests::git::Git;

use crate::agents::script;

const PASSWORD: &str = "correct horse";
const M: &str = "/v1/monorepos/ann/mono";
const BRANCH_PAGE: &str = "/ann/mono/-/app/branches/feat";
const XSS: &str = "<script>alert(1)</script>";

/// The agent: told a follow-up, it says so; told to take its time, it says it works,
/// waits for branch `go` to appear (the test's signal), says so again and works on until
/// stopped; else it thinks, talks, calls a tool and gets its result.
const RUNNER: &str = r#"#!/bin/sh
told=$(cat)
say() { printf '{"role":"assistant","parts":[{"type":"text","text":"%s"}]}\n' "$1"; }
case "$told" in
*"Also add tests"*)
  say "Round 2 saw the follow-up."
  exit 0;;
*"Take your time"*)
  say "Working slowly."
  until curl -sf -o /dev/null -H "Authorization: Bearer $SVC_TOKEN" "$SVC_SERVER/v1/monorepos/$SVC_MONOREPO/repos/$SVC_REPO/branches/go"; do sleep 0.2; done
  say "Still working."
  sleep 120
  exit 0;;
esac
echo '{"role":"assistant","parts":[{"type":"thinking","text":"Where is the bug?"},{"type":"text","text":"I will **fix** it."}]}'
echo '{"role":"assistant","parts":[{"type":"tool-call","id":"c1","name":"Bash","input":{"command":"cat README.md"}}]}'
echo "{\"role\":\"tool\",\"parts\":[{\"type\":\"tool-result\",\"id\":\"c1\",\"output\":\"$(cat README.md 2>/dev/null)\",\"is_error\":false}]}"
say "Done."
"#;

/// ann (owner) and bob (member) of `ann/mono` with repo `app` (main and branch `feat`),
/// carol outside it; all sign in with a password. One model, `m`, runs [`RUNNER`].
struct World {
    app: TestApp,
    ann: String,
    bob: String,
    git: Git,
    work: PathBuf,
    _runner: tempfile::TempDir,
}

impl World {
    async fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let program = script(dir.path(), "runner", RUNNER);
        let settings = crate::agents::settings(&program, "svc-jsonl", "");
        let app = TestApp::builder().agents(&settings).start().await;
        let mut tokens = Vec::new();
        for login in ["ann", "bob", "carol"] {
            let token = app
                .bootstrap(
                    json!({"email": format!("{login}@example.com"), "login": login,
                                  "password": PASSWORD}),
                )
                .await
                .credential
                .token;
            tokens.push(token);
        }
        let (ann, bob) = (tokens[0].clone(), tokens[1].clone());
        app.monorepo(&ann, json!({"name": "mono"})).await;
        let r = app
            .as_user(Method::PUT, &format!("{M}/members/bob"), &ann)
            .json(&json!({"role": "member"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let url = app.repo(&ann, "ann/mono", "app").await["clone_url"]
            .as_str()
            .unwrap()
            .to_owned();
        let git = Git::new(&ann);
        git.ok(git.home.path(), &["clone", "-q", &url, "work"]);
        let work = git.path("work");
        git.commit(&work, "First", &[("README.md", b"hello\n")]);
        git.ok(&work, &["push", "-q", "origin", "HEAD:main"]);
        git.ok(&work, &["checkout", "-q", "-b", "feat"]);
        git.commit(&work, "Feature", &[("f.txt", b"f\n")]);
        git.ok(&work, &["push", "-q", "origin", "feat"]);
        World {
            app,
            ann,
            bob,
            git,
            work,
            _runner: dir,
        }
    }

    /// Pushes branch `go`, the signal a runner taking its time waits for.
    fn go(&self) {
        self.git
            .ok(&self.work, &["push", "-q", "origin", "feat:go"]);
    }

    async fn cookie(&self, login: &str) -> String {
        self.app.sign_in(login, PASSWORD).await
    }

    async fn page(&self, cookie: &str, path: &str) -> (StatusCode, String) {
        let r = self.app.get_page(Some(cookie), path).await;
        let status = r.status();
        (status, r.text().await.unwrap())
    }

    /// A form POST as a browser sends it (with this site's `Origin` unless `origin` is
    /// none); answers the status and the redirect's target.
    async fn post_form(
        &self,
        cookie: &str,
        path: &str,
        origin: Option<&str>,
        form: &[(&str, &str)],
    ) -> (StatusCode, Option<String>) {
        let r = match origin {
            Some(o) => self.app.post_form(cookie, o, path, form).await,
            None => self
                .app
                .request(Method::POST, path)
                .header(header::COOKIE, cookie)
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(
                    url::form_urlencoded::Serializer::new(String::new())
                        .extend_pairs(form)
                        .finish(),
                )
                .send()
                .await
                .unwrap(),
        };
        let to = r
            .headers()
            .get(header::LOCATION)
            .map(|v| v.to_str().unwrap().to_owned());
        (r.status(), to)
    }

    async fn session(&self, token: &str, id: &str) -> Value {
        self.app.get_json(token, &format!("{M}/agents/{id}")).await
    }

    /// Polls the session until `done` holds of it.
    async fn until(&self, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let s = self.session(&self.ann, id).await;
            if done(&s) {
                return s;
            }
            assert!(Instant::now() < deadline, "session {id} stays {s}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn settled(&self, id: &str) -> Value {
        self.until(id, |s| {
            !matches!(s["state"].as_str(), Some("launching" | "running"))
        })
        .await
    }

    async fn messages(&self, id: &str) -> usize {
        self.app
            .get_json(&self.ann, &format!("{M}/agents/{id}/transcript"))
            .await["items"]
            .as_array()
            .unwrap()
            .len()
    }
}

/// The session id a session page's path names.
fn id_of(path: &str) -> String {
    path.strip_prefix("/ann/mono/agents/")
        .unwrap_or_else(|| panic!("not a session page: {path}"))
        .to_owned()
}

fn esc(text: &str) -> String {
    text.replace('<', "&#60;").replace('>', "&#62;")
}

#[tokio::test]
async fn forms_launch_and_carry_on_sessions_for_those_the_api_allows() {
    let w = World::new().await;
    let (ann, bob, carol) = (
        w.cookie("ann").await,
        w.cookie("bob").await,
        w.cookie("carol").await,
    );
    let launch = format!("{BRANCH_PAGE}/agents");
    let prompt = format!("Fix {XSS} please");

    // The branch page offers the form with the server's models.
    let (status, html) = w.page(&ann, BRANCH_PAGE).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(r#"<form id="launch-form""#), "{html}");
    assert!(
        html.contains(r#"<option value="m" selected>m</option>"#),
        "{html}"
    );

    // A POST from another site (or none) is refused, and launches nothing.
    for origin in [None, Some("http://evil.example")] {
        let (status, _) = w
            .post_form(
                &ann,
                &launch,
                origin,
                &[("prompt", &prompt), ("model", "m")],
            )
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
    let none = w.app.get_json(&w.ann, &format!("{M}/agents")).await;
    assert_eq!(none["items"], json!([]), "{none}");

    let origin = w.app.origin().to_owned();
    let (status, to) = w
        .post_form(
            &ann,
            &launch,
            Some(&origin),
            &[("prompt", &prompt), ("model", "m")],
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let id = id_of(to.as_deref().unwrap());
    let s = w.settled(&id).await;
    assert_eq!(
        (
            &s["state"],
            &s["branch"],
            &s["repo"],
            &s["launcher"],
            &s["prompt"]
        ),
        (
            &json!("idle"),
            &json!("feat"),
            &json!("app"),
            &json!("ann"),
            &json!(prompt)
        ),
        "{s}"
    );

    // The launcher's page: the transcript, the prompt as text, the send form.
    let page = format!("/ann/mono/agents/{id}");
    let (status, html) = w.page(&ann, &page).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert_eq!(html.matches("<script").count(), 1, "{html}");
    assert!(html.contains(&esc(XSS)), "{html}");
    assert!(
        html.contains(r#"<details class="part thinking"><summary>Thinking</summary><div class="plain">Where is the bug?</div></details>"#),
        "{html}"
    );
    assert!(html.contains("I will <strong>fix</strong> it."), "{html}");
    assert!(html.contains(r#"data-call="c1""#), "{html}");
    assert!(
        html.contains("<pre>hello\n</pre>") || html.contains("<pre>hello</pre>"),
        "{html}"
    );
    assert!(html.contains(r#"<form id="send-form""#), "{html}");
    assert!(
        !html.contains(r#"id="stop-form""#),
        "an idle session has no run to stop"
    );
    assert!(html.contains(r#"<span class="badge idle" id="session-state">idle</span>"#));

    // bob, a member: he sees it, but only its launcher may message it; his POST is
    // refused as the API refuses it.
    let (status, html) = w.page(&bob, &page).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!html.contains(r#"id="send-form""#), "{html}");
    assert!(html.contains(r#"id="send-none""#), "{html}");
    let before = w.messages(&id).await;
    let (status, _) = w
        .post_form(
            &bob,
            &format!("{page}/messages"),
            Some(&origin),
            &[("message", "Also add tests")],
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = w
        .post_form(&bob, &format!("{page}/stop"), Some(&origin), &[])
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(w.messages(&id).await, before);

    // carol, outside: nothing here, whatever she asks.
    let (status, html) = w.page(&carol, &page).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(!html.contains("Where is the bug"), "{html}");
    let (status, _) = w
        .post_form(
            &carol,
            &format!("{page}/messages"),
            Some(&origin),
            &[("message", "Also add tests")],
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        w.page(&carol, "/ann/mono/agents").await.0,
        StatusCode::NOT_FOUND
    );

    // ann carries it on: a second round.
    let (status, to) = w
        .post_form(
            &ann,
            &format!("{page}/messages"),
            Some(&origin),
            &[("message", "Also add tests")],
        )
        .await;
    assert_eq!(
        (status, to.as_deref()),
        (StatusCode::SEE_OTHER, Some(page.as_str()))
    );
    w.until(&id, |s| s["state"] == "idle").await;
    let (_, html) = w.page(&ann, &page).await;
    assert!(html.contains("Round 2 saw the follow-up."), "{html}");

    // bob's own session, going: the owner may stop it but not message it.
    let r = w
        .app
        .as_user(Method::POST, &format!("{M}/agents"), &w.bob)
        .json(&json!({"prompt": "Take your time", "branch": "feat"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let long: Value = r.json().await.unwrap();
    let long_id = long["id"].as_str().unwrap().to_owned();
    let long_page = format!("/ann/mono/agents/{long_id}");
    w.until(&long_id, |s| s["state"] == "running").await;
    let (_, html) = w.page(&ann, &long_page).await;
    assert!(html.contains(r#"id="stop-form""#), "{html}");
    assert!(!html.contains(r#"id="send-form""#), "{html}");
    let (status, to) = w
        .post_form(&ann, &format!("{long_page}/stop"), Some(&origin), &[])
        .await;
    assert_eq!(
        (status, to.as_deref()),
        (StatusCode::SEE_OTHER, Some(long_page.as_str()))
    );
    let s = w.session(&w.ann, &long_id).await;
    assert_eq!(s["state"], "stopped", "{s}");

    // The list: both, with their branch, launcher and state; the monorepo and repo
    // pages link to it.
    let (status, html) = w.page(&bob, "/ann/mono/agents").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    for (sid, state, who) in [(&id, "idle", "ann"), (&long_id, "stopped", "bob")] {
        let row = html
            .split("<li ")
            .find(|li| li.contains(&format!("/ann/mono/agents/{sid}")))
            .unwrap_or_else(|| panic!("no row of {sid} in {html}"));
        assert!(
            row.contains(&format!(r#"<span class="badge {state}">"#)),
            "{row}"
        );
        assert!(row.contains(&format!("by {who}")), "{row}");
        assert!(row.contains(">app:feat</a>"), "{row}");
        assert!(row.contains("last activity <time"), "{row}");
    }
    assert_eq!(html.matches("<script").count(), 1, "{html}");
    let (_, other) = w.page(&bob, "/ann/mono/agents?repo=other").await;
    assert!(!other.contains(&id), "{other}");
    let (_, html) = w.page(&ann, "/ann/mono").await;
    assert!(html.contains(r#"href="/ann/mono/agents""#), "{html}");
    let (_, html) = w.page(&ann, "/ann/mono/-/app").await;
    assert!(
        html.contains(r#"href="/ann/mono/agents?repo=app""#),
        "{html}"
    );
    let (_, html) = w.page(&ann, BRANCH_PAGE).await;
    assert!(html.contains(&format!("/ann/mono/agents/{id}")), "{html}");

    // Chats: ann's own, on her chats page alone.
    let (status, to) = w
        .post_form(
            &ann,
            "/ann/mono/chats",
            Some(&origin),
            &[("message", "Where is the retry logic?"), ("model", "m")],
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let chat = id_of(to.as_deref().unwrap());
    let s = w.settled(&chat).await;
    assert_eq!(s["kind"], "chat", "{s}");
    let (_, html) = w.page(&ann, "/ann/mono/chats").await;
    assert!(html.contains(&format!("/ann/mono/agents/{chat}")), "{html}");
    assert!(html.contains("Where is the retry logic?"), "{html}");
    let (_, html) = w.page(&bob, "/ann/mono/chats").await;
    assert!(!html.contains(&chat), "{html}");
    let chat_page = format!("/ann/mono/agents/{chat}");
    assert_eq!(w.page(&bob, &chat_page).await.0, StatusCode::NOT_FOUND);
    let (status, html) = w.page(&ann, &chat_page).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Where is the retry logic?"), "{html}");
}

async fn js(browser: &Browser, script: &str) -> Value {
    browser.client.execute(script, vec![]).await.unwrap()
}

/// Waits for a session's page; answers the session's id.
async fn on_session_page(browser: &Browser) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(url) = browser.client.current_url().await
            && url.path().starts_with("/ann/mono/agents/")
        {
            return id_of(url.path());
        }
        assert!(Instant::now() < deadline, "no session page");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn in_a_browser_a_session_launches_follows_its_transcript_takes_a_message_and_stops() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let w = World::new().await;
    browser.goto(&w.app.url(BRANCH_PAGE)).await;
    browser.wait_for_path("/login").await;
    browser.fill("#login", "ann").await;
    browser.fill("#password", PASSWORD).await;
    browser.click("#f button").await;
    browser.wait_for_path(BRANCH_PAGE).await;

    // Launch from the branch page.
    browser.click("#launch-agent summary").await;
    browser
        .fill("#launch-prompt", &format!("Fix {XSS} please"))
        .await;
    browser.click("#launch-submit").await;
    let id = on_session_page(&browser).await;
    browser.wait_for_text("#session-state", "idle").await;
    browser.wait_for_text("#transcript", "I will fix it.").await;
    // The prompt, as text; no script of anyone's.
    browser
        .wait_for_text("#transcript li.message.user", &format!("Fix {XSS} please"))
        .await;
    assert_eq!(
        js(&browser, "return document.scripts.length;").await,
        json!(1)
    );
    // Thinking, folded; the tool call with its result under it.
    let thinking = js(
        &browser,
        "const d = document.querySelector('#transcript details.thinking'); return [d.open, d.textContent];",
    )
    .await;
    assert_eq!(thinking[0], json!(false), "{thinking}");
    assert!(thinking[1].as_str().unwrap().contains("Where is the bug?"));
    browser
        .wait_for_text(
            "details.tool-call[data-call='c1'] summary",
            "Bash cat README.md done",
        )
        .await;
    browser
        .click("details.tool-call[data-call='c1'] summary")
        .await;
    browser
        .wait_for_text(
            "details.tool-call[data-call='c1'] .tool-result pre",
            "hello",
        )
        .await;
    browser.screenshot(&screenshots(), "agent-session").await;

    // Carry it on: the second round appears.
    browser.fill("#send-message", "Also add tests").await;
    browser.click("#send-submit").await;
    browser
        .wait_for_text("#transcript", "Round 2 saw the follow-up.")
        .await;
    browser.wait_for_text("#session-state", "idle").await;

    // A session that takes its time: its transcript follows it on the page (no reload),
    // then it is stopped.
    browser.goto(&w.app.url(BRANCH_PAGE)).await;
    browser.click("#launch-agent summary").await;
    browser.fill("#launch-prompt", "Take your time").await;
    browser.click("#launch-submit").await;
    let long = on_session_page(&browser).await;
    assert_ne!(long, id);
    browser
        .wait_for_text("#transcript", "Working slowly.")
        .await;
    js(&browser, "window.svcStayed = true; return null;").await;
    let text = js(
        &browser,
        "return document.getElementById('transcript').textContent;",
    )
    .await;
    assert!(!text.as_str().unwrap().contains("Still working."), "{text}");
    w.go();
    browser.wait_for_text("#transcript", "Still working.").await;
    assert_eq!(
        js(&browser, "return window.svcStayed === true;").await,
        json!(true),
        "the page was not reloaded"
    );
    browser.wait_for_text("#session-state", "running").await;
    browser.click("#stop-submit").await;
    browser.wait_for_text("#session-state", "stopped").await;
    assert_eq!(w.session(&w.ann, &long).await["state"], "stopped");
    let forms = js(&browser, "return !!document.getElementById('stop-form');").await;
    assert_eq!(forms, json!(false));

    // The list, from the monorepo page's link.
    browser.goto(&w.app.url("/ann/mono")).await;
    browser.click("#agents-link").await;
    browser.wait_for_path("/ann/mono/agents").await;
    let list = browser.wait_for_text("#sessions", "stopped").await;
    assert!(list.contains("idle") && list.contains("app:feat"), "{list}");
    assert!(
        list.contains("Take your time") && list.contains("by ann"),
        "{list}"
    );

    // "Address with an agent" on an issue page: a session on the issue's branch.
    let r = w
        .app
        .as_user(Method::POST, &format!("{M}/issues"), &w.ann)
        .json(&json!({"title": "Fix the login"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    browser.goto(&w.app.url("/ann/mono/issues/1")).await;
    browser.click("#address-agent summary").await;
    browser.fill("#address-prompt", "Keep it small").await;
    browser.click("#address-submit").await;
    let addressed = on_session_page(&browser).await;
    browser
        .wait_for_text("#session-branch", "app:issue-1-fix-the-login")
        .await;
    browser
        .wait_for_text("#transcript li.message.user", "Resolve issue #1")
        .await;
    let s = w.settled(&addressed).await;
    assert_eq!(
        (&s["issue"], &s["state"]),
        (&json!(1), &json!("idle")),
        "{s}"
    );
    browser.goto(&w.app.url("/ann/mono/issues/1")).await;
    browser
        .wait_for_text("#issue-sessions", "app:issue-1-fix-the-login")
        .await;

    // The session page reads at 360 px without scrolling sideways.
    browser
        .goto(&w.app.url(&format!("/ann/mono/agents/{id}")))
        .await;
    browser
        .click("details.tool-call[data-call='c1'] summary")
        .await;
    let overflow = crate::web_browser::overflow_at_360(&browser, Some("agent-session")).await;
    assert!(overflow.is_none(), "{overflow:?}");
    browser.close().await;
}

fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots")
}
