//! The person-wide activity feed: `GET /v1/events` pages and the person's activity
//! socket, end to end with real git and real sockets.

use std::path::PathBuf;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_protocol::feed::FeedEvent;
use svc_tests::git::Git;
use svc_tests::{TestApp, expect_error, expect_json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const R: &str = "/v1/monorepos/ann/mono/repos/app";

/// `ann/mono` with repo `app`, main pushed (one commit), cloned in `work`.
struct World {
    app: TestApp,
    token: String,
    git: Git,
    work: PathBuf,
}

async fn world() -> World {
    let svc_tests::Cloned {
        app,
        token,
        git,
        work,
    } = svc_tests::Cloned::new("mono", "app").await;
    git.commit(&work, "base", &[("a.txt", b"one\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    World {
        app,
        token,
        git,
        work,
    }
}

impl World {
    /// Commits `n` files on `branch` (made from main when new) and pushes; answers the head.
    fn push(&self, branch: &str, n: usize) -> String {
        let exists = !self
            .git
            .ok(&self.work, &["branch", "--list", branch])
            .trim()
            .is_empty();
        if !exists {
            self.git
                .ok(&self.work, &["checkout", "-q", "-b", branch, "origin/main"]);
        } else {
            self.git.ok(&self.work, &["checkout", "-q", branch]);
        }
        let mut head = String::new();
        for i in 0..n {
            let name = format!("{branch}-{}.txt", rand_suffix(i));
            head = self.git.commit(&self.work, "work", &[(&name, b"x\n")]);
        }
        self.git.ok(&self.work, &["push", "-q", "origin", branch]);
        head
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        let r = self
            .app
            .as_user(Method::POST, path, &self.token)
            .json(&body)
            .send()
            .await
            .unwrap();
        expect_json(r, StatusCode::CREATED).await
    }

    async fn status(&self, sha: &str, state: &str) {
        self.post(
            &format!("{R}/statuses/{sha}"),
            json!({"context": "ci/test", "state": state}),
        )
        .await;
    }

    /// Every line, paging with `limit` through the cursor.
    async fn all_lines(&self, token: &str, limit: usize) -> Vec<Value> {
        let mut lines = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..100 {
            let mut path = format!("/v1/events?limit={limit}");
            if let Some(c) = &cursor {
                path.push_str(&format!("&cursor={c}"));
            }
            let page = self.app.get_json(token, &path).await;
            let items = page["items"].as_array().unwrap();
            assert!(items.len() <= limit, "{page}");
            lines.extend(items.iter().cloned());
            match page["next"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => return lines,
            }
        }
        panic!("paging does not end");
    }
}

/// A distinct file name per commit across calls.
fn rand_suffix(i: usize) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    format!("{i}-{}", N.fetch_add(1, Ordering::Relaxed))
}

/// The display key of a line, `(at, monorepo_id, seq)`, read as the wire type.
fn key(line: &Value) -> impl Ord {
    let e: FeedEvent = serde_json::from_value(line.clone()).unwrap();
    (e.at, e.monorepo_id, e.seq)
}

#[tokio::test]
async fn activity_pages_by_display_key_with_a_cursor() {
    let w = world().await;
    let first = w.push("feat", 2);
    let second = w.push("feat", 1);
    w.post(
        &format!("{R}/branches/feat/reviews"),
        json!({"state": "approve", "body": "looks good"}),
    )
    .await;
    w.status(&second, "pending").await;
    // The same state again is no line; a new state is.
    w.status(&second, "pending").await;
    w.status(&second, "success").await;
    w.status(&first, "failure").await;

    let all = w.all_lines(&w.token, 50).await;
    let kinds: Vec<&str> = all.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "status",
            "status",
            "status",
            "review",
            "push",
            "branch.opened",
            "push"
        ],
        "{all:#?}"
    );
    // Newest first by the display key.
    for pair in all.windows(2) {
        assert!(key(&pair[0]) > key(&pair[1]), "{pair:#?}");
    }
    for line in &all {
        assert_eq!(line["monorepo"], "ann/mono");
        assert!(line["monorepo_id"].as_str().unwrap().starts_with("m_"));
        assert_eq!(line["actor"], "ann");
        assert!(line.get("agent").is_none(), "{line}");
    }
    let main = &all[6];
    assert_eq!(
        (&main["repo"], &main["branch"]),
        (&json!("app"), &json!("main"))
    );
    assert_eq!(main["commits"], 1);
    let opened = &all[5];
    assert_eq!(opened["branch"], "feat");
    assert_eq!(opened["commits"], 2);
    assert_eq!(opened["head"], first.as_str());
    let push = &all[4];
    assert_eq!(push["commits"], 1);
    assert_eq!(push["before"], first.as_str());
    assert_eq!(push["head"], second.as_str());
    let review = &all[3];
    assert_eq!(
        (&review["branch"], &review["state"], &review["excerpt"]),
        (&json!("feat"), &json!("approve"), &json!("looks good"))
    );
    assert_eq!(
        (&all[0]["state"], &all[0]["sha"]),
        (&json!("failure"), &json!(first))
    );
    assert_eq!(
        (&all[1]["state"], &all[1]["context"]),
        (&json!("success"), &json!("ci/test"))
    );
    assert_eq!(all[2]["state"], "pending");

    // Small pages through the cursor give the same lines in the same order.
    let paged = w.all_lines(&w.token, 2).await;
    assert_eq!(paged, all);
    let r = w
        .app
        .as_user(Method::GET, "/v1/events?cursor=nonsense!", &w.token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_cursor").await;
}

#[tokio::test]
async fn outsiders_see_nothing_until_they_are_members() {
    let w = world().await;
    w.push("feat", 1);
    let bob = w
        .app
        .bootstrap(json!({"email": "bob@example.com", "name": "Bob"}))
        .await;
    let bob_token = bob.credential.token;
    let page = w.app.get_json(&bob_token, "/v1/events").await;
    assert_eq!(page, json!({"items": [], "next": null, "skipped": []}));
    let page = w.app.get_json(&bob_token, "/v1/events?in=ann/mono").await;
    assert_eq!(page["items"], json!([]));

    let r = w
        .app
        .as_user(Method::PUT, "/v1/monorepos/ann/mono/members/bob", &w.token)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    let page = w.app.get_json(&bob_token, "/v1/events").await;
    assert_eq!(page["items"].as_array().unwrap().len(), 2, "{page}");
}

#[tokio::test]
async fn in_narrows_and_more_than_twenty_active_monorepos_are_skipped() {
    let w = world().await;
    let mut labels = vec!["ann/mono".to_owned()];
    for i in 0..21 {
        let name = format!("m{i:02}");
        w.app.monorepo(&w.token, json!({"name": name})).await;
        let url = w.app.repo(&w.token, &format!("ann/{name}"), "app").await["clone_url"]
            .as_str()
            .unwrap()
            .to_owned();
        w.git.ok(&w.work, &["push", "-q", &url, "main"]);
        labels.push(format!("ann/{name}"));
    }
    // Most recently active first: the two oldest pushes are skipped.
    let page = w.app.get_json(&w.token, "/v1/events").await;
    assert_eq!(page["skipped"], json!(["ann/m00", "ann/mono"]), "{page}");
    let seen: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["monorepo"].as_str().unwrap())
        .collect();
    assert_eq!(seen.len(), 20);
    assert_eq!(seen[0], "ann/m20");
    assert!(!seen.contains(&"ann/mono") && !seen.contains(&"ann/m00"));

    let page = w
        .app
        .get_json(&w.token, "/v1/events?in=ann/mono,ann/m00")
        .await;
    assert_eq!(page["skipped"], json!([]));
    let seen: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["monorepo"].as_str().unwrap())
        .collect();
    assert_eq!(seen, ["ann/m00", "ann/mono"]);

    // An old label still narrows; lines carry the current label.
    let r = w
        .app
        .as_user(Method::PATCH, "/v1/monorepos/ann/m00", &w.token)
        .json(&json!({"name": "renamed"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    let page = w.app.get_json(&w.token, "/v1/events?in=ann/m00").await;
    assert_eq!(page["items"][0]["monorepo"], "ann/renamed", "{page}");
    assert_eq!(page["items"].as_array().unwrap().len(), 1);

    let r = w
        .app
        .as_user(Method::GET, "/v1/events?in=nolabel", &w.token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(app: &TestApp, token: &str) -> Socket {
    connect_to(app, token, "/v1/events").await
}

async fn connect_to(app: &TestApp, token: &str, path: &str) -> Socket {
    let url = format!("{}{path}", app.base.replacen("http", "ws", 1));
    let mut req = url.into_client_request().unwrap();
    req.headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    let (socket, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    socket
}

async fn send(socket: &mut Socket, frame: Value) {
    socket
        .send(Message::Text(frame.to_string().into()))
        .await
        .unwrap();
}

/// The next text frame, as JSON (`pong` as the string).
async fn next(socket: &mut Socket) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(30), socket.next())
            .await
            .expect("a frame within 30 s")
            .expect("socket open")
            .expect("frame");
        match msg {
            Message::Text(t) if t.as_str() == "pong" => return json!("pong"),
            Message::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
            Message::Close(c) => panic!("socket closed: {c:?}"),
            _ => {}
        }
    }
}

/// The next frame of `type`, skipping others.
async fn next_of(socket: &mut Socket, kind: &str) -> Value {
    loop {
        let f = next(socket).await;
        if f["type"] == kind {
            return f;
        }
    }
}

#[tokio::test]
async fn person_socket_replays_then_streams_live_lines() {
    let w = world().await;
    w.push("feat", 2);
    let mut s = connect(&w.app, &w.token).await;
    send(&mut s, json!({"type": "hello", "since": 0})).await;
    let a = next(&mut s).await;
    let b = next(&mut s).await;
    assert_eq!(
        (&a["type"], &a["event"]["kind"]),
        (&json!("event"), &json!("push"))
    );
    assert_eq!(b["event"]["kind"], "branch.opened");
    assert_eq!(b["event"]["monorepo"], "ann/mono");
    let landed = b["landed"].as_i64().unwrap();
    assert!(landed > a["landed"].as_i64().unwrap());
    let caught = next(&mut s).await;
    assert_eq!(caught, json!({"type": "caught_up", "landed": landed}));

    // A hello from the last landed replays nothing.
    send(&mut s, json!({"type": "hello", "since": landed})).await;
    assert_eq!(
        next(&mut s).await,
        json!({"type": "caught_up", "landed": landed})
    );

    send(&mut s, json!("ping")).await; // JSON, not the text ping: not understood
    let e = next(&mut s).await;
    assert_eq!(e["type"], "error");
    s.send(Message::Text("ping".into())).await.unwrap();
    assert_eq!(next(&mut s).await, "pong");
    send(&mut s, json!({"type": "nonsense"})).await;
    assert_eq!(next(&mut s).await["type"], "error");

    // Live: a push lands as an event and counts as the person's own commits.
    let head = w.push("feat", 3);
    let mut got_event = None;
    let mut got_commits = None;
    while got_event.is_none() || got_commits.is_none() {
        let f = next(&mut s).await;
        match f["type"].as_str().unwrap() {
            "event" => got_event = Some(f),
            "contributed" => got_commits = Some(f),
            other => panic!("unexpected frame {other}: {f}"),
        }
    }
    let (event, contributed) = (got_event.unwrap(), got_commits.unwrap());
    assert_eq!(event["landed"], landed + 1);
    assert_eq!(event["event"]["kind"], "push");
    assert_eq!(event["event"]["head"], head.as_str());
    assert_eq!(event["event"]["commits"], 3);
    assert_eq!(contributed["kind"], "commit");
    assert_eq!(contributed["n"], 3);
    assert_eq!(contributed["monorepo"], "ann/mono");
    let hour = contributed["hour"].as_str().unwrap();
    assert_eq!(hour.len(), 13, "{hour}");
    assert_eq!(&event["event"]["at"].as_str().unwrap()[..13], hour);
}

#[tokio::test]
async fn person_socket_resyncs_past_five_hundred_lines() {
    let w = world().await;
    let head = w.push("feat", 1);
    let mut s = connect(&w.app, &w.token).await;
    send(&mut s, json!({"type": "hello"})).await;
    let start = next(&mut s).await["landed"].as_i64().unwrap();
    assert_eq!(start, 2);
    for i in 0..501 {
        let state = if i % 2 == 0 { "success" } else { "failure" };
        w.status(&head, state).await;
    }
    let top = start + 501;
    // The live lines of this socket, then a second socket's replay.
    let mut s2 = connect(&w.app, &w.token).await;
    send(&mut s2, json!({"type": "hello", "since": start})).await;
    assert_eq!(
        next(&mut s2).await,
        json!({"type": "resync", "landed": top})
    );
    assert_eq!(
        next(&mut s2).await,
        json!({"type": "caught_up", "landed": top})
    );
    send(&mut s2, json!({"type": "hello", "since": start + 1})).await;
    for n in start + 2..=top {
        let f = next(&mut s2).await;
        assert_eq!(
            (&f["type"], &f["landed"]),
            (&json!("event"), &json!(n)),
            "{f}"
        );
        assert_eq!(f["event"]["kind"], "status");
    }
    assert_eq!(
        next(&mut s2).await,
        json!({"type": "caught_up", "landed": top})
    );
    // The first socket saw all 501 live, in landed order.
    for n in start + 1..=top {
        let f = next_of(&mut s, "event").await;
        assert_eq!(f["landed"], n);
    }
}

#[tokio::test]
async fn person_socket_tells_of_joining_and_leaving() {
    let w = world().await;
    let bob = w
        .app
        .bootstrap(json!({"email": "bob@example.com", "name": "Bob"}))
        .await;
    let mut s = connect(&w.app, &bob.credential.token).await;
    send(&mut s, json!({"type": "hello"})).await;
    assert_eq!(next(&mut s).await["type"], "caught_up");
    let member = |method: Method| {
        w.app
            .as_user(method, "/v1/monorepos/ann/mono/members/bob", &w.token)
    };
    let r = member(Method::PUT)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let joined = next(&mut s).await;
    assert_eq!(joined["type"], "joined");
    assert_eq!(joined["monorepo"], "ann/mono");
    assert_eq!(joined["large"], false);
    // Bob now gets ann/mono's lines, but no contributions: they are ann's.
    w.push("feat", 1);
    let f = next(&mut s).await;
    assert_eq!(
        (&f["type"], &f["event"]["kind"]),
        (&json!("event"), &json!("branch.opened"))
    );
    assert_eq!(f["event"]["actor"], "ann");

    let r = member(Method::DELETE).send().await.unwrap();
    assert!(r.status().is_success());
    let left = next(&mut s).await;
    assert_eq!(
        left,
        json!({"type": "left", "monorepo": "ann/mono", "monorepo_id": joined["monorepo_id"]})
    );
}

#[tokio::test]
async fn retention_prunes_and_a_replay_from_before_it_resyncs() {
    let w = world().await;
    w.push("feat", 1);
    w.push("feat", 1);
    let store = svc_server::store::Store::open(&w.app.config.database_url)
        .await
        .unwrap();
    // Nothing is a week old; keeping the newest line removes the two before it.
    let now = svc_server::store::now_ms();
    let gone = svc_server::feed::prune(&store, now - svc_server::feed::KEEP_MS, 1)
        .await
        .unwrap();
    assert_eq!(gone, 2);
    let page = w.app.get_json(&w.token, "/v1/events").await;
    let kinds: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["push"]);

    let mut s = connect(&w.app, &w.token).await;
    send(&mut s, json!({"type": "hello", "since": 1})).await;
    assert_eq!(next(&mut s).await, json!({"type": "resync", "landed": 3}));
    assert_eq!(
        next(&mut s).await,
        json!({"type": "caught_up", "landed": 3})
    );
    send(&mut s, json!({"type": "hello", "since": 2})).await;
    assert_eq!(next(&mut s).await["landed"], 3);
    assert_eq!(next(&mut s).await["type"], "caught_up");

    // Everything older than now goes.
    let gone = svc_server::feed::prune(&store, svc_server::store::now_ms() + 1, 1_000_000)
        .await
        .unwrap();
    assert_eq!(gone, 1);
    store.close().await;
}

#[tokio::test]
async fn the_feed_topic_numbers_a_monorepos_lines() {
    let w = world().await;
    w.push("feat", 2);
    let path = "/v1/monorepos/ann/mono/events?topics=feed&feed_since=0";
    let mut s = connect_to(&w.app, &w.token, path).await;
    let a = next(&mut s).await;
    assert_eq!((&a["type"], &a["n"]), (&json!("feed"), &json!(1)), "{a}");
    assert_eq!(a["event"]["kind"], "push");
    let b = next(&mut s).await;
    assert_eq!(
        (&b["n"], &b["event"]["kind"]),
        (&json!(2), &json!("branch.opened"))
    );
    assert_eq!(b["event"]["commits"], 2);
    let caught = next(&mut s).await;
    assert_eq!(
        (&caught["type"], &caught["feed_n"]),
        (&json!("caught_up"), &json!(2))
    );

    w.push("feat", 1);
    let c = next(&mut s).await;
    assert_eq!((&c["type"], &c["n"]), (&json!("feed"), &json!(3)), "{c}");
    assert_eq!(c["event"]["monorepo"], "ann/mono");

    // Past 500 lines behind: one feed_resync.
    let head = w.push("feat", 1);
    for i in 0..501 {
        w.status(&head, if i % 2 == 0 { "success" } else { "failure" })
            .await;
    }
    let path = "/v1/monorepos/ann/mono/events?topics=feed&feed_since=1";
    let mut s2 = connect_to(&w.app, &w.token, path).await;
    assert_eq!(
        next(&mut s2).await,
        json!({"type": "feed_resync", "feed_n": 505})
    );
    assert_eq!(next(&mut s2).await["feed_n"], 505);
}

#[tokio::test]
async fn person_socket_sends_summary_and_needs_changes() {
    let w = world().await;
    let mut s = connect(&w.app, &w.token).await;
    send(&mut s, json!({"type": "hello"})).await;
    assert_eq!(next(&mut s).await["type"], "caught_up");

    // A push changes the summary line (its latest activity).
    let head = w.push("feat", 1);
    let summary = next_of(&mut s, "summary").await;
    assert_eq!(summary["monorepo"], "ann/mono");
    assert_eq!(summary["summary"]["last_branch"], "feat");
    assert_eq!(summary["summary"]["open_branches"], 1);

    // Clean facts and no checks required: ready. A failing check: failing.
    let needs = next_of(&mut s, "needs").await;
    assert_eq!(
        needs["changed"],
        json!([{"repo": "app", "branch": "feat", "state": "ready"}])
    );
    assert_eq!(needs["more"], false);
    w.status(&head, "failure").await;
    let needs = next_of(&mut s, "needs").await;
    assert_eq!(needs["changed"][0]["state"], "failing");
}

/// Once the revocation answers, the person socket gets no further frame and closes
/// with 4403 at once, held by this server or (on PostgreSQL) by another process.
#[tokio::test]
async fn a_revoked_credential_closes_the_person_socket() {
    let w = world().await;
    let twin = if w.app.config.database_url.starts_with("postgres") {
        Some(w.app.twin().await)
    } else {
        None
    };
    for (i, holder) in std::iter::once(&w.app).chain(twin.as_ref()).enumerate() {
        let made = w
            .post(
                "/v1/user/credentials",
                json!({"name": "tablet", "kind": "machine"}),
            )
            .await;
        let mut s = holder
            .ws("/v1/events", made["token"].as_str().unwrap())
            .await;
        s.send_json(&json!({"type": "hello"})).await;
        assert_eq!(s.next().await["type"], "caught_up");
        w.post(
            &format!("{R}/branches"),
            json!({"name": format!("before-{i}")}),
        )
        .await;
        assert_eq!(s.until("event").await.0["event"]["kind"], "branch.opened");
        let id = made["id"].as_str().unwrap();
        let r = w
            .app
            .as_user(
                Method::DELETE,
                &format!("/v1/user/credentials/{id}"),
                &w.token,
            )
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
        let answered = std::time::Instant::now();
        w.post(
            &format!("{R}/branches"),
            json!({"name": format!("after-{i}")}),
        )
        .await;
        assert_eq!(
            s.next_or_close().await,
            Err(svc_tests::ws::Closed::Code(4403)),
            "no frame after the revocation answered"
        );
        assert!(
            answered.elapsed() < Duration::from_secs(1),
            "closed promptly: {:?}",
            answered.elapsed()
        );
    }
}
