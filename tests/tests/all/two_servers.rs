//! Two servers on one PostgreSQL database and one data dir, requests spread over both:
//! merges into one repo made one at a time across the servers, every event on the
//! sockets of either, each hook delivery sent once, access removal through one ending
//! access on the other within 15 s, armed branches auto-merged once each. On SQLite (one
//! process) each test is skipped.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_server::repo_lock::RepoLocks;
use svc_server::store::{Store, monorepos, repos};
use svc_tests::receiver::Receiver;
use svc_tests::{Cloned, TestApp, expect_json};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";
/// Branches merged at once, half through each server.
const BRANCHES: usize = 8;

fn on_postgres(app: &TestApp) -> bool {
    app.config.database_url.starts_with("postgres")
}

/// The repo's permanent id, read under the API.
async fn repo_id(app: &TestApp) -> String {
    let store = Store::open(&app.config.database_url).await.unwrap();
    let mut conn = store.read().await.unwrap();
    let m = monorepos::by_label_with_role(conn.h(), "ann", "mono", "")
        .await
        .unwrap()
        .unwrap();
    repos::by_name(conn.h(), &m.monorepo.id, "app")
        .await
        .unwrap()
        .unwrap()
        .id
}

#[tokio::test]
async fn merges_events_hooks_and_access_across_two_servers() {
    let c = Cloned::new("mono", "app").await;
    if !on_postgres(&c.app) {
        return;
    }
    let twin = c.app.twin().await;
    let servers = [&c.app, &twin];
    let rx = Receiver::start().await;
    let hook: Value = expect_json(
        c.app
            .as_user(Method::POST, &format!("{M}/hooks"), &c.token)
            .json(&json!({"kind": "web", "url": rx.url, "events": ["merged"]}))
            .send()
            .await
            .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(hook["events"], json!(["merged"]));

    c.git.commit(&c.work, "base", &[("base.txt", b"base\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    for i in 0..BRANCHES {
        let name = format!("b{i}");
        c.git
            .ok(&c.work, &["checkout", "-q", "-B", &name, "origin/main"]);
        c.git
            .commit(&c.work, &name, &[(&format!("{name}.txt"), b"x\n")]);
        c.git.ok(&c.work, &["push", "-q", "origin", &name]);
    }
    // A socket on each server, caught up before the merges.
    let mut sockets = Vec::new();
    for server in servers {
        let mut ws = server.ws(&format!("{M}/events"), &c.token).await;
        ws.until("caught_up").await;
        sockets.push(ws);
    }

    // While a third process holds the repo's merge lock in the database, a merge
    // through either server waits; once it lets go, the merge lands.
    let repo_id = repo_id(&c.app).await;
    let outside = RepoLocks::new(&c.app.config.database_url);
    let held = outside.lock(&repo_id).await.unwrap();
    let waiting = tokio::spawn({
        let (base, token) = (twin.base.clone(), c.token.clone());
        async move {
            svc_tests::client()
                .post(format!("{base}{R}/branches/b0/merge"))
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
        }
    });
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(!waiting.is_finished(), "the merge went past the held lock");
    drop(held);
    let first: Value = expect_json(waiting.await.unwrap(), StatusCode::OK).await;

    // Every other branch merged at once, alternately through each server: each lands,
    // none is refused for a main that moved under it.
    let merges = (1..BRANCHES).map(|i| {
        let server = servers[i % 2];
        let token = c.token.clone();
        async move {
            let r = server
                .as_user(Method::POST, &format!("{R}/branches/b{i}/merge"), &token)
                .send()
                .await
                .unwrap();
            expect_json::<Value>(r, StatusCode::OK).await
        }
    });
    let mut merged: Vec<Value> = join_all(merges).await;
    merged.push(first);
    c.git.ok(&c.work, &["fetch", "-q", "origin"]);
    let firsts = c
        .git
        .ok(&c.work, &["rev-list", "--first-parent", "origin/main"]);
    let firsts: Vec<&str> = firsts.lines().collect();
    assert_eq!(
        firsts.len(),
        BRANCHES + 1,
        "base and every merge: {firsts:?}"
    );
    for m in &merged {
        assert!(firsts.contains(&m["sha"].as_str().unwrap()), "{m}");
    }

    // Both servers' sockets see every merge.
    for ws in &mut sockets {
        let mut seen = Vec::new();
        while seen.len() < BRANCHES {
            let (e, _) = ws.until("event").await;
            if e["kind"] == "merged" {
                seen.push(e["seq"].as_i64().unwrap());
            }
        }
        seen.dedup();
        assert_eq!(seen.len(), BRANCHES);
    }

    // Each `merged` delivery reaches the receiver once, whichever server sent it.
    let got = rx.wait_for(BRANCHES, Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got = if rx.got().len() > got.len() {
        rx.got()
    } else {
        got
    };
    let mut ids: Vec<&str> = got.iter().map(|g| g.delivery.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!((ids.len(), got.len()), (BRANCHES, BRANCHES), "each once");

    // Bob, a member, is removed through one server: the other refuses him within 15 s.
    let bob = c
        .app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob"}))
        .await
        .credential
        .token;
    let r = c
        .app
        .as_user(Method::PUT, &format!("{M}/members/bob"), &c.token)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    for server in servers {
        let r = server.as_user(Method::GET, M, &bob).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
    }
    let removed = Instant::now();
    let r = twin
        .as_user(Method::DELETE, &format!("{M}/members/bob"), &c.token)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    loop {
        let r = c.app.as_user(Method::GET, M, &bob).send().await.unwrap();
        if r.status() == StatusCode::NOT_FOUND {
            break;
        }
        assert!(
            removed.elapsed() < Duration::from_secs(15),
            "still {} after 15 s",
            r.status()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Auto-merge with two servers on one database: branches armed through one server and
/// made green through the other each merge once, as their armer, none refused for a
/// main that moved under it; both servers' workers look, the repo lock keeps one merge
/// at a time.
#[tokio::test]
async fn armed_branches_merge_once_each_across_two_servers() {
    let c = Cloned::new("mono", "app").await;
    if !on_postgres(&c.app) {
        return;
    }
    let twin = c.app.twin().await;
    let servers = [&c.app, &twin];
    let meta = {
        let url = c.app.url("/ann/mono/meta.git");
        c.git.ok(c.git.home.path(), &["clone", "-q", &url, "meta"]);
        c.git.path("meta")
    };
    c.git.commit(
        &meta,
        "config",
        &[(
            ".svc/svc.toml",
            b"[repos.\"app\"]\nrequired_checks = [\"ci\"]\n" as &[u8],
        )],
    );
    c.git.ok(&meta, &["push", "-q", "origin", "main"]);
    c.git.commit(&c.work, "base", &[("base.txt", b"base\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    let mut heads = Vec::new();
    for i in 0..BRANCHES {
        let name = format!("b{i}");
        c.git
            .ok(&c.work, &["checkout", "-q", "-B", &name, "origin/main"]);
        heads.push(
            c.git
                .commit(&c.work, &name, &[(&format!("{name}.txt"), b"x\n")]),
        );
        c.git.ok(&c.work, &["push", "-q", "origin", &name]);
        let r = servers[i % 2]
            .as_user(
                Method::PUT,
                &format!("{R}/branches/{name}/auto-merge"),
                &c.token,
            )
            .send()
            .await
            .unwrap();
        expect_json::<Value>(r, StatusCode::OK).await;
    }
    // Every check passes at once, each through the other server than its arming.
    let statuses = heads.iter().enumerate().map(|(i, sha)| {
        let server = servers[(i + 1) % 2];
        let token = c.token.clone();
        async move {
            let r = server
                .as_user(Method::POST, &format!("{R}/statuses/{sha}"), &token)
                .json(&json!({"context": "ci", "state": "success"}))
                .send()
                .await
                .unwrap();
            expect_json::<Value>(r, StatusCode::CREATED).await
        }
    });
    join_all(statuses).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let list = c
            .app
            .get_json(&c.token, &format!("{R}/branches?state=merged"))
            .await;
        let merged = list["items"].as_array().unwrap().len();
        if merged == BRANCHES {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{merged} of {BRANCHES} merged: {list}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let page = c
        .app
        .get_json(&c.token, &format!("{M}/events?limit=500"))
        .await;
    let kinds = |kind: &str| -> Vec<Value> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == kind)
            .cloned()
            .collect()
    };
    let merged = kinds("merged");
    assert_eq!(merged.len(), BRANCHES, "one merge each: {merged:?}");
    for m in &merged {
        assert_eq!(m["actor"], "ann", "{m}");
    }
    assert!(
        kinds("auto_merge.disabled").is_empty(),
        "none disarmed: {:?}",
        kinds("auto_merge.disabled")
    );
    c.git.ok(&c.work, &["fetch", "-q", "origin"]);
    let firsts = c
        .git
        .ok(&c.work, &["rev-list", "--first-parent", "origin/main"]);
    assert_eq!(firsts.lines().count(), BRANCHES + 1, "{firsts}");
}
