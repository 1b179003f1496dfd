//! The machine daemon end to end: two sealed machines, each with its own `svc daemon run`,
//! following one monorepo on a real server with real git.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::git::{Git, all_output};
use svc_tests::laptop::{Laptop, WAIT, until};
use svc_tests::machine::Machine;
use svc_tests::{TestApp, expect_json};

const M: &str = "/v1/monorepos/ann/mono";

struct World {
    app: TestApp,
    token: String,
    seed: Git,
}

/// ann's monorepo `mono` with repo `api`, main pushed once.
async fn world() -> World {
    let app = TestApp::start().await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&token, json!({"name": "mono"})).await;
    let url = app.repo(&token, "ann/mono", "api").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let seed = Git::new(&token);
    seed.ok(seed.home.path(), &["clone", "-q", &url, "api"]);
    seed.commit(&seed.path("api"), "base", &[("a.txt", b"a\n")]);
    seed.ok(&seed.path("api"), &["push", "-q", "origin", "main"]);
    World { app, token, seed }
}

const MONO: &str = "ann/mono";

/// A machine with `ann/mono` cloned, its daemon to run as `name`.
fn laptop(w: &World, name: &str) -> Laptop {
    Laptop::new(&w.app.base, &w.token, name, MONO)
}

fn api(b: &Laptop) -> PathBuf {
    b.path("mono/api")
}

fn head_of(b: &Laptop) -> String {
    b.m.git(&api(b), &["rev-parse", "HEAD"]).trim().to_owned()
}

fn connected(b: &Laptop) -> bool {
    b.connected(MONO)
}

/// Pushes a branch from the seed and merges it on the server; answers the new main head.
async fn merge(w: &World, branch: &str) -> String {
    let api = w.seed.path("api");
    w.seed.ok(&api, &["fetch", "-q", "origin", "main"]);
    w.seed
        .ok(&api, &["checkout", "-q", "-B", branch, "origin/main"]);
    w.seed
        .commit(&api, branch, &[(&format!("{branch}.txt"), b"x\n")]);
    w.seed.ok(&api, &["push", "-q", "origin", branch]);
    let r = w
        .app
        .as_user(
            Method::POST,
            &format!("{M}/repos/api/branches/{branch}/merge"),
            &w.token,
        )
        .send()
        .await
        .unwrap();
    let body: Value = expect_json(r, StatusCode::OK).await;
    body["sha"].as_str().unwrap().to_owned()
}

fn dirty(path: &Path) {
    std::fs::write(path.join("a.txt"), "local edit\n").unwrap();
}

