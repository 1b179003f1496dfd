//! The needs-you list (`GET /v1/branches`) and the web home's monorepo summaries
//! (`GET /v1/monorepos?summary=1`), end to end with real pushes.

use std::path::Path;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::git::Git;
use svc_tests::{TestApp, expect_error};

const R: &str = "/v1/monorepos/ann/mono/repos/app";

async fn person(app: &TestApp, email: &str) -> String {
    app.bootstrap(json!({"email": email}))
        .await
        .credential
        .token
}

/// Makes `branch` from `origin/main` with `files` committed, and pushes it.
fn push_branch(git: &Git, work: &Path, branch: &str, files: &[(&str, &[u8])]) -> String {
    git.ok(work, &["fetch", "-q", "origin"]);
    git.ok(work, &["checkout", "-q", "-B", branch, "origin/main"]);
    let sha = git.commit(work, branch, files);
    git.ok(work, &["push", "-q", "-f", "origin", branch]);
    sha
}

async fn send(app: &TestApp, token: &str, method: Method, path: &str, body: Value) -> Value {
    let r = app.as_user(method, path, token).json(&body).send().await;
    let r = r.unwrap();
    let status = r.status();
    assert!(status.is_success(), "{path}: {status}");
    r.json().await.unwrap()
}

async fn status(app: &TestApp, token: &str, sha: &str, state: &str) {
    let path = format!("{R}/statuses/{sha}");
    send(
        app,
        token,
        Method::POST,
        &path,
        json!({"context": "ci", "state": state}),
    )
    .await;
}

/// Computes the branch's facts now (they are stored; the needs list only reads them).
async fn fresh(app: &TestApp, token: &str, repo_path: &str, branch: &str) {
    let b = app
        .get_json(token, &format!("{repo_path}/branches/{branch}?fresh=1"))
        .await;
    assert_eq!(b["stale"], false, "{b}");
}

