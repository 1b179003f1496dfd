//! Presence: reported worktrees, the machines list, and socket hellos with their
//! connection events.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_protocol::presence::Hello;
use svc_server::presence::{HelloError, Session};
use svc_server::store::{self, Store};
use svc_tests::{TestApp, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";

struct World {
    app: TestApp,
    ann: String,
    monorepo_id: String,
}

async fn world() -> World {
    let app = TestApp::start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    let m = app.monorepo(&ann, json!({"name": "mono"})).await;
    app.repo(&ann, "ann/mono", "app").await;
    World {
        monorepo_id: m["id"].as_str().unwrap().to_owned(),
        app,
        ann,
    }
}

impl World {
    async fn put(&self, token: &str, id: &str, body: Value) -> reqwest::Response {
        self.app
            .as_user(Method::PUT, &format!("{M}/worktrees/{id}"), token)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    async fn delete(&self, token: &str, id: &str) -> reqwest::Response {
        self.app
            .as_user(Method::DELETE, &format!("{M}/worktrees/{id}"), token)
            .send()
            .await
            .unwrap()
    }

    /// Events after `since`, oldest first.
    async fn events(&self, since: i64) -> Vec<Value> {
        let page = self
            .app
            .get_json(&self.ann, &format!("{M}/events?since={since}"))
            .await;
        page["items"].as_array().unwrap().clone()
    }

    async fn seq(&self) -> i64 {
        self.app
            .get_json(&self.ann, &format!("{M}/events?limit=1"))
            .await["seq"]
            .as_i64()
            .unwrap()
    }

    async fn machines(&self) -> Vec<Value> {
        self.app.get_json(&self.ann, &format!("{M}/machines")).await["items"]
            .as_array()
            .unwrap()
            .clone()
    }

    /// The database under the server, for what the API does not show.
    async fn store(&self) -> Store {
        Store::open(&self.app.config.database_url).await.unwrap()
    }

    /// A person's permanent id (machine keys use it; the API shows logins).
    async fn user_id(&self, login: &str) -> String {
        let store = self.store().await;
        let mut conn = store.read().await.unwrap();
        store::users::by_login(conn.h(), login)
            .await
            .unwrap()
            .unwrap()
            .id
    }

    /// The stored body of event `seq` (the activity feed reads `new` from it).
    async fn stored_body(&self, seq: i64) -> Value {
        let store = self.store().await;
        let mut conn = store.read().await.unwrap();
        let rows = store::events::after(conn.h(), &self.monorepo_id, seq - 1, 1)
            .await
            .unwrap();
        serde_json::from_str(&rows[0].body).unwrap()
    }
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["kind"].as_str().unwrap()).collect()
}

fn find<'a>(events: &'a [Value], kind: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in {events:?}"))
}

