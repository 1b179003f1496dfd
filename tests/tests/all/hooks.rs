//! Web hooks end to end against a real HTTP receiver on loopback: signed deliveries
//! written with the change, tokens that do exactly what they say, the retry schedule,
//! redeliver and replay, restarts and two servers.

use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::Sha256;
use svc_server::config::HooksSettings;
use svc_tests::git::all_output;
use svc_tests::receiver::{Got, Receiver};
use svc_tests::{TestApp, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";
const ZERO: &str = "0000000000000000000000000000000000000000";

async fn cloned(builder: Option<svc_tests::TestAppBuilder>) -> svc_tests::Cloned {
    let c = match builder {
        Some(b) => svc_tests::Cloned::with(b, "mono", "app").await,
        None => svc_tests::Cloned::new("mono", "app").await,
    };
    c.git.commit(&c.work, "first", &[("a.txt", b"one\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    c
}

async fn hook(app: &TestApp, token: &str, body: Value) -> Value {
    let r = app
        .as_user(Method::POST, &format!("{M}/hooks"), token)
        .json(&body)
        .send()
        .await
        .unwrap();
    expect_json(r, StatusCode::CREATED).await
}

async fn deliveries(app: &TestApp, token: &str, hook: &str) -> Vec<Value> {
    let list = app
        .get_json(token, &format!("{M}/hooks/{hook}/deliveries"))
        .await;
    list["items"].as_array().unwrap().clone()
}

fn signed(secret: &str, got: &Got) -> bool {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(&got.body);
    got.signature == format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[tokio::test]
async fn a_push_delivers_a_signed_body_whose_tokens_do_only_what_they_say() {
    let c = cloned(None).await;
    let rx = Receiver::start().await;
    let h = hook(
        &c.app,
        &c.token,
        json!({"kind": "web", "url": rx.url, "events": ["push", "branch.opened", "merged", "tag"]}),
    )
    .await;
    let secret = h["secret"].as_str().unwrap().to_owned();
    assert_eq!(secret.len(), 43, "generated");
    let id = h["id"].as_str().unwrap().to_owned();

    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    let head = c.git.commit(&c.work, "topic work", &[("b.txt", b"b\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let got = rx.wait_for(2, Duration::from_secs(10)).await;
    let mut events: Vec<&str> = got.iter().map(|g| g.event.as_str()).collect();
    events.sort();
    assert_eq!(events, ["branch.opened", "push"]);
    for g in &got {
        assert!(signed(&secret, g), "signed with the secret");
        assert!(!signed("another secret, not it", g));
        assert!(
            g.user_agent.starts_with("svc-hookshot/"),
            "{}",
            g.user_agent
        );
    }
    let push = got.iter().find(|g| g.event == "push").unwrap().json();
    assert_eq!(
        push["delivery_id"],
        got.iter()
            .find(|g| g.event == "push")
            .unwrap()
            .delivery
            .as_str()
    );
    assert_eq!(push["event"], "push");
    assert_eq!(push["monorepo"], "ann/mono");
    assert!(push["monorepo_id"].as_str().unwrap().starts_with("m_"));
    assert_eq!(push["repo"], "app");
    assert_eq!(push["ref"], "refs/heads/topic");
    assert_eq!(push["branch"], "topic");
    assert_eq!(
        (push["head"].as_str(), push["before"].as_str()),
        (Some(head.as_str()), Some(ZERO))
    );
    assert_eq!(push["pusher"], "ann");
    assert_eq!(push["author"], "ann");
    assert!(push["seq"].as_i64().unwrap() > 0);
    assert!(push["base"].is_string(), "{push}");
    assert!(
        push["diff_url"]
            .as_str()
            .unwrap()
            .ends_with("/ann/mono/-/app/branches/topic"),
        "the branch's web page: {push}"
    );
    assert!(push["occurred_at"].is_string() && push["read_token_expires_at"].is_string());

    // The read token clones this repo, and does nothing else.
    let read = push["read_token"].as_str().unwrap();
    let clone_url = push["clone_url"].as_str().unwrap();
    let header = format!("http.extraHeader=Authorization: Bearer {read}");
    let out = c.git.run(
        c.git.home.path(),
        &[
            "-c",
            "credential.helper=",
            "-c",
            &header,
            "clone",
            "-q",
            clone_url,
            "by-token",
        ],
    );
    assert!(out.status.success(), "{}", all_output(&out));
    let by_token = c.git.path("by-token");
    c.git.commit(&by_token, "sneaky", &[("c.txt", b"c\n")]);
    let out = c.git.run(
        &by_token,
        &[
            "-c",
            "credential.helper=",
            "-c",
            &header,
            "push",
            "origin",
            "HEAD:refs/heads/sneaky",
        ],
    );
    assert!(!out.status.success(), "a read token cannot push");
    let api = c
        .app
        .client
        .get(c.app.url(R))
        .bearer_auth(read)
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), StatusCode::UNAUTHORIZED, "nor call the API");

    // The status token posts on its commit only, as the hook.
    let status_url = push["status_url"].as_str().unwrap();
    let token = push["status_token"].as_str().unwrap();
    let r = c
        .app
        .client
        .post(status_url)
        .bearer_auth(token)
        .json(&json!({"context": "ci", "state": "success"}))
        .send()
        .await
        .unwrap();
    let s: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(s["creator"], format!("hook:{id}"));
    assert_eq!(s["app"], Value::Null);
    let main = c.git.ok(&c.work, &["rev-parse", "main"]).trim().to_owned();
    let r = c
        .app
        .client
        .post(c.app.url(&format!("{R}/statuses/{main}")))
        .bearer_auth(token)
        .json(&json!({"context": "ci", "state": "success"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;

    // A merge and a tag.
    let r = c
        .app
        .as_user(Method::POST, &format!("{R}/branches/topic/merge"), &c.token)
        .send()
        .await
        .unwrap();
    let merged: Value = expect_json(r, StatusCode::OK).await;
    c.git.ok(&c.work, &["tag", "v1", &head]);
    c.git.ok(&c.work, &["push", "-q", "origin", "v1"]);
    let got = rx.wait_for(4, Duration::from_secs(10)).await;
    let m = got.iter().find(|g| g.event == "merged").unwrap().json();
    assert_eq!(m["merge_commit"], merged["sha"]);
    assert_eq!(m["head"], head.as_str());
    let t = got.iter().find(|g| g.event == "tag").unwrap().json();
    assert_eq!(
        (t["tag"].as_str(), t["ref"].as_str()),
        (Some("v1"), Some("refs/tags/v1"))
    );
    assert_eq!(t["head"], head.as_str());

    // The records: delivered, one try each; the secret never shows again.
    let list = c.app.get_json(&c.token, &format!("{M}/hooks")).await;
    assert_eq!(list["items"][0]["id"], id.as_str());
    assert!(list["items"][0].get("secret").is_none());
    assert!(list["items"][0]["last_delivery"]["id"].is_string());
    let mut ds = Vec::new();
    for _ in 0..100 {
        ds = deliveries(&c.app, &c.token, &id).await;
        if ds.iter().all(|d| d["state"] == "delivered") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(ds.len(), 4);
    for d in &ds {
        assert_eq!(d["state"], "delivered", "{d}");
        assert_eq!(d["attempts"], 1);
        assert_eq!(d["tries"][0]["status"], 200);
        assert_eq!(d["next_attempt_at"], Value::Null);
        assert!(d["body"].get("read_token").is_none(), "no token is kept");
    }
}

#[tokio::test]
async fn hooks_are_for_owners_and_reach_only_allowed_hosts() {
    let strict = TestApp::builder().hooks(HooksSettings::default());
    let c = cloned(Some(strict)).await;
    let bob = c
        .app
        .bootstrap(json!({"email": "bob@example.com"}))
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
    assert_eq!(r.status(), StatusCode::OK);
    let create = |token: &str, body: Value| {
        c.app
            .as_user(Method::POST, &format!("{M}/hooks"), token)
            .json(&body)
            .send()
    };
    let r = create(
        &bob,
        json!({"kind": "web", "url": "https://example.com/hook"}),
    )
    .await
    .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = c
        .app
        .as_user(Method::GET, &format!("{M}/hooks"), &bob)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    for url in [
        "ftp://example.com/hook",
        "http://127.0.0.1:9/hook",
        "http://10.0.0.1/hook",
        "http://[::1]/hook",
        "http://169.254.169.254/latest/meta-data",
    ] {
        let r = create(&c.token, json!({"kind": "web", "url": url}))
            .await
            .unwrap();
        expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    }
    let r = create(
        &c.token,
        json!({"kind": "web", "url": "https://93.184.216.34/h", "events": ["pull"]}),
    )
    .await
    .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let r = create(
        &c.token,
        json!({"kind": "web", "url": "https://93.184.216.34/h", "secret": "short"}),
    )
    .await
    .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let r = create(
        &c.token,
        json!({"kind": "ci", "app": "buildkite", "pipeline": "o/p"}),
    )
    .await
    .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "ci_not_configured").await;
    let h: Value = expect_json(
        create(&c.token, json!({"kind": "web", "url": "https://93.184.216.34/h", "secret": "a secret of mine, long enough"}))
            .await
            .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(h["secret"], "a secret of mine, long enough");
    assert_eq!(h["events"], json!(["push"]));
    let r = c
        .app
        .as_user(
            Method::DELETE,
            &format!("{M}/hooks/{}", h["id"].as_str().unwrap()),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn the_first_retry_comes_10_s_after_a_failure_and_the_next_a_minute_later() {
    let c = cloned(None).await;
    let rx = Receiver::start().await;
    rx.answer(&[500, 503]);
    let h = hook(&c.app, &c.token, json!({"kind": "web", "url": rx.url})).await;
    let id = h["id"].as_str().unwrap();
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    c.git.commit(&c.work, "x", &[("x.txt", b"x\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let got = rx.wait_for(2, Duration::from_secs(20)).await;
    let gap = got[1].at - got[0].at;
    assert!(
        gap >= Duration::from_secs(10) && gap < Duration::from_secs(13),
        "the retry came {gap:?} after the failure"
    );
    assert_eq!(got[0].delivery, got[1].delivery, "the same delivery");
    // Recorded: two tries, due again a minute after the second.
    let mut d = Value::Null;
    for _ in 0..100 {
        d = deliveries(&c.app, &c.token, id).await.remove(0);
        if d["attempts"] == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(d["state"], "pending");
    assert_eq!(d["tries"][1]["status"], 503);
    assert_eq!(d["tries"][1]["error"], "the receiver answered 503");
    let at = |v: &Value| {
        time::OffsetDateTime::parse(
            v.as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
    };
    let wait = at(&d["next_attempt_at"]) - at(&d["tries"][1]["at"]);
    assert!(
        wait >= time::Duration::seconds(59) && wait <= time::Duration::seconds(61),
        "next try {wait} after the second"
    );
}

#[tokio::test]
async fn dead_after_five_tries_then_redelivered_and_replayed() {
    let fast = TestApp::builder().hooks(HooksSettings {
        allowed_hosts: vec!["loopback".into()],
        retry_delays: vec![1, 1, 1, 1],
    });
    let c = cloned(Some(fast)).await;
    let rx = Receiver::start().await;
    rx.answer(&[500; 5]);
    let h = hook(&c.app, &c.token, json!({"kind": "web", "url": rx.url})).await;
    let id = h["id"].as_str().unwrap().to_owned();
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    c.git.commit(&c.work, "x", &[("x.txt", b"x\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    rx.wait_for(5, Duration::from_secs(20)).await;
    let mut d = Value::Null;
    for _ in 0..100 {
        d = deliveries(&c.app, &c.token, &id).await.remove(0);
        if d["state"] == "dead" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(d["state"], "dead");
    assert_eq!(d["attempts"], 5);
    assert_eq!(d["next_attempt_at"], Value::Null);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(rx.got().len(), 5, "a dead delivery is not tried again");

    // Redeliver: the same delivery, a fresh token, attempts counting on.
    let delivery = d["id"].as_str().unwrap();
    let r = c
        .app
        .as_user(
            Method::POST,
            &format!("{M}/hooks/{id}/deliveries/{delivery}/redeliver"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    let again: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(again["state"], "pending");
    let got = rx.wait_for(6, Duration::from_secs(10)).await;
    assert_eq!(got[5].delivery, delivery);
    assert_eq!(got[5].json()["seq"], got[0].json()["seq"]);
    assert_ne!(got[5].json()["read_token"], got[0].json()["read_token"]);
    for _ in 0..100 {
        d = deliveries(&c.app, &c.token, &id).await.remove(0);
        if d["state"] == "delivered" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        (d["state"].as_str(), d["attempts"].as_i64()),
        (Some("delivered"), Some(6))
    );

    // Replay: every delivery after a seq, oldest first.
    c.git.commit(&c.work, "y", &[("y.txt", b"y\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    rx.wait_for(7, Duration::from_secs(10)).await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/hooks/{id}/replay"), &c.token)
        .json(&json!({"since": 0}))
        .send()
        .await
        .unwrap();
    let replayed: Value = expect_json(r, StatusCode::OK).await;
    let ids: Vec<&str> = replayed["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    let got = rx.wait_for(9, Duration::from_secs(10)).await;
    // Queued oldest first; they arrive unordered, as every delivery may.
    let seq_of = |id: &str| {
        got.iter()
            .find(|g| g.delivery == id)
            .map(|g| g.json()["seq"].as_i64().unwrap())
            .unwrap()
    };
    assert_eq!(ids.len(), 2);
    assert!(seq_of(ids[0]) < seq_of(ids[1]), "oldest first");
    let mut again: Vec<&str> = got[7..].iter().map(|g| g.delivery.as_str()).collect();
    again.sort();
    let mut want = ids.clone();
    want.sort();
    assert_eq!(again, want);
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/hooks/{id}/replay"), &c.token)
        .json(&json!({"since": seq_of(ids[1])}))
        .send()
        .await
        .unwrap();
    let none: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(none["deliveries"], json!([]));
}

#[tokio::test]
async fn a_delivery_due_when_the_server_stops_is_delivered_after_restart() {
    let fast = TestApp::builder().hooks(HooksSettings {
        allowed_hosts: vec!["loopback".into()],
        retry_delays: vec![2],
    });
    let mut c = cloned(Some(fast)).await;
    let rx = Receiver::start().await;
    rx.answer(&[500]);
    hook(&c.app, &c.token, json!({"kind": "web", "url": rx.url})).await;
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    c.git.commit(&c.work, "x", &[("x.txt", b"x\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    rx.wait_for(1, Duration::from_secs(10)).await;
    // Once the failed try is recorded (a try cut off by the stop would wait out its
    // lease instead), the delivery is due again in 2 s.
    let id = c.app.get_json(&c.token, &format!("{M}/hooks")).await["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for _ in 0..100 {
        if deliveries(&c.app, &c.token, &id).await[0]["attempts"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    c.app.restart().await;
    let got = rx.wait_for(2, Duration::from_secs(15)).await;
    assert_eq!(got[0].delivery, got[1].delivery);
}

#[tokio::test]
async fn two_servers_deliver_each_delivery_once() {
    let c = cloned(None).await;
    // Servers scale out on PostgreSQL; on SQLite the one server delivers each once.
    let twin = if c.app.config.database_url.starts_with("postgres") {
        Some(c.app.twin().await)
    } else {
        None
    };
    let rx = Receiver::start().await;
    hook(&c.app, &c.token, json!({"kind": "web", "url": rx.url})).await;
    for i in 0..12 {
        c.git
            .ok(&c.work, &["checkout", "-q", "-B", &format!("b{i}"), "main"]);
        c.git
            .commit(&c.work, "x", &[(&format!("x{i}.txt"), b"x\n")]);
        c.git
            .ok(&c.work, &["push", "-q", "origin", &format!("b{i}")]);
    }
    let got = rx.wait_for(12, Duration::from_secs(20)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got = if rx.got().len() > got.len() {
        rx.got()
    } else {
        got
    };
    let mut ids: Vec<&str> = got.iter().map(|g| g.delivery.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!((ids.len(), got.len()), (12, 12), "each once");
    drop(twin);
}

/// A process that died mid-try left its lease: no other takes the delivery while the
/// lease holds, and one does once it has run out.
#[tokio::test]
async fn a_try_whose_process_died_is_made_again_when_its_lease_runs_out() {
    use svc_server::store::hooks::{self as rows, DeliveryRow};
    let c = cloned(None).await;
    let rx = Receiver::start().await;
    let h = hook(&c.app, &c.token, json!({"kind": "web", "url": rx.url})).await;
    let store = svc_server::store::Store::open(&c.app.config.database_url)
        .await
        .unwrap();
    let now = svc_server::store::now_ms();
    let repo = c.app.get_json(&c.token, R).await;
    let repo_id = {
        let mut conn = store.read().await.unwrap();
        let m = svc_server::store::monorepos::by_label_with_role(conn.h(), "ann", "mono", "")
            .await
            .unwrap()
            .unwrap();
        svc_server::store::repos::by_name(conn.h(), &m.monorepo.id, repo["name"].as_str().unwrap())
            .await
            .unwrap()
            .unwrap()
            .id
    };
    let row = DeliveryRow {
        id: "d_orphan".into(),
        hook_id: h["id"].as_str().unwrap().into(),
        repo_id: Some(repo_id),
        event: "push".into(),
        seq: Some(1),
        body: json!({"event": "push", "repo": "app", "ref": "refs/heads/main"}).to_string(),
        state: "pending".into(),
        attempts: 0,
        round_tries: 0,
        next_attempt_at: Some(now - 1_000),
        lease_until: Some(now + 2_000),
        created_at: now - 1_000,
    };
    // The server writes to the same SQLite file: a busy moment is tried again.
    let mut written = false;
    for _ in 0..50 {
        let attempt = async {
            let mut tx = store.begin().await?;
            rows::insert_delivery(tx.h(), &row).await?;
            tx.commit().await
        };
        if attempt.await.is_ok() {
            written = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(written, "the orphan delivery is written");
    store.close().await;
    // A change wakes the worker: its own delivery leaves at once, the leased one waits.
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    c.git.commit(&c.work, "x", &[("x.txt", b"x\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let got = rx.wait_for(1, Duration::from_secs(10)).await;
    assert_ne!(got[0].delivery, "d_orphan");
    let got = rx.wait_for(2, Duration::from_secs(10)).await;
    assert_eq!(got[1].delivery, "d_orphan");
    let waited = svc_server::store::now_ms() - now;
    assert!(
        waited >= 2_000,
        "taken {waited} ms after, while the lease held"
    );
}

#[tokio::test]
async fn addresses_that_carry_a_forbidden_ipv4_are_refused_at_create_and_at_every_try() {
    let c = cloned(None).await;
    let rx = Receiver::start().await;
    assert!(rx.url.starts_with("http://127.0.0.1:"), "{}", rx.url);
    let h = hook(&c.app, &c.token, json!({"kind": "web", "url": rx.url})).await;
    let id = h["id"].as_str().unwrap().to_owned();
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    c.git.commit(&c.work, "one", &[("x.txt", b"1\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    rx.wait_for(1, Duration::from_secs(10)).await;

    // The operator takes loopback away; the stored hook's address is written in its URL,
    // which no resolver sees.
    let mut app = c.app;
    app.config.hooks.allowed_hosts = vec!["external".into()];
    app.restart().await;
    c.git.commit(&c.work, "two", &[("x.txt", b"2\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let mut refused = None;
    for _ in 0..500 {
        let all = deliveries(&app, &c.token, &id).await;
        refused = all
            .iter()
            .flat_map(|d| d["tries"].as_array().cloned().unwrap_or_default())
            .find(|t| !t["error"].is_null());
        if refused.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let refused = refused.expect("the try after the restart is recorded");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("which hooks may not reach"),
        "{refused}"
    );
    assert_eq!(refused["status"], Value::Null, "nothing was sent");
    assert_eq!(rx.got().len(), 1, "only the try before the restart arrived");

    // IPv6 forms that carry loopback are refused like it.
    for url in [
        "http://[::7f00:1]/hook",
        "http://[::ffff:7f00:1]/hook",
        "http://[64:ff9b::7f00:1]/hook",
        "http://[64:ff9b:1::7f00:1]/hook",
        "http://[2002:7f00:1::]/hook",
        "http://[2001:0:5db8:d822::80ff:fffe]/hook",
        "http://[::ffff:10.0.0.1]/hook",
    ] {
        let r = app
            .as_user(Method::POST, &format!("{M}/hooks"), &c.token)
            .json(&json!({"kind": "web", "url": url}))
            .send()
            .await
            .unwrap();
        let body = expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("which hooks may not reach"),
            "{url}: {body}"
        );
    }
    // One that carries a public address is a hook like any other.
    hook(
        &app,
        &c.token,
        json!({"kind": "web", "url": "http://[64:ff9b::5db8:d822]/hook", "events": ["tag"]}),
    )
    .await;
}