/// (branch, state) of each row, in list order.
fn states(list: &Value) -> Vec<(String, String)> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["branch"].as_str().unwrap().to_owned(),
                r["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn states_order_and_whose_branches() {
    let svc_tests::Cloned {
        app,
        token: ann,
        git,
        work,
    } = svc_tests::Cloned::new("mono", "app").await;
    git.commit(&work, "base", &[("a.txt", b"one\ntwo\nthree\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    // Required check `ci` on app, from the meta layer's main.
    let meta_url = app.url("/ann/mono/meta.git");
    git.ok(git.home.path(), &["clone", "-q", &meta_url, "meta"]);
    let meta = git.path("meta");
    let config: &[u8] = b"[repos.\"app\"]\nrequired_checks = [\"ci\"]\n";
    git.commit(&meta, "config", &[(".svc/svc.toml", config)]);
    git.ok(&meta, &["push", "-q", "origin", "main"]);

    // `clash` conflicts once `mover` lands on main (a red check does not outrank that).
    let clash = push_branch(&git, &work, "clash", &[("a.txt", b"one\nCLASH\nthree\n")]);
    push_branch(&git, &work, "mover", &[("a.txt", b"one\nMOVE\nthree\n")]);
    let merge = format!("{R}/branches/mover/merge?force=1");
    send(&app, &ann, Method::POST, &merge, json!({})).await;
    status(&app, &ann, &clash, "failure").await;

    let red = push_branch(&git, &work, "red", &[("red.txt", b"r\n")]);
    status(&app, &ann, &red, "error").await;
    let green = push_branch(&git, &work, "green", &[("g.txt", b"g\n")]);
    status(&app, &ann, &green, "success").await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let green2 = push_branch(&git, &work, "green2", &[("g2.txt", b"g\n")]);
    status(&app, &ann, &green2, "success").await;
    // A pending check, and no check at all: the gate does not pass, nothing fails.
    let waiting = push_branch(&git, &work, "waiting", &[("w.txt", b"w\n")]);
    status(&app, &ann, &waiting, "pending").await;
    push_branch(&git, &work, "unchecked", &[("u.txt", b"u\n")]);

    // Bob's branch (created through the API: he is its author) is his, not Ann's. It
    // starts at a commit of its own (tagged): one at main's head has nothing to merge.
    git.ok(&work, &["checkout", "-q", "--detach", "origin/main"]);
    let work_of_bob = git.commit(&work, "bob's", &[("bob.txt", b"b\n")]);
    let tag = format!("{work_of_bob}:refs/tags/bob-work");
    git.ok(&work, &["push", "-q", "origin", &tag]);
    let bob = person(&app, "bob@example.com").await;
    send(
        &app,
        &ann,
        Method::PUT,
        "/v1/monorepos/ann/mono/members/bob",
        json!({"role": "member"}),
    )
    .await;
    let b = send(
        &app,
        &bob,
        Method::POST,
        &format!("{R}/branches"),
        json!({"name": "bobs", "title": "Bob's", "from": work_of_bob}),
    )
    .await;
    status(&app, &bob, b["head"].as_str().unwrap(), "success").await;

    for branch in [
        "clash",
        "red",
        "green",
        "green2",
        "waiting",
        "unchecked",
        "bobs",
    ] {
        fresh(&app, &ann, R, branch).await;
    }
    let list = app.get_json(&ann, "/v1/branches").await;
    assert_eq!(
        states(&list),
        [
            ("clash".to_owned(), "conflicts".to_owned()),
            ("red".to_owned(), "failing".to_owned()),
            ("green2".to_owned(), "ready".to_owned()),
            ("green".to_owned(), "ready".to_owned()),
        ],
        "{list}"
    );
    let row = &list["items"][0];
    let m = app.get_json(&ann, "/v1/monorepos/ann/mono").await;
    assert_eq!(row["monorepo"], "ann/mono");
    assert_eq!(row["monorepo_id"], m["id"]);
    assert_eq!(row["repo"], "app");
    assert_eq!(row["head"], clash.as_str());
    assert_eq!(row["paths"], json!(["a.txt"]));
    assert_eq!(row["title"], Value::Null);
    assert!(row["pushed_at"].as_str().unwrap().ends_with('Z'), "{row}");
    assert_eq!(list["items"][1]["paths"], Value::Null);
    assert_eq!(list["items"][2]["head"], green2.as_str());
    assert_eq!(list["issues"], json!([]));
    assert_eq!(list["skipped"], json!([]));

    let list = app.get_json(&bob, "/v1/branches").await;
    assert_eq!(states(&list), [("bobs".to_owned(), "ready".to_owned())]);
    assert_eq!(list["items"][0]["title"], "Bob's");

    // The check on `waiting` goes green: it is ready, and newest of the ready ones.
    status(&app, &ann, &waiting, "success").await;
    let list = app.get_json(&ann, "/v1/branches").await;
    let names: Vec<String> = states(&list).into_iter().map(|(b, _)| b).collect();
    assert_eq!(names, ["clash", "red", "waiting", "green2", "green"]);
    // Merged branches leave the list.
    let merge = format!("{R}/branches/green/merge");
    send(&app, &ann, Method::POST, &merge, json!({})).await;
    let list = app.get_json(&ann, "/v1/branches").await;
    assert!(!states(&list).iter().any(|(b, _)| b == "green"), "{list}");

    // Outsiders see none of it.
    let eve = person(&app, "eve@example.com").await;
    let list = app.get_json(&eve, "/v1/branches").await;
    assert_eq!(list, json!({"items": [], "issues": [], "skipped": []}));
    let r = app
        .request(Method::GET, "/v1/branches")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn skipped_past_fifty_monorepos() {
    let app = TestApp::start().await;
    let sam = person(&app, "sam@example.com").await;
    for i in 0..51 {
        app.monorepo(&sam, json!({"name": format!("r{i:02}"), "kind": "repo"}))
            .await;
    }
    // Without activity they go by name, so r50 would be the one left out; a push makes it
    // the most recently active, and r49 is skipped instead.
    let git = Git::new(&sam);
    git.ok(
        git.home.path(),
        &["clone", "-q", &app.url("/sam/r50.git"), "work"],
    );
    let work = git.path("work");
    git.commit(&work, "base", &[("a.txt", b"a\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    push_branch(&git, &work, "topic", &[("b.txt", b"b\n")]);
    fresh(&app, &sam, "/v1/monorepos/sam/r50/repos/r50", "topic").await;

    let list = app.get_json(&sam, "/v1/branches").await;
    assert_eq!(list["skipped"], json!(["sam/r49"]));
    assert_eq!(states(&list), [("topic".to_owned(), "ready".to_owned())]);
    assert_eq!(list["items"][0]["monorepo"], "sam/r50");
    assert_eq!(list["items"][0]["repo"], "r50");
    assert_eq!(list["issues"], json!([]));
}

#[tokio::test]
async fn home_summaries_by_activity() {
    let app = TestApp::start().await;
    let ann = person(&app, "ann@example.com").await;
    for name in ["alpha", "beta", "gamma"] {
        app.monorepo(&ann, json!({"name": name, "kind": "repo"}))
            .await;
    }
    let git = Git::new(&ann);
    let push_main = |name: &str| {
        git.ok(
            git.home.path(),
            &["clone", "-q", &app.url(&format!("/ann/{name}.git")), name],
        );
        let work = git.path(name);
        git.commit(&work, "base", &[("a.txt", b"a\n")]);
        git.ok(&work, &["push", "-q", "origin", "main"]);
        work
    };
    let beta = push_main("beta");
    tokio::time::sleep(Duration::from_millis(20)).await;
    push_main("gamma");

    let home = app.get_json(&ann, "/v1/monorepos?summary=1").await;
    let order = |home: &Value| -> Vec<String> {
        home["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["full_name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(order(&home), ["ann/gamma", "ann/beta", "ann/alpha"]);
    let alpha = &home["items"][2];
    assert_eq!(alpha["kind"], "repo");
    assert_eq!(alpha["role"], "owner");
    assert_eq!(
        alpha["summary"],
        json!({
            "active_at": null, "last_kind": null, "last_actor": null, "last_repo": null,
            "last_branch": null, "last_at": null, "open_branches": 0, "needs_you": 0,
            "machines_connected": 0
        })
    );
    let gamma = &home["items"][0]["summary"];
    assert_eq!(gamma["last_kind"], "push");
    assert_eq!(gamma["last_actor"], "ann");
    assert_eq!(gamma["last_repo"], "gamma");
    assert!(gamma["active_at"].is_string(), "{gamma}");

    // A branch in beta: beta is the most recently active, and the branch needs Ann.
    push_branch(&git, &beta, "topic", &[("b.txt", b"b\n")]);
    fresh(&app, &ann, "/v1/monorepos/ann/beta/repos/beta", "topic").await;
    let home = app.get_json(&ann, "/v1/monorepos?summary=1").await;
    assert_eq!(order(&home), ["ann/beta", "ann/gamma", "ann/alpha"]);
    let beta = &home["items"][0]["summary"];
    assert_eq!(beta["last_kind"], "branch.opened");
    assert_eq!(beta["last_branch"], "topic");
    assert_eq!(beta["open_branches"], 1);
    assert_eq!(beta["needs_you"], 1);
    // `owner` and `name` still narrow the home view; the plain list keeps its order.
    let home = app
        .get_json(&ann, "/v1/monorepos?summary=1&name=gamma")
        .await;
    assert_eq!(order(&home), ["ann/gamma"]);
    let plain = app.get_json(&ann, "/v1/monorepos").await;
    assert_eq!(order(&plain), ["ann/alpha", "ann/beta", "ann/gamma"]);
    assert!(plain["items"][0].get("summary").is_none());

    // Someone else sees none of Ann's monorepos.
    let eve = person(&app, "eve@example.com").await;
    let home = app.get_json(&eve, "/v1/monorepos?summary=1").await;
    assert_eq!(home["items"], json!([]));
    expect_error(
        app.as_user(Method::GET, "/v1/monorepos/ann/beta", &eve)
            .send()
            .await
            .unwrap(),
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
}