#[tokio::test]
async fn worktree_reports_list_and_removal() {
    let w = world().await;
    let since = w.seq().await;
    let body =
        json!({"repo": "app", "branch": "feat/x", "machine": "laptop", "path": "/home/ann/x"});
    let r = w.put(&w.ann, "wt-1", body.clone()).await;
    let first: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(first["id"], "wt-1");
    assert_eq!(first["login"], "ann");
    assert_eq!(first["machine"], "laptop");
    assert_eq!(first["repo"], "app");
    assert_eq!(first["branch"], "feat/x");
    assert_eq!(first["path"], "/home/ann/x");

    let events = w.events(since).await;
    assert_eq!(kinds(&events), ["worktree.reported", "machine.updated"]);
    let reported = find(&events, "worktree.reported");
    assert_eq!(reported["collection"], "worktrees");
    assert_eq!(reported["key"], "wt-1");
    assert_eq!(reported["op"], "upsert");
    assert_eq!(reported["repo"], "app");
    assert_eq!(reported["actor"], "ann");
    assert_eq!(reported["row"], first);
    let seq = reported["seq"].as_i64().unwrap();
    assert_eq!(w.stored_body(seq).await["new"], true);
    let updated = find(&events, "machine.updated");
    assert_eq!(updated["collection"], "machines");
    assert_eq!(updated["op"], "upsert");
    let user_id = w.user_id("ann").await;
    assert_eq!(updated["key"], format!("{user_id}/laptop"));
    assert_eq!(updated["row"]["worktrees"], json!(["wt-1"]));

    // Again: an update, not new; the machine's worktrees did not change, so no
    // machine.updated for the activity alone.
    let since = w.seq().await;
    let mut again = body.clone();
    again["branch"] = json!("feat/y");
    let second: Value = expect_json(w.put(&w.ann, "wt-1", again).await, StatusCode::OK).await;
    assert_eq!(second["branch"], "feat/y");
    assert_eq!(second["reported_at"], first["reported_at"]);
    let events = w.events(since).await;
    assert_eq!(kinds(&events), ["worktree.reported"]);
    assert_eq!(
        w.stored_body(events[0]["seq"].as_i64().unwrap()).await["new"],
        false
    );

    // A second worktree on another machine; the filter narrows to one machine.
    let other = json!({"repo": "app", "branch": "main", "machine": "desk"});
    expect_json::<Value>(w.put(&w.ann, "wt_2", other).await, StatusCode::CREATED).await;
    let all = w.app.get_json(&w.ann, &format!("{M}/worktrees")).await;
    let ids: Vec<&str> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["wt_2", "wt-1"]); // by machine: desk, laptop
    let one = w
        .app
        .get_json(&w.ann, &format!("{M}/worktrees?machine=laptop"))
        .await;
    assert_eq!(one["items"].as_array().unwrap().len(), 1);
    assert_eq!(one["items"][0], second);

    // The machines list: one row per machine.
    let machines = w.machines().await;
    assert_eq!(machines.len(), 2, "{machines:?}");
    let laptop = machines.iter().find(|m| m["machine"] == "laptop").unwrap();
    assert_eq!(laptop["login"], "ann");
    assert_eq!(laptop["worktrees"], json!(["wt-1"]));
    assert_eq!(laptop["connected"], false);
    assert_eq!(laptop["last_action_kind"], "worktree.reported");
    assert!(laptop["last_action_at"].is_string());

    // Removal.
    let since = w.seq().await;
    let r = w.delete(&w.ann, "wt-1").await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let events = w.events(since).await;
    assert_eq!(kinds(&events), ["worktree.removed", "machine.updated"]);
    let removed = &events[0];
    assert_eq!(removed["collection"], "worktrees");
    assert_eq!(removed["op"], "delete");
    assert_eq!(removed["key"], "wt-1");
    assert_eq!(removed["row"], json!({"id": "wt-1"}));
    assert_eq!(removed["actor"], "ann");
    assert_eq!(events[1]["row"]["worktrees"], json!([]));
    assert_eq!(events[1]["row"]["last_action_kind"], "worktree.removed");
    expect_error(
        w.delete(&w.ann, "wt-1").await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    let all = w.app.get_json(&w.ann, &format!("{M}/worktrees")).await;
    assert_eq!(all["items"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn worktree_moving_machines_leaves_the_old_one() {
    let w = world().await;
    let at = |machine: &str| json!({"repo": "app", "branch": "b", "machine": machine});
    expect_json::<Value>(w.put(&w.ann, "wt", at("one")).await, StatusCode::CREATED).await;
    let since = w.seq().await;
    expect_json::<Value>(w.put(&w.ann, "wt", at("two")).await, StatusCode::OK).await;
    let events = w.events(since).await;
    assert_eq!(
        kinds(&events),
        ["worktree.reported", "machine.updated", "machine.updated"]
    );
    let machines = w.machines().await;
    let of =
        |name: &str| machines.iter().find(|m| m["machine"] == name).unwrap()["worktrees"].clone();
    assert_eq!(of("one"), json!([]));
    assert_eq!(of("two"), json!(["wt"]));
}

#[tokio::test]
async fn worktree_validation_and_access() {
    let w = world().await;
    let good = json!({"repo": "app", "branch": "b", "machine": "laptop"});
    for bad in ["a".repeat(65), "a.b".into(), "x y".into(), "ü".into()] {
        let r = w.put(&w.ann, &bad, good.clone()).await;
        expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    }
    let ok_long = "a".repeat(64);
    expect_json::<Value>(
        w.put(&w.ann, &ok_long, good.clone()).await,
        StatusCode::CREATED,
    )
    .await;
    for body in [
        json!({"repo": "app", "branch": "b", "machine": ""}),
        json!({"repo": "app", "branch": "b", "machine": "m".repeat(65)}),
        json!({"repo": "app", "branch": "", "machine": "laptop"}),
        json!({"repo": "app", "branch": "b", "machine": "a\nb"}),
    ] {
        let r = w.put(&w.ann, "wt", body).await;
        expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    }
    let r = w
        .put(
            &w.ann,
            "wt",
            json!({"repo": "nope", "branch": "b", "machine": "m"}),
        )
        .await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // Outsiders see nothing.
    let bob = w
        .app
        .bootstrap(json!({"email": "bob@example.com"}))
        .await
        .credential
        .token;
    expect_error(
        w.put(&bob, "wt", good.clone()).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    expect_error(
        w.delete(&bob, &ok_long).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    for path in [format!("{M}/worktrees"), format!("{M}/machines")] {
        let r = w
            .app
            .as_user(Method::GET, &path, &bob)
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
    let r = w
        .app
        .as_user(Method::GET, "/v1/monorepos/ann/none/machines", &w.ann)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // A member may report and remove.
    let r = w
        .app
        .as_user(Method::PUT, &format!("{M}/members/bob"), &w.ann)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    expect_json::<Value>(w.put(&bob, "bobs", good).await, StatusCode::CREATED).await;
    assert_eq!(
        w.delete(&bob, &ok_long).await.status(),
        StatusCode::NO_CONTENT
    );
    let machines = w.app.get_json(&bob, &format!("{M}/machines")).await;
    let logins: Vec<&str> = machines["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["login"].as_str().unwrap())
        .collect();
    assert_eq!(logins, ["ann", "bob"]);
}

/// Hellos taken by another server process on the same database (a state of its own),
/// straight through the presence functions the socket calls.
struct Sockets {
    state: svc_server::AppState,
    user_id: String,
    monorepo_id: String,
}

impl Sockets {
    async fn new(w: &World) -> Sockets {
        let state = svc_server::AppState::new(w.store().await, w.app.config.clone(), None);
        let user_id = w.user_id("ann").await;
        Sockets {
            state,
            user_id,
            monorepo_id: w.monorepo_id.clone(),
        }
    }

    fn session(&self, socket: &str) -> Session {
        Session {
            socket_id: socket.to_owned(),
            monorepo_id: self.monorepo_id.clone(),
            user_id: self.user_id.clone(),
            login: "ann".into(),
            credential_id: "cred".into(),
            credential_name: "bootstrap".into(),
        }
    }

    async fn hello(
        &self,
        socket: &str,
        machine: Option<&str>,
        worktrees: &[&str],
    ) -> Result<svc_protocol::presence::HelloOk, HelloError> {
        let hello = Hello {
            machine: machine.map(str::to_owned),
            worktrees: worktrees.iter().map(|s| (*s).to_owned()).collect(),
        };
        svc_server::presence::hello(&self.state, &self.session(socket), hello).await
    }
}

#[tokio::test]
async fn connections_of_a_gone_process_are_swept() {
    let mut w = world().await;
    let s = Sockets::new(&w).await;
    s.hello("s1", Some("laptop"), &["x"]).await.unwrap();
    // Make the connection look like one of a process that died two minutes ago.
    {
        let store = w.store().await;
        let mut tx = store.begin().await.unwrap();
        let mut row = store::presence::delete_connection(tx.h(), "s1")
            .await
            .unwrap()
            .unwrap();
        row.process_id = "p_gone".into();
        row.connected_at -= 120_000;
        store::presence::put_connection(tx.h(), &row).await.unwrap();
        tx.commit().await.unwrap();
        store.close().await;
    }
    assert_eq!(w.machines().await[0]["connected"], true);
    let since = w.seq().await;
    w.app.restart().await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while w.machines().await[0]["connected"] == true {
        assert!(std::time::Instant::now() < deadline, "not swept");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let events = w.events(since).await;
    assert_eq!(kinds(&events), ["machine.disconnected", "machine.updated"]);
    assert_eq!(events[0]["row"]["connections"], json!([]));
    assert_eq!(events[0]["row"]["connection"]["machine"], "laptop");
}

#[tokio::test]
async fn a_push_by_the_machines_credential_is_its_last_action() {
    let c = svc_tests::Cloned::new("mono", "app").await;
    let r = c
        .app
        .as_user(Method::PUT, &format!("{M}/worktrees/wt"), &c.token)
        .json(&json!({"repo": "app", "branch": "main", "machine": "bootstrap"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    c.git.commit(&c.work, "first", &[("a.txt", b"a\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let machines = c.app.get_json(&c.token, &format!("{M}/machines")).await;
        let row = &machines["items"][0];
        assert_eq!(row["machine"], "bootstrap");
        if row["last_action_kind"] == "push" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{machines}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Frames until the text `pong`.
async fn pong(ws: &mut svc_tests::ws::Ws) {
    while ws.next().await != "pong" {}
}

fn hello(machine: Option<&str>, worktrees: &[&str]) -> Value {
    let mut h = json!({"type": "hello", "worktrees": worktrees});
    if let Some(m) = machine {
        h["machine"] = json!(m);
    }
    h
}

#[tokio::test]
async fn hello_over_the_socket() {
    let w = world().await;
    let events = format!("{M}/events");
    let mut a = w.app.ws(&events, &w.ann).await;
    a.until("caught_up").await;

    // Refused hellos answer an error frame; the socket stays open.
    let long = "a".repeat(65);
    let many: Vec<String> = (0..1001).map(|i| format!("w{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let long_machine = "m".repeat(65);
    for bad in [
        hello(None, &[&long]),
        hello(None, &["ok", "a.b"]),
        hello(None, &[""]),
        hello(None, &many),
        hello(Some(""), &[]),
        hello(Some(&long_machine), &[]),
    ] {
        a.send_json(&bad).await;
        let (f, _) = a.until("error").await;
        assert!(f["message"].as_str().is_some_and(|m| !m.is_empty()), "{f}");
        a.send("ping").await;
        pong(&mut a).await;
    }
    assert!(w.machines().await.is_empty());

    // A good hello: the default machine is the credential's name; duplicates collapse.
    let since = w.seq().await;
    a.send_json(&hello(None, &["b", "a", "b"])).await;
    let (ok, _) = a.until("hello_ok").await;
    assert_eq!(ok["machine"], "bootstrap");
    assert_eq!(ok["worktrees"], json!(["a", "b"]));
    assert_eq!(
        (
            ok["machines_active"].as_i64(),
            ok["worktrees_active"].as_i64()
        ),
        (Some(1), Some(2))
    );
    let log = w.events(since).await;
    assert_eq!(kinds(&log), ["machine.connected", "machine.updated"]);
    let connected = &log[0];
    assert_eq!(connected["collection"], "presence");
    assert_eq!(connected["actor"], "ann");
    let list = connected["row"]["connections"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["machine"], "bootstrap");
    assert_eq!(list[0]["login"], "ann");
    assert_eq!(list[0]["credential"], "bootstrap");
    assert_eq!(connected["row"]["connection"], list[0]);
    let updated = &log[1]["row"];
    assert_eq!(updated["connected"], true);
    assert_eq!(updated["worktrees"], json!(["a", "b"]));
    assert_eq!(updated["last_action_kind"], "hello");
    // The home's summary counts the connected machine.
    let home = w.app.get_json(&w.ann, "/v1/monorepos?summary=1").await;
    assert_eq!(home["items"][0]["summary"]["machines_connected"], 1);
    // The socket itself gets them live.
    let (live, _) = a.until("event").await;
    assert_eq!(live["kind"], "machine.connected");

    // 1,000 ids are allowed; a second socket on another machine counts.
    let mut b = w.app.ws(&events, &w.ann).await;
    b.until("caught_up").await;
    b.send_json(&hello(Some("desk"), &many[..1000])).await;
    let (ok, _) = b.until("hello_ok").await;
    assert_eq!(
        (
            ok["machines_active"].as_i64(),
            ok["worktrees_active"].as_i64()
        ),
        (Some(2), Some(1002))
    );
    b.send_json(&hello(Some("desk"), &["b", "c"])).await;
    let (ok, _) = b.until("hello_ok").await;
    assert_eq!(
        (
            ok["machines_active"].as_i64(),
            ok["worktrees_active"].as_i64()
        ),
        (Some(2), Some(3))
    );

    // The same hello again: activity alone, no event within the minute.
    let since = w.seq().await;
    a.send_json(&hello(None, &["a", "b"])).await;
    a.until("hello_ok").await;
    assert!(w.events(since).await.is_empty());

    // Each hello replaces the last: a worktree change is a machine.updated at once.
    a.send_json(&hello(None, &["a"])).await;
    let (ok, _) = a.until("hello_ok").await;
    assert_eq!(
        (
            ok["machines_active"].as_i64(),
            ok["worktrees_active"].as_i64()
        ),
        (Some(2), Some(3))
    );
    let log = w.events(since).await;
    assert_eq!(kinds(&log), ["machine.updated"]);
    assert_eq!(log[0]["row"]["worktrees"], json!(["a"]));

    // Closing a socket ends its presence.
    let since = w.seq().await;
    drop(b);
    let deadline = std::time::Instant::now() + svc_tests::ws::WAIT;
    let machines = loop {
        let machines = w.machines().await;
        let desk = machines.iter().find(|m| m["machine"] == "desk").unwrap();
        if desk["connected"] == false {
            break machines;
        }
        assert!(std::time::Instant::now() < deadline, "{machines:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let laptop = machines
        .iter()
        .find(|m| m["machine"] == "bootstrap")
        .unwrap();
    assert_eq!(laptop["connected"], true);
    let log = w.events(since).await;
    assert_eq!(kinds(&log), ["machine.disconnected", "machine.updated"]);
    assert_eq!(log[0]["row"]["connection"]["machine"], "desk");
    assert_eq!(log[0]["row"]["connections"].as_array().unwrap().len(), 1);
    assert_eq!(log[1]["row"]["machine"], "desk");
    assert_eq!(log[1]["row"]["connected"], false);
    assert_eq!(log[1]["row"]["worktrees"], json!(["b", "c"]));
    // The open socket saw it live.
    loop {
        let (f, _) = a.until("event").await;
        if f["kind"] == "machine.disconnected" {
            break;
        }
    }
}