#[tokio::test]
async fn two_machines_follow_main_and_leave_dirty_trees_alone() {
    let w = world().await;
    let mut a = laptop(&w, "box-a");
    let mut b = laptop(&w, "box-b");
    assert!(a.status().is_none(), "no daemon yet");
    a.start();
    b.start();
    until("both daemons connected", || connected(&a) && connected(&b)).await;

    // One daemon per machine.
    let out = a.svc(&["daemon", "run"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already running"),
        "{}",
        all_output(&out)
    );
    let out = a.svc(&["daemon", "start"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already running"),
        "{}",
        all_output(&out)
    );

    let head = merge(&w, "one").await;
    // The daemon notes the move in its status right after it fast-forwards: wait for both.
    until("both mains at the merge", || {
        head_of(&a) == head
            && head_of(&b) == head
            && a.status()
                .is_some_and(|s| s["monorepos"][0]["last_main_move"]["head"] == head.as_str())
    })
    .await;
    let status = a.status().unwrap();
    let followed = &status["monorepos"][0];
    assert_eq!(followed["server"], w.app.base.as_str());
    assert_eq!(followed["last_main_move"]["repo"], "api");
    assert_eq!(followed["last_main_move"]["head"], head.as_str());
    assert!(status["pid"].as_u64().is_some());
    assert_eq!(status["machine"], "box-a");

    // Both machines show as connected; B's dirty checkout is left alone.
    let machines = w.app.get_json(&w.token, &format!("{M}/machines")).await;
    let names: Vec<(&str, bool)> = machines["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["machine"].as_str().unwrap(),
                m["connected"].as_bool().unwrap(),
            )
        })
        .collect();
    assert!(names.contains(&("box-a", true)), "{machines}");
    assert!(names.contains(&("box-b", true)), "{machines}");
    dirty(&api(&b));
    let next = merge(&w, "two").await;
    until("A at the second merge", || head_of(&a) == next).await;
    until("B reports its checkout held", || {
        b.status().is_some_and(|s| {
            s["monorepos"][0]["held"]
                .as_array()
                .is_some_and(|h| h.iter().any(|h| h["reason"] == "local changes"))
        })
    })
    .await;
    assert_eq!(head_of(&b), head, "a dirty tree is not touched");
    assert_eq!(
        std::fs::read_to_string(api(&b).join("a.txt")).unwrap(),
        "local edit\n"
    );

    // Once the tree is clean again, B catches up within seconds and the status clears.
    b.m.git(&api(&b), &["checkout", "--", "a.txt"]);
    let clean = Instant::now();
    until("B at the second merge once its tree is clean", || {
        head_of(&b) == next
            && b.status()
                .is_some_and(|s| s["monorepos"][0].get("held").is_none())
    })
    .await;
    assert!(
        clean.elapsed() < Duration::from_secs(8),
        "{:?}",
        clean.elapsed()
    );
    let status = b.svc(&["daemon", "status"]);
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(!text.contains("local changes"), "{text}");

    // Stopping A's daemon disconnects its machine.
    let out = a.svc(&["daemon", "stop"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(a.status().is_none());
    assert!(a.log().contains("daemon started"), "{}", a.log());
    let start = Instant::now();
    loop {
        let machines = w.app.get_json(&w.token, &format!("{M}/machines")).await;
        let gone = machines["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["machine"] == "box-a" && m["connected"] == false);
        if gone {
            break;
        }
        assert!(start.elapsed() < WAIT, "box-a still connected: {machines}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(b.daemon.take());
}

#[tokio::test]
async fn a_restarted_server_is_followed_without_missing_a_move() {
    let mut w = world().await;
    let mut a = laptop(&w, "box-a");
    a.start();
    until("connected", || connected(&a)).await;
    let first = merge(&w, "one").await;
    until("main at the first merge", || head_of(&a) == first).await;

    w.app.restart().await;
    // Made before the daemon's reconnect (its backoff starts at a second).
    let moved = merge(&w, "while-away").await;
    until("main at the merge made while disconnected", || {
        head_of(&a) == moved
    })
    .await;
    until("connected again", || connected(&a)).await;
}

/// box-a's row in `GET {m}/machines`.
async fn machine_row(w: &World, name: &str) -> Option<Value> {
    let machines = w.app.get_json(&w.token, &format!("{M}/machines")).await;
    machines["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["machine"] == name)
        .cloned()
}

#[tokio::test]
async fn worktrees_are_announced_and_carry_trailers() {
    let w = world().await;
    let mut a = laptop(&w, "box-a");
    a.start();
    until("connected", || connected(&a)).await;

    let out = a.svc(&["worktree", "add", "api", "feature/x", "--json"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = made["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("wt-") && id.len() == 11, "{made}");
    let path = std::path::PathBuf::from(made["path"].as_str().unwrap());
    assert_eq!(made["branch"], "feature/x");

    let start = Instant::now();
    loop {
        let row = machine_row(&w, "box-a").await;
        if row
            .as_ref()
            .is_some_and(|r| r["connected"] == true && r["worktrees"] == json!([id.as_str()]))
        {
            break;
        }
        assert!(start.elapsed() < WAIT, "worktree not announced: {row:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reported = w.app.get_json(&w.token, &format!("{M}/worktrees")).await;
    assert_eq!(reported["items"][0]["id"], id.as_str(), "{reported}");
    assert_eq!(reported["items"][0]["branch"], "feature/x");

    // svc commands in the worktree (beside the clone) know its repo and branch.
    let inside = |args: &[&str]| a.command(args).current_dir(&path).output().unwrap();
    let out = inside(&["branch", "list", "--json"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["default_branch"], "main", "{list}");
    let out = inside(&["branch", "view"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "svc: branch feature/x not found",
        "not pushed yet: {}",
        all_output(&out)
    );

    // Commits there carry the trailers; the main checkout's do not.
    std::fs::write(path.join("f.txt"), "f\n").unwrap();
    a.m.git(&path, &["add", "f.txt"]);
    a.m.git(&path, &["commit", "-q", "-m", "feature"]);
    let trailers = a.m.git(&path, &["log", "-1", "--format=%(trailers)"]);
    assert!(
        trailers.contains(&format!("Svc-Worktree: {id}")),
        "{trailers}"
    );
    assert!(trailers.contains("Svc-Machine: box-a"), "{trailers}");
    assert!(!trailers.contains("Svc-Agent"), "{trailers}");
    // An agent's commit names it too.
    std::fs::write(path.join("g.txt"), "g\n").unwrap();
    a.m.git(&path, &["add", "g.txt"]);
    a.m.git_env(
        &path,
        &[("SVC_AGENT", "claude-7")],
        &["commit", "-q", "-m", "by an agent"],
    );
    let trailers = a.m.git(&path, &["log", "-1", "--format=%(trailers)"]);
    for line in [
        format!("Svc-Worktree: {id}"),
        "Svc-Machine: box-a".to_owned(),
        "Svc-Agent: claude-7".to_owned(),
    ] {
        assert!(trailers.lines().any(|l| l == line), "{line}: {trailers}");
    }
    assert_eq!(
        a.m.git(&path, &["rev-parse", "--abbrev-ref", "HEAD"])
            .trim(),
        "feature/x"
    );
    std::fs::write(api(&a).join("m.txt"), "m\n").unwrap();
    a.m.git(&api(&a), &["add", "m.txt"]);
    a.m.git(&api(&a), &["commit", "-q", "-m", "on main"]);
    let trailers = a.m.git(&api(&a), &["log", "-1", "--format=%(trailers)"]);
    assert!(trailers.trim().is_empty(), "{trailers}");

    let listed = a.svc(&["worktree", "list", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed[&id]["repo"], "api", "{listed}");

    // A branch checked out elsewhere (here the clone's own checkout) stays there: the
    // refusal says where, and how to free it.
    a.m.git(&api(&a), &["switch", "-q", "-c", "topic"]);
    let out = a.svc(&["worktree", "add", "api", "topic"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "topic is checked out in {}",
            api(&a).canonicalize().unwrap().display()
        )) && err.contains("switch main"),
        "{err}"
    );
    a.m.git(&api(&a), &["switch", "-q", "main"]);
    // -R names the repo as every other command does; the branch alone follows.
    let out = a.svc(&["worktree", "add", "-R", "ann/mono/api", "topic", "--json"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (made["repo"].as_str(), made["branch"].as_str()),
        (Some("api"), Some("topic")),
        "{made}"
    );
    let out = a.svc(&["worktree", "add", "-R", "ann/mono/api", "api", "topic"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let out = a.svc(&[
        "worktree",
        "remove",
        made["id"].as_str().unwrap(),
        "--force",
    ]);
    assert!(out.status.success(), "{}", all_output(&out));

    let out = a.svc(&["worktree", "remove", &id, "--force"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(!path.exists());
    let start = Instant::now();
    loop {
        let row = machine_row(&w, "box-a").await;
        if row.as_ref().is_some_and(|r| r["worktrees"] == json!([])) {
            break;
        }
        assert!(start.elapsed() < WAIT, "worktree still announced: {row:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reported = w.app.get_json(&w.token, &format!("{M}/worktrees")).await;
    assert_eq!(reported["items"], json!([]), "{reported}");
}

/// Stops a daemon `svc daemon start` detached, even when the test fails.
struct StopOnDrop<'a>(&'a Machine);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = self.0.run(&["daemon", "stop"]);
    }
}

#[test]
fn start_status_stop() {
    let m = Machine::new();
    let out = m.ok(&["daemon", "status"]);
    assert!(out.contains("not running"), "{out}");
    let _guard = StopOnDrop(&m);
    let out = m.ok(&["daemon", "start"]);
    assert!(out.starts_with("Started the svc daemon (pid "), "{out}");
    let out = m.ok(&["daemon", "start"]);
    assert!(
        out.starts_with("The svc daemon is already running"),
        "{out}"
    );
    let status: Value = serde_json::from_str(&m.ok(&["daemon", "status", "--json"])).unwrap();
    assert_eq!(status["running"], true);
    assert_eq!(status["protocol"], 1);
    assert_eq!(status["monorepos"], json!([]));
    let out = m.ok(&["daemon", "status"]);
    assert!(out.contains("No monorepo cloned"), "{out}");
    assert_eq!(m.ok(&["daemon", "stop"]).trim(), "Stopped the svc daemon");
    let status: Value = serde_json::from_str(&m.ok(&["daemon", "status", "--json"])).unwrap();
    assert_eq!(status, json!({"running": false}));
    assert_eq!(
        m.ok(&["daemon", "stop"]).trim(),
        "The svc daemon is not running"
    );
}

/// The systemd user unit's `ExecStart` line for `svc` at `exe`.
fn exec_start(exe: &Path) -> String {
    format!("ExecStart=\"{}\" daemon run", exe.display())
}

#[cfg(target_os = "linux")]
#[test]
fn install_writes_the_user_unit() {
    let m = Machine::new();
    let unit = m
        .home
        .path()
        .join(".config/systemd/user/svc-daemon.service");
    let exe = std::fs::canonicalize(svc_tests::workspace_bin("svc")).unwrap();

    let out = m.ok(&["daemon", "install", "--no-enable"]);
    assert!(out.contains(&format!("Wrote {}", unit.display())), "{out}");
    assert!(
        out.contains("systemctl --user enable --now svc-daemon.service"),
        "{out}"
    );
    let text = std::fs::read_to_string(&unit).unwrap();
    assert!(text.lines().any(|l| l == exec_start(&exe)), "{text}");
    for line in [
        "[Service]",
        "Restart=on-failure",
        "[Install]",
        "WantedBy=default.target",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}: {text}");
    }

    // Without a user service manager (a sealed HOME has no session bus) enabling fails
    // gracefully: the unit is written and the way to enable it said.
    std::fs::remove_file(&unit).unwrap();
    let out = m.run(&["daemon", "install"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert_eq!(std::fs::read_to_string(&unit).unwrap(), text);
}

/// A repo made after the clone is laid out by the daemon at its path (empty at first,
/// kept out of the enclosing repo's status), then follows main like the others, and
/// `svc daemon status` says it was laid out.
#[tokio::test]
async fn a_repo_added_after_the_clone_is_laid_out_and_followed() {
    let w = world().await;
    let mut a = laptop(&w, "box-a");
    a.start();
    until("daemon connected", || connected(&a)).await;

    // Nested inside api: the daemon keeps it out of api's status.
    let url = w.app.repo(&w.token, MONO, "api/client").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let client = a.path("mono/api/client");
    until("the new repo laid out", || {
        client.join(".git").exists() && a.m.ok(&["daemon", "status"]).contains("laid out")
    })
    .await;
    let status = a.m.git(&api(&a), &["status", "--porcelain"]);
    assert!(status.trim().is_empty(), "api's status shows {status:?}");
    let text = a.m.ok(&["daemon", "status"]);
    assert!(
        text.contains("laid out new repo api-client at") && text.contains("mono/api/client"),
        "{text}"
    );

    // Its first push of main reaches the new checkout.
    w.seed
        .ok(w.seed.home.path(), &["clone", "-q", &url, "client"]);
    let seed = w.seed.path("client");
    let head = w.seed.commit(&seed, "first", &[("c.txt", b"c\n")]);
    w.seed.ok(&seed, &["push", "-q", "origin", "main"]);
    until("the new checkout at main", || {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(&client)
            .args(["rev-parse", "HEAD"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim() == head
    })
    .await;
    // Nothing of the token in its config: git asks svc.
    let config = std::fs::read_to_string(client.join(".git/config")).unwrap();
    assert!(!config.contains(&w.token), "{config}");
    assert!(config.contains("git-credential"), "{config}");
}
