//! Auto-merge end to end: a member arms a branch, the server merges it as them within
//! seconds of its required check passing; a push by someone else, a refused merge
//! (conflicts, unreadable checks) and a hand disarm it, each with its reason in the
//! branch's events; only members may arm.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::git::Git;
use svc_tests::machine::Machine;
use svc_tests::{TestApp, expect_error, expect_json};

use crate::mcp::Mcp;

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";
const PASSWORD: &str = "correct horse battery";

/// `ann/mono` with repo `app` (main pushed, `ci` required by the meta layer's config),
/// cloned in `work`; bob is a member, eve signed in but not one.
struct World {
    app: TestApp,
    ann: String,
    bob: String,
    eve: String,
    git: Git,
    work: PathBuf,
}

async fn world() -> World {
    let svc_tests::Cloned {
        app,
        token: ann,
        git,
        work,
    } = svc_tests::Cloned::new("mono", "app").await;
    git.commit(&work, "base", &[("a.txt", b"one\ntwo\nthree\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    let url = app.url("/ann/mono/meta.git");
    git.ok(git.home.path(), &["clone", "-q", &url, "meta"]);
    let meta = git.path("meta");
    git.commit(
        &meta,
        "config",
        &[(
            ".svc/svc.toml",
            b"[repos.\"app\"]\nrequired_checks = [\"ci\"]\n",
        )],
    );
    git.ok(&meta, &["push", "-q", "origin", "main"]);
    let person = |login: &'static str| {
        let app = &app;
        async move {
            app.bootstrap(
                json!({"email": format!("{login}@example.com"), "login": login,
                    "name": format!("{login} Example"), "password": PASSWORD}),
            )
            .await
            .credential
            .token
        }
    };
    let bob = person("bob").await;
    let eve = person("eve").await;
    let r = app
        .as_user(Method::PUT, &format!("{M}/members/bob"), &ann)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;
    World {
        app,
        ann,
        bob,
        eve,
        git,
        work,
    }
}

impl World {
    /// Makes `branch` from main with `files` committed, and pushes it (as ann).
    fn push_branch(&self, branch: &str, files: &[(&str, &[u8])]) -> String {
        self.git.ok(&self.work, &["fetch", "-q", "origin"]);
        self.git
            .ok(&self.work, &["checkout", "-q", "-B", branch, "origin/main"]);
        let sha = self.git.commit(&self.work, branch, files);
        self.git
            .ok(&self.work, &["push", "-q", "-f", "origin", branch]);
        sha
    }

    /// Adds a commit to `branch` and pushes it (as ann).
    fn push_more(&self, branch: &str, file: &str) -> String {
        self.git.ok(&self.work, &["checkout", "-q", branch]);
        let sha = self
            .git
            .commit(&self.work, "more", &[(file, b"more\n" as &[u8])]);
        self.git.ok(&self.work, &["push", "-q", "origin", branch]);
        sha
    }

    async fn arm(&self, token: &str, branch: &str, agent: Option<&str>) -> reqwest::Response {
        let mut r = self.app.as_user(
            Method::PUT,
            &format!("{R}/branches/{branch}/auto-merge"),
            token,
        );
        if let Some(agent) = agent {
            r = r.header("x-svc-agent", agent);
        }
        r.send().await.unwrap()
    }

    async fn disarm(&self, token: &str, branch: &str) -> reqwest::Response {
        self.app
            .as_user(
                Method::DELETE,
                &format!("{R}/branches/{branch}/auto-merge"),
                token,
            )
            .send()
            .await
            .unwrap()
    }

    async fn status(&self, sha: &str, context: &str, state: &str) {
        let r = self
            .app
            .as_user(Method::POST, &format!("{R}/statuses/{sha}"), &self.ann)
            .json(&json!({"context": context, "state": state}))
            .send()
            .await
            .unwrap();
        expect_json::<Value>(r, StatusCode::CREATED).await;
    }

    async fn branch(&self, name: &str) -> Value {
        self.app
            .get_json(&self.ann, &format!("{R}/branches/{name}"))
            .await
    }

    /// The branch's `auto_merge.*` events, oldest first.
    async fn auto_events(&self, branch: &str) -> Vec<Value> {
        let page = self
            .app
            .get_json(
                &self.ann,
                &format!("{M}/events?limit=500&kinds=auto_merge.enabled,auto_merge.disabled"),
            )
            .await;
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["key"] == format!("app/{branch}"))
            .cloned()
            .collect()
    }

    /// `svc <args>` on `m` as ann; answers stdout.
    fn svc(&self, m: &Machine, args: &[&str]) -> String {
        let out = m
            .svc(args)
            .env("SVC_TOKEN", &self.ann)
            .env("SVC_SERVER", &self.app.base)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "svc {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Waits (up to 10 s) until the branch is no longer armed, and answers it.
    async fn until_disarmed(&self, branch: &str) -> Value {
        let start = Instant::now();
        loop {
            let b = self.branch(branch).await;
            if b["auto_merge"].is_null() {
                return b;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{branch} stayed armed: {b}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[tokio::test]
async fn an_armed_branch_merges_as_its_armer_once_its_check_passes() {
    let w = world().await;
    let head = w.push_branch("topic", &[("b.txt", b"b\n")]);

    // bob arms it, through his agent; ann's branch is then merged as bob.
    let armed: Value =
        expect_json(w.arm(&w.bob, "topic", Some("helper")).await, StatusCode::OK).await;
    assert_eq!(
        (armed["armed_by"].as_str(), armed["armed_agent"].as_str()),
        (Some("bob"), Some("helper"))
    );
    assert!(armed["armed_at"].is_string(), "{armed}");
    let b = w.branch("topic").await;
    assert_eq!(b["auto_merge"], armed);
    let list = w.app.get_json(&w.ann, &format!("{R}/branches")).await;
    let row = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "topic")
        .cloned()
        .unwrap();
    assert_eq!(row["auto_merge"], armed);
    let enabled = w.auto_events("topic").await;
    assert_eq!(enabled.len(), 1, "{enabled:?}");
    assert_eq!(
        (
            enabled[0]["kind"].as_str(),
            enabled[0]["actor"].as_str(),
            enabled[0]["agent"].as_str()
        ),
        (Some("auto_merge.enabled"), Some("bob"), Some("helper"))
    );
    // Arming again by the same person and agent changes nothing.
    let again: Value =
        expect_json(w.arm(&w.bob, "topic", Some("helper")).await, StatusCode::OK).await;
    assert_eq!(again, armed);
    assert_eq!(w.auto_events("topic").await.len(), 1);
    // The branch page says it, by whom.
    let cookie = w.app.sign_in("bob", PASSWORD).await;
    let r = w
        .app
        .get_page(Some(&cookie), "/ann/mono/-/app/branches/topic")
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("Auto-merge armed by bob (agent helper)"),
        "{html}"
    );
    assert!(html.contains("id=\"auto-merge-off\""), "{html}");

    // Pending: it waits, armed.
    w.status(&head, "ci", "pending").await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let b = w.branch("topic").await;
    assert_eq!(
        (b["state"].as_str(), b["auto_merge"]["armed_by"].as_str()),
        (Some("open"), Some("bob"))
    );

    // The required check passes: merged within seconds, as bob through his agent.
    let passed = Instant::now();
    w.status(&head, "ci", "success").await;
    let merged = loop {
        let b = w.branch("topic").await;
        if b["state"] == "merged" {
            break b;
        }
        assert!(
            passed.elapsed() < Duration::from_secs(10),
            "not merged 10 s after its check passed: {b}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        (
            merged["merged_by"].as_str(),
            merged["merged_agent"].as_str(),
            merged["forced"].as_bool()
        ),
        (Some("bob"), Some("helper"), Some(false))
    );
    assert_eq!(merged["auto_merge"], Value::Null);
    let sha = merged["merge_sha"].as_str().unwrap();
    w.git.ok(&w.work, &["fetch", "-q", "origin"]);
    assert_eq!(w.git.ok(&w.work, &["rev-parse", "origin/main"]).trim(), sha);
    assert_eq!(
        w.git
            .ok(
                &w.work,
                &[
                    "log",
                    "-1",
                    "--format=%an|%(trailers:key=Svc-Agent,valueonly)",
                    sha
                ]
            )
            .trim(),
        "bob Example|helper"
    );
    let events = w
        .app
        .get_json(&w.ann, &format!("{M}/events?limit=500&kinds=merged"))
        .await;
    let m = &events["items"][0];
    assert_eq!(
        (m["actor"].as_str(), m["agent"].as_str()),
        (Some("bob"), Some("helper"))
    );
    // A merge is no disarming: no `auto_merge.disabled`.
    assert_eq!(w.auto_events("topic").await.len(), 1);
    // A merged branch is not armed again.
    expect_error(
        w.arm(&w.ann, "topic", None).await,
        StatusCode::CONFLICT,
        "not_open",
    )
    .await;
}

#[tokio::test]
async fn a_push_by_someone_else_disarms_and_the_armers_own_does_not() {
    let w = world().await;
    w.push_branch("topic", &[("b.txt", b"b\n")]);

    // ann arms and pushes again: still armed.
    expect_json::<Value>(w.arm(&w.ann, "topic", None).await, StatusCode::OK).await;
    w.push_more("topic", "c.txt");
    let b = w.branch("topic").await;
    assert_eq!(b["auto_merge"]["armed_by"], "ann", "{b}");

    // bob takes it over (a new arming); ann's next push is someone else's.
    let armed: Value = expect_json(w.arm(&w.bob, "topic", None).await, StatusCode::OK).await;
    assert_eq!(
        (armed["armed_by"].as_str(), armed["armed_agent"].as_str()),
        (Some("bob"), None)
    );
    let head = w.push_more("topic", "d.txt");
    let b = w.branch("topic").await;
    assert_eq!(b["auto_merge"], Value::Null, "{b}");
    let events = w.auto_events("topic").await;
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "auto_merge.enabled",
            "auto_merge.enabled",
            "auto_merge.disabled"
        ]
    );
    let off = &events[2];
    assert_eq!(
        (off["reason"].as_str(), off["actor"].as_str()),
        (Some("pushed_by_other"), Some("ann"))
    );
    assert_eq!(off["row"]["head"], head);

    // Disarmed, a passing check merges nothing.
    w.status(&head, "ci", "success").await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(w.branch("topic").await["state"], "open");
}

#[tokio::test]
async fn a_refused_merge_disarms_with_its_reason() {
    let w = world().await;
    // Conflicts: `other` lands first, changing the line `topic` changes.
    let topic = w.push_branch("topic", &[("a.txt", b"one\nTOPIC\nthree\n")]);
    let other = w.push_branch("other", &[("a.txt", b"one\nOTHER\nthree\n")]);
    w.status(&other, "ci", "success").await;
    let r = w
        .app
        .as_user(Method::POST, &format!("{R}/branches/other/merge"), &w.ann)
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;
    expect_json::<Value>(w.arm(&w.bob, "topic", None).await, StatusCode::OK).await;
    w.status(&topic, "ci", "success").await;
    let b = w.until_disarmed("topic").await;
    assert_eq!(b["state"], "open");
    let events = w.auto_events("topic").await;
    let off = events.last().unwrap();
    assert_eq!(
        (
            off["kind"].as_str(),
            off["reason"].as_str(),
            off["actor"].as_str()
        ),
        (
            Some("auto_merge.disabled"),
            Some("merge_refused:conflicts"),
            None
        )
    );

    // Unreadable required checks: disarmed with checks_unknown.
    let next = w.push_branch("next", &[("n.txt", b"n\n")]);
    expect_json::<Value>(w.arm(&w.ann, "next", None).await, StatusCode::OK).await;
    // The meta layer's main moves by merges only: the broken file lands through one.
    let meta = w.git.path("meta");
    w.git.ok(&meta, &["checkout", "-q", "-b", "break"]);
    w.git.commit(
        &meta,
        "break",
        &[(
            ".svc/svc.toml",
            b"[repos.\"app\"]\nrequired_checks = [\"ci\"\n",
        )],
    );
    w.git.ok(&meta, &["push", "-q", "origin", "break"]);
    let r = w
        .app
        .as_user(
            Method::POST,
            &format!("{M}/repos/meta/branches/break/merge"),
            &w.ann,
        )
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;
    w.status(&next, "lint", "success").await;
    let b = w.until_disarmed("next").await;
    assert_eq!(b["state"], "open");
    let off = w.auto_events("next").await.pop().unwrap();
    assert_eq!(off["reason"], "merge_refused:checks_unknown", "{off}");
}

// Multi-threaded: the test waits on `svc mcp`'s answers while the server runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disarming_by_hand_and_who_may_arm() {
    let w = world().await;
    w.push_branch("fix/topic", &[("b.txt", b"b\n")]);
    // Armed from the command line.
    let m = Machine::new();
    let cli = ["branch", "merge", "fix/topic", "-R", "ann/mono/app"];
    let out = w.svc(&m, &[&cli[..], &["--auto", "--json"]].concat());
    let armed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (armed["armed_by"].as_str(), armed["armed_agent"].as_str()),
        (Some("ann"), None)
    );

    // Not a member: the monorepo is not there for eve, armed or not.
    expect_error(
        w.arm(&w.eve, "fix/topic", None).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    expect_error(
        w.disarm(&w.eve, "fix/topic").await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    let b = w.branch("fix/topic").await;
    assert_eq!(b["auto_merge"]["armed_by"], "ann", "{b}");

    // By hand, by another member: disarmed with its reason, once.
    let r = w.disarm(&w.bob, "fix/topic").await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(w.branch("fix/topic").await["auto_merge"], Value::Null);
    let r = w.disarm(&w.bob, "fix/topic").await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let events = w.auto_events("fix/topic").await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(
        (
            events[1]["kind"].as_str(),
            events[1]["reason"].as_str(),
            events[1]["actor"].as_str()
        ),
        (Some("auto_merge.disabled"), Some("by_hand"), Some("bob"))
    );

    // Through the command line and svc mcp, armed and disarmed again.
    let out = w.svc(&m, &[&cli[..], &["--auto"]].concat());
    assert!(
        out.starts_with("Auto-merge armed on fix/topic: the server merges it into main as ann"),
        "{out}"
    );
    let out = w.svc(&m, &[&cli[..], &["--disable-auto"]].concat());
    assert_eq!(
        out.trim(),
        "Auto-merge of fix/topic is off: it merges only when asked"
    );
    let env = [
        ("SVC_SERVER", w.app.base.as_str()),
        ("SVC_TOKEN", w.ann.as_str()),
        ("SVC_MONOREPO", "ann/mono"),
    ];
    let mut mcp = Mcp::start_with(&m, &["--toolsets", "branches"], &env);
    let (error, text) = mcp.call(
        "auto_merge_branch",
        json!({"repo": "app", "branch": "fix/topic"}),
    );
    assert!(!error, "{text}");
    assert!(text.starts_with("Auto-merge armed on fix/topic"), "{text}");
    assert_eq!(w.branch("fix/topic").await["auto_merge"]["armed_by"], "ann");
    let (error, text) = mcp.call(
        "auto_merge_branch",
        json!({"repo": "app", "branch": "fix/topic", "disable": true}),
    );
    assert!(!error, "{text}");
    assert_eq!(w.branch("fix/topic").await["auto_merge"], Value::Null);
    let events = w.auto_events("fix/topic").await;
    let seen: Vec<(&str, Option<&str>, &str)> = events
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap(),
                e["reason"].as_str(),
                e["actor"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("auto_merge.enabled", None, "ann"),
            ("auto_merge.disabled", Some("by_hand"), "bob"),
            ("auto_merge.enabled", None, "ann"),
            ("auto_merge.disabled", Some("by_hand"), "ann"),
            ("auto_merge.enabled", None, "ann"),
            ("auto_merge.disabled", Some("by_hand"), "ann"),
        ]
    );
    drop(mcp);

    // Unknown branches and main are not armed.
    expect_error(
        w.arm(&w.ann, "nope", None).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    expect_error(
        w.arm(&w.ann, "main", None).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;

    // eve, once a member, may; removed again, her arming merges nothing and ends.
    let r = w
        .app
        .as_user(Method::PUT, &format!("{M}/members/eve"), &w.ann)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;
    let head = w.branch("fix/topic").await["head"]
        .as_str()
        .unwrap()
        .to_owned();
    expect_json::<Value>(w.arm(&w.eve, "fix/topic", None).await, StatusCode::OK).await;
    let r = w
        .app
        .as_user(Method::DELETE, &format!("{M}/members/eve"), &w.ann)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    w.status(&head, "ci", "success").await;
    let b = w.until_disarmed("fix/topic").await;
    assert_eq!(b["state"], "open");
    let off = w.auto_events("fix/topic").await.pop().unwrap();
    assert_eq!(off["reason"], "access_lost", "{off}");
}
