//! The monorepo event stream over real sockets and as JSON pages: catch-up and resync
//! at the 500 boundary, topics, ping, access loss, deletion, pull filters, the switch,
//! and live fan-out between two server processes on one PostgreSQL.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::ws::Closed;
use svc_tests::{TestApp, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";

/// ann's monorepo `mono` with repo `api`, main pushed once; answers main's sha.
async fn world() -> (svc_tests::Cloned, String) {
    let w = svc_tests::Cloned::new("mono", "api").await;
    let sha = w.git.commit(&w.work, "base", &[("a.txt", b"a\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "main"]);
    (w, sha)
}

async fn status(app: &TestApp, token: &str, sha: &str, context: &str, state: &str) {
    let r = app
        .as_user(
            Method::POST,
            &format!("{M}/repos/api/statuses/{sha}"),
            token,
        )
        .json(&json!({"context": context, "state": state}))
        .send()
        .await
        .expect("post status");
    assert_eq!(r.status(), StatusCode::CREATED);
}

async fn pull(app: &TestApp, token: &str, query: &str) -> Value {
    app.get_json(token, &format!("{M}/events?{query}")).await
}

fn seqs(page: &Value) -> Vec<i64> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|e| e["seq"].as_i64().expect("seq"))
        .collect()
}

#[tokio::test]
async fn catch_up_resync_live_ping_and_errors() {
    let (w, sha) = world().await;
    let (app, token) = (&w.app, &w.token);
    for i in 0..505 {
        let state = if i % 2 == 0 { "pending" } else { "success" };
        status(app, token, &sha, "ci", state).await;
    }
    let last = pull(app, token, "limit=1").await["seq"]
        .as_i64()
        .expect("seq");
    assert!(last > 505);

    // Exactly 500 after `since`: all of them, oldest first, then caught_up.
    let mut ws = app
        .ws(&format!("{M}/events?since={}", last - 500), token)
        .await;
    let (caught_up, events) = ws.until("caught_up").await;
    assert_eq!(caught_up["seq"], last);
    let got: Vec<i64> = events
        .iter()
        .map(|e| e["seq"].as_i64().expect("seq"))
        .collect();
    assert_eq!(got, ((last - 499)..=last).collect::<Vec<_>>());
    assert!(
        events
            .iter()
            .all(|e| e["type"] == "event" && e["monorepo"] == "ann/mono")
    );

    // 501: one resync, no events, then caught_up.
    let mut ws = app
        .ws(&format!("{M}/events?since={}", last - 501), token)
        .await;
    assert_eq!(
        ws.next().await,
        json!({"type": "resync", "seq": last, "oldest_seq": 1})
    );
    assert_eq!(ws.next().await["type"], "caught_up");

    // Live: a new status arrives as an event frame; ping answers pong; junk is an
    // error and the socket stays open.
    let mut ws = app.ws(&format!("{M}/events"), token).await;
    assert_eq!(ws.next().await, json!({"type": "caught_up", "seq": last}));
    status(app, token, &sha, "lint", "failure").await;
    let e = ws.next().await;
    assert_eq!(
        (e["type"].as_str(), e["kind"].as_str(), e["seq"].as_i64()),
        (Some("event"), Some("status"), Some(last + 1))
    );
    assert_eq!(e["collection"], "statuses");
    assert_eq!(e["row"]["context"], "lint");
    ws.send("ping").await;
    assert_eq!(ws.next().await, "pong");
    ws.send("{\"type\": \"subscribe\"}").await;
    assert_eq!(ws.next().await["type"], "error");
    ws.send("ping").await;
    assert_eq!(ws.next().await, "pong");
}

#[tokio::test]
async fn topics_filter_catch_up_and_live_events() {
    let (w, sha) = world().await;
    let (app, token) = (&w.app, &w.token);
    let web_url = app.repo(token, "ann/mono", "web").await["clone_url"]
        .as_str()
        .expect("clone_url")
        .to_owned();
    let start = pull(app, token, "limit=1").await["seq"]
        .as_i64()
        .expect("seq");
    let mut main_api = app.ws(&format!("{M}/events?topics=main:api"), token).await;
    let mut statuses = app
        .ws(&format!("{M}/events?topics=kind:status,main:web"), token)
        .await;
    assert_eq!(main_api.next().await["type"], "caught_up");
    assert_eq!(statuses.next().await["type"], "caught_up");

    // web's first push of main, a status, then a branch push and a main move in api.
    w.git
        .ok(w.git.home.path(), &["clone", "-q", &web_url, "web"]);
    let web = w.git.path("web");
    w.git.commit(&web, "web base", &[("w.txt", b"w\n")]);
    w.git.ok(&web, &["push", "-q", "origin", "main"]);
    status(app, token, &sha, "ci", "success").await;
    w.git.ok(&w.work, &["checkout", "-q", "-b", "topic"]);
    w.git.commit(&w.work, "topic", &[("t.txt", b"t\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "topic"]);
    let r = app
        .as_user(
            Method::POST,
            &format!("{M}/repos/api/branches/topic/merge"),
            token,
        )
        .send()
        .await
        .expect("merge");
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "{}",
        r.text().await.unwrap_or_default()
    );

    let e = main_api.next().await;
    assert_eq!(
        (e["kind"].as_str(), e["repo"].as_str()),
        (Some("default_head.updated"), Some("api"))
    );
    assert_eq!(e["collection"], "default_heads");
    let e = statuses.next().await;
    assert_eq!(
        (e["kind"].as_str(), e["repo"].as_str()),
        (Some("push"), Some("web"))
    );
    assert_eq!(e["collection"], "default_heads");
    let e = statuses.next().await;
    assert_eq!(e["kind"], "status");

    // The same topics over the catch-up and over a pull.
    let mut again = app
        .ws(&format!("{M}/events?since={start}&topics=main:api"), token)
        .await;
    let (_, events) = again.until("caught_up").await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["kind"], "default_head.updated");
    let page = pull(app, token, &format!("since={start}&topics=main")).await;
    let kinds: Vec<(&str, &str)> = page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap_or(""),
                e["repo"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(kinds, [("push", "web"), ("default_head.updated", "api")]);
}

#[tokio::test]
async fn pull_filters_and_limits() {
    let (w, sha) = world().await;
    let (app, token) = (&w.app, &w.token);
    for (i, context) in ["a", "b", "c", "d", "e", "f"].iter().enumerate() {
        status(
            app,
            token,
            &sha,
            context,
            if i % 2 == 0 { "success" } else { "failure" },
        )
        .await;
    }
    let all = pull(app, token, "").await;
    let last = all["seq"].as_i64().expect("seq");
    assert_eq!(seqs(&all), (1..=last).collect::<Vec<_>>());
    assert!(all["next_before"].is_null());

    // The latest `limit`, oldest first; `before` pages back; `since` pages on.
    let latest = pull(app, token, "limit=2").await;
    assert_eq!(seqs(&latest), [last - 1, last]);
    assert_eq!(latest["next_before"], last - 1);
    let back = pull(app, token, &format!("limit=2&before={}", last - 1)).await;
    assert_eq!(seqs(&back), [last - 3, last - 2]);
    let on = pull(app, token, &format!("limit=2&since={}", last - 3)).await;
    assert_eq!(seqs(&on), [last - 2, last - 1]);
    assert_eq!(on["next_since"], last - 1);

    // kinds, repo, topics.
    let statuses = pull(app, token, "kinds=status").await;
    assert_eq!(statuses["items"].as_array().expect("items").len(), 6);
    let pushes = pull(app, token, "kinds=push,branch.opened&repo=api").await;
    assert!(!seqs(&pushes).is_empty());
    assert!(
        pushes["items"]
            .as_array()
            .expect("items")
            .iter()
            .all(|e| e["kind"] == "push")
    );
    let none = pull(app, token, "repo=meta").await;
    assert!(seqs(&none).is_empty());
    let two = pull(app, token, "topics=kind:status&limit=2").await;
    assert_eq!(two["items"][1]["row"]["context"], "f");

    for (query, what) in [
        ("limit=501", "limit"),
        ("limit=0", "limit"),
        (&*format!("kinds={}", ["push"; 21].join(",")), "kinds"),
        (&*format!("topics={}", ["main"; 11].join(",")), "topics"),
        ("topics=branches", "topic"),
        ("topics=feed", "feed"),
    ] {
        let r = app
            .as_user(Method::GET, &format!("{M}/events?{query}"), token)
            .send()
            .await
            .expect("pull");
        let body = expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains(what),
            "{query}: {body}"
        );
    }
}

#[tokio::test]
async fn sockets_close_on_access_loss_and_deletion() {
    let (w, _) = world().await;
    let (app, token) = (&w.app, &w.token);
    let bob = app
        .bootstrap(json!({"email": "bob@example.com"}))
        .await
        .credential
        .token;
    let r = app
        .as_user(Method::PUT, &format!("{M}/members/bob"), token)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .expect("add bob");
    assert_eq!(r.status(), StatusCode::OK);
    let mut bobs = app.ws(&format!("{M}/events"), &bob).await;
    let mut anns = app.ws(&format!("{M}/events"), token).await;
    assert_eq!(bobs.next().await["type"], "caught_up");
    assert_eq!(anns.next().await["type"], "caught_up");

    let r = app
        .as_user(Method::DELETE, &format!("{M}/members/bob"), token)
        .send()
        .await
        .expect("remove bob");
    assert!(r.status().is_success());
    assert_eq!(bobs.closed().await, Closed::Code(4403));
    // An outsider cannot open one at all.
    assert_eq!(
        app.try_ws(&format!("{M}/events"), &bob)
            .await
            .err()
            .map(|e| e.0),
        Some(404)
    );

    let r = app
        .as_user(Method::DELETE, &format!("{M}?confirm=ann/mono"), token)
        .send()
        .await
        .expect("delete");
    assert!(r.status().is_success());
    assert_eq!(anns.closed().await, Closed::Code(4404));
}

/// Once the revocation answers, the credential's socket gets no further frame and
/// closes with 4403 at once, whether it is held by this server or (on PostgreSQL) by
/// another process.
#[tokio::test]
async fn a_revoked_credential_closes_its_socket() {
    let (w, sha) = world().await;
    let (app, token) = (&w.app, &w.token);
    let twin = if app.config.database_url.starts_with("postgres") {
        Some(app.twin().await)
    } else {
        None
    };
    for holder in std::iter::once(app).chain(twin.as_ref()) {
        let made: Value = expect_json(
            app.as_user(Method::POST, "/v1/user/credentials", token)
                .json(&json!({"name": "laptop", "kind": "machine"}))
                .send()
                .await
                .expect("create"),
            StatusCode::CREATED,
        )
        .await;
        let laptop = made["token"].as_str().expect("token");
        let mut ws = holder.ws(&format!("{M}/events"), laptop).await;
        assert_eq!(ws.next().await["type"], "caught_up");
        status(app, token, &sha, "ci", "pending").await;
        assert_eq!(ws.next().await["type"], "event", "events flow before");
        let id = made["id"].as_str().expect("id");
        let r = app
            .as_user(Method::DELETE, &format!("/v1/user/credentials/{id}"), token)
            .send()
            .await
            .expect("revoke");
        assert!(r.status().is_success());
        let answered = std::time::Instant::now();
        for state in ["success", "failure"] {
            status(app, token, &sha, "ci", state).await;
        }
        assert_eq!(
            ws.next_or_close().await,
            Err(Closed::Code(4403)),
            "no frame after the revocation answered"
        );
        assert!(
            answered.elapsed() < std::time::Duration::from_secs(1),
            "closed promptly: {:?}",
            answered.elapsed()
        );
    }
}

#[tokio::test]
async fn a_switched_off_stream_answers_501() {
    let app = TestApp::builder().without_event_stream().start().await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&token, json!({"name": "mono"})).await;
    let r = app
        .as_user(Method::GET, &format!("{M}/events"), &token)
        .send()
        .await
        .expect("pull");
    expect_error(r, StatusCode::NOT_IMPLEMENTED, "event_stream_on_hold").await;
    let refused = app.try_ws(&format!("{M}/events"), &token).await.err();
    assert_eq!(refused.map(|e| e.0), Some(501));
}

/// Several server processes on one PostgreSQL: an event made through one reaches a
/// socket held by the other (LISTEN/NOTIFY). On SQLite there is one process: skipped.
#[tokio::test]
async fn events_fan_out_across_server_processes() {
    let (w, sha) = world().await;
    if !w.app.config.database_url.starts_with("postgres") {
        return;
    }
    let twin = w.app.twin().await;
    let mut ws = twin
        .ws(&format!("{M}/events?topics=kind:status"), &w.token)
        .await;
    assert_eq!(ws.next().await["type"], "caught_up");
    status(&w.app, &w.token, &sha, "ci", "success").await;
    let e = ws.next().await;
    assert_eq!(
        (e["kind"].as_str(), e["row"]["context"].as_str()),
        (Some("status"), Some("ci"))
    );
}

/// The `members` collection: adding someone, changing their role, an invite to a known
/// person's email and taking their row away are each an event of the monorepo, written
/// with the change, with the member's row (or `{login}` when gone).
#[tokio::test]
async fn member_changes_are_events_of_the_members_collection() {
    let (w, _) = world().await;
    let (app, token) = (&w.app, &w.token);
    app.bootstrap(json!({"email": "bob@example.com", "login": "bob", "password": "bob password"}))
        .await;
    let members = |since: i64| async move {
        let page = pull(
            app,
            token,
            &format!("since={since}&kinds=member.updated,member.removed"),
        )
        .await;
        page["items"].as_array().expect("items").clone()
    };
    let start = pull(app, token, "limit=1").await["seq"]
        .as_i64()
        .expect("seq");
    let put = |role: &'static str| async move {
        let r = app
            .as_user(Method::PUT, &format!("{M}/members/bob"), token)
            .json(&json!({"role": role}))
            .send()
            .await
            .unwrap();
        let _: Value = expect_json(r, StatusCode::OK).await;
    };
    put("member").await;
    put("owner").await;
    let r = app
        .as_user(Method::DELETE, &format!("{M}/members/bob"), token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = app
        .as_user(Method::POST, &format!("{M}/invites"), token)
        .json(&json!({"email": "bob@example.com"}))
        .send()
        .await
        .unwrap();
    let added: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(added["status"], "added", "{added}");

    let events = members(start).await;
    let seen: Vec<(&str, &str, &str, Value)> = events
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap(),
                e["collection"].as_str().unwrap(),
                e["op"].as_str().unwrap(),
                e["row"]["role"].clone(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("member.updated", "members", "upsert", json!("member")),
            ("member.updated", "members", "upsert", json!("owner")),
            ("member.removed", "members", "delete", Value::Null),
            ("member.updated", "members", "upsert", json!("member")),
        ],
        "{events:?}"
    );
    for e in &events {
        assert_eq!(e["key"], "bob", "{e}");
        assert_eq!(e["row"]["login"], "bob", "{e}");
        assert_eq!(e["actor"], "ann", "{e}");
    }
}

/// A change of an org's people is a change of each monorepo it owns: `member.updated`
/// with the row the org gives (`via: org`), then `member.removed` when they leave it.
#[tokio::test]
async fn org_people_changes_are_member_events_of_the_org_s_monorepos() {
    let app = TestApp::start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com", "login": "ann", "password": "ann password"}))
        .await
        .credential
        .token;
    app.bootstrap(json!({"email": "bob@example.com", "login": "bob", "password": "bob password"}))
        .await;
    let r = app
        .as_user(Method::POST, "/v1/orgs", &ann)
        .json(&json!({"login": "acme"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    app.monorepo(&ann, json!({"name": "tools", "owner": "acme"}))
        .await;
    let events = "/v1/monorepos/acme/tools/events?kinds=member.updated,member.removed";
    let before = app.get_json(&ann, events).await;
    assert_eq!(before["items"], json!([]), "{before}");
    let r = app
        .as_user(Method::PUT, "/v1/orgs/acme/members/bob", &ann)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = app
        .as_user(Method::DELETE, "/v1/orgs/acme/members/bob", &ann)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let page = app.get_json(&ann, events).await;
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{page}");
    assert_eq!(items[0]["kind"], "member.updated", "{page}");
    assert_eq!(items[0]["row"]["login"], "bob", "{page}");
    assert_eq!(items[0]["row"]["via"], "org", "{page}");
    assert_eq!(items[1]["kind"], "member.removed", "{page}");
    assert_eq!(items[1]["key"], "bob", "{page}");
}
