//! commitFiles (`POST {r}/branches/{branch}/commits`) and `svc branch write`, end to end:
//! files written and deleted as one commit, seen by a real `git clone`; recorded as a
//! push (events, a hook delivery); a moved head, bad paths and other refusals change
//! nothing; an agent session's credential gets its trailers; outsiders see nothing.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_server::config::GitSettings;
use svc_tests::git::{Git, all_output};
use svc_tests::machine::Machine;
use svc_tests::receiver::Receiver;
use svc_tests::{TestApp, expect_error, expect_json, snapshot};

use super::agents::{launch, settled, with_main};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";
const ZERO: &str = "0000000000000000000000000000000000000000";
/// The push limit of these tests' server, to see the content held to it.
const PUSH_LIMIT: u64 = 64 * 1024;
/// Bytes that are not UTF-8, as a PNG's header.
const PNG: &[u8] = &[
    0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0xff, 0xfe,
];

/// `ann/mono` with repo `app`, main pushed (`a.txt`, `old.txt`, `src/lib.rs`, `run.sh`
/// executable), cloned in `work`.
struct World {
    app: TestApp,
    token: String,
    git: Git,
    work: PathBuf,
    main: String,
}

async fn world() -> World {
    let builder = TestApp::builder().git(GitSettings {
        max_push_bytes: PUSH_LIMIT,
    });
    let svc_tests::Cloned {
        app,
        token,
        git,
        work,
    } = svc_tests::Cloned::with(builder, "mono", "app").await;
    git.commit(
        &work,
        "base",
        &[
            ("a.txt", b"one\n"),
            ("old.txt", b"old\n"),
            ("src/lib.rs", b"fn x() {}\n"),
            ("run.sh", b"#!/bin/sh\n"),
        ],
    );
    git.ok(&work, &["update-index", "--chmod=+x", "run.sh"]);
    git.ok(&work, &["commit", "-q", "--amend", "--no-edit"]);
    let main = git.ok(&work, &["rev-parse", "HEAD"]).trim().to_owned();
    git.ok(&work, &["push", "-q", "origin", "main"]);
    World {
        app,
        token,
        git,
        work,
        main,
    }
}

impl World {
    async fn write(&self, branch: &str, body: Value) -> reqwest::Response {
        self.write_as(&self.token, branch, body).await
    }

    async fn write_as(&self, token: &str, branch: &str, body: Value) -> reqwest::Response {
        self.app
            .as_user(
                Method::POST,
                &format!("{R}/branches/{branch}/commits"),
                token,
            )
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// The branch heads git holds on the server, as a clone sees them.
    fn remote_heads(&self) -> String {
        self.git.ok(&self.work, &["ls-remote", "--heads", "origin"])
    }

    /// The ref events so far (facts' `branch.updated` come when they come).
    async fn ref_events(&self) -> usize {
        let moves = [
            "push",
            "branch.opened",
            "branch.deleted",
            "default_head.updated",
        ];
        let events = self.events().await;
        events
            .iter()
            .filter(|e| moves.contains(&e["kind"].as_str().unwrap_or_default()))
            .count()
    }

    async fn events(&self) -> Vec<Value> {
        let page = self
            .app
            .get_json(&self.token, &format!("{M}/events?limit=500"))
            .await;
        page["items"].as_array().unwrap().clone()
    }

    fn show(&self, spec: &str) -> Vec<u8> {
        let out = self.git.run(&self.work, &["show", spec]);
        assert!(
            out.status.success(),
            "git show {spec}: {}",
            all_output(&out)
        );
        out.stdout
    }
}

#[tokio::test]
async fn text_base64_and_a_delete_land_as_one_commit_that_git_reads() {
    let w = world().await;
    let png = base64::engine::general_purpose::STANDARD.encode(PNG);
    let r = w
        .write(
            "topic",
            json!({"message": "Fix the parser\n\nAnd add the logo.",
            "files": [
                {"path": "src/a.rs", "content": "fn a() {}\n"},
                {"path": "img/logo.png", "content": png, "encoding": "base64"},
                {"path": "old.txt", "delete": true},
                {"path": "run.sh", "content": "#!/bin/sh\necho hi\n"},
            ]}),
        )
        .await;
    let location = r
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_owned());
    let commit: Value = expect_json(r, StatusCode::CREATED).await;
    let sha = commit["sha"].as_str().unwrap().to_owned();
    assert_eq!(
        location.as_deref(),
        Some(format!("{R}/commits/{sha}").as_str())
    );
    // The answer is getCommit's.
    assert_eq!(
        commit,
        w.app
            .get_json(&w.token, &format!("{R}/commits/{sha}"))
            .await
    );
    assert_eq!(commit["parents"], json!([w.main]), "made from main's head");
    assert_eq!(commit["title"], "Fix the parser");
    assert_eq!(commit["message"], "Fix the parser\n\nAnd add the logo.");
    assert_eq!(commit["author"]["name"], "Ann Example");
    assert_eq!(commit["author"]["email"], "ann@example.com");
    assert_eq!(commit["committer"]["email"], "ann@example.com");
    assert_eq!(
        commit["trailers"],
        json!({"Svc-Agent": null, "Svc-Worktree": null, "Svc-Machine": null})
    );

    // A real clone sees the one commit with all four changes.
    w.git.ok(&w.work, &["fetch", "-q", "origin", "topic"]);
    let fetched = w.git.ok(&w.work, &["rev-parse", "FETCH_HEAD"]);
    assert_eq!(fetched.trim(), sha);
    let changed = w.git.ok(
        &w.work,
        &["show", "--name-status", "--format=%an <%ae>|%cn|%P", &sha],
    );
    let mut lines = changed.lines().filter(|l| !l.is_empty());
    assert_eq!(
        lines.next().unwrap(),
        format!("Ann Example <ann@example.com>|Ann Example|{}", w.main)
    );
    let mut status: Vec<&str> = lines.collect();
    status.sort();
    assert_eq!(
        status,
        ["A\timg/logo.png", "A\tsrc/a.rs", "D\told.txt", "M\trun.sh"]
    );
    assert_eq!(w.show(&format!("{sha}:img/logo.png")), PNG);
    assert_eq!(w.show(&format!("{sha}:src/a.rs")), b"fn a() {}\n");
    assert_eq!(w.show(&format!("{sha}:a.txt")), b"one\n", "untouched");
    let mode = w.git.ok(&w.work, &["ls-tree", &sha, "run.sh"]);
    assert!(mode.starts_with("100755 "), "the mode is kept: {mode}");

    // Recorded as a push opening the branch.
    let branch = w
        .app
        .get_json(&w.token, &format!("{R}/branches/topic"))
        .await;
    assert_eq!(
        (
            &branch["head"],
            &branch["state"],
            &branch["author"],
            &branch["pusher"]
        ),
        (&json!(sha), &json!("open"), &json!("ann"), &json!("ann"))
    );
    let events = w.events().await;
    let opened = events
        .iter()
        .find(|e| e["kind"] == "branch.opened")
        .unwrap();
    assert_eq!(
        (&opened["head"], &opened["before"], &opened["actor"]),
        (&json!(sha), &json!(ZERO), &json!("ann"))
    );

    // On the head it expects, the next write is a `push` on top.
    let r = w
        .write(
            "topic",
            json!({"message": "More", "expected_head": sha,
                "files": [{"path": "src/a.rs", "delete": true}]}),
        )
        .await;
    let next: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(next["parents"], json!([sha]));
    let events = w.events().await;
    let push = events
        .iter()
        .find(|e| e["kind"] == "push" && e["head"] == next["sha"])
        .unwrap_or_else(|| panic!("no push event of {next}"));
    assert_eq!(
        (&push["before"], &push["actor"]),
        (&json!(sha), &json!("ann"))
    );
    // The folder left empty is gone, as in git.
    w.git.ok(&w.work, &["fetch", "-q", "origin", "topic"]);
    let tree = w
        .git
        .ok(&w.work, &["ls-tree", "-r", "--name-only", "FETCH_HEAD"]);
    assert_eq!(tree, "a.txt\nimg/logo.png\nrun.sh\nsrc/lib.rs\n");
}

#[tokio::test]
async fn a_moved_head_is_409_naming_the_head_and_nothing_is_written() {
    let w = world().await;
    w.git.ok(&w.work, &["checkout", "-q", "-b", "topic"]);
    let pushed = w.git.commit(&w.work, "pushed", &[("b.txt", b"b\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "topic"]);
    let heads = w.remote_heads();
    let events = w.ref_events().await;

    // Written against main's head, but someone pushed since.
    let r = w
        .write(
            "topic",
            json!({"message": "Stale", "expected_head": w.main,
                "files": [{"path": "c.txt", "content": "c\n"}]}),
        )
        .await;
    let e = expect_error(r, StatusCode::CONFLICT, "head_moved").await;
    assert_eq!(e["error"]["current"], pushed.as_str(), "{e}");
    // Expecting a head on a branch that does not exist.
    let r = w
        .write(
            "nowhere",
            json!({"message": "Stale", "expected_head": w.main,
                "files": [{"path": "c.txt", "content": "c\n"}]}),
        )
        .await;
    let e = expect_error(r, StatusCode::CONFLICT, "head_moved").await;
    assert!(e["error"].get("current").is_none_or(Value::is_null), "{e}");
    assert_eq!(w.remote_heads(), heads);
    assert_eq!(w.ref_events().await, events);

    // On the head it is at, it lands.
    let r = w
        .write(
            "topic",
            json!({"message": "Fresh", "expected_head": pushed,
                "files": [{"path": "c.txt", "content": "c\n"}]}),
        )
        .await;
    let commit: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(commit["parents"], json!([pushed]));
}

#[tokio::test]
async fn refusals_change_nothing() {
    let w = world().await;
    let heads = w.remote_heads();
    let events = w.ref_events().await;
    let file = |path: &str| json!({"path": path, "content": "x\n"});
    let over = "x".repeat(usize::try_from(PUSH_LIMIT).unwrap() + 1);
    let cases: Vec<(&str, Value, StatusCode, &str)> = vec![
        (
            "topic",
            json!({"message": "m", "files": [file("../x")]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_path",
        ),
        (
            "topic",
            json!({"message": "m", "files": [file("/abs")]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_path",
        ),
        (
            "topic",
            json!({"message": "m", "files": [file(".git/config")]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_path",
        ),
        (
            "topic",
            json!({"message": "m", "files": [file("a//b")]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_path",
        ),
        (
            "topic",
            json!({"message": "m", "files": [file("src/")]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_path",
        ),
        // Named twice.
        (
            "topic",
            json!({"message": "m", "files": [file("b.txt"), {"path": "b.txt", "delete": true}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_path",
        ),
        // A folder, and a path under a file.
        (
            "topic",
            json!({"message": "m", "files": [file("src")]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_path",
        ),
        (
            "topic",
            json!({"message": "m", "files": [file("a.txt/b")]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_path",
        ),
        // A delete of a missing file, after a good write in the same request.
        (
            "topic",
            json!({"message": "m", "files": [file("ok.txt"), {"path": "missing.txt", "delete": true}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "no_such_path",
        ),
        (
            "topic",
            json!({"message": "m", "files": [{"path": "src", "delete": true}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "no_such_path",
        ),
        (
            "topic",
            json!({"message": "m", "files": [{"path": "b.bin", "content": "not base64!", "encoding": "base64"}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_request",
        ),
        (
            "topic",
            json!({"message": "m", "files": [{"path": "b.txt", "content": "x", "delete": true}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_request",
        ),
        (
            "topic",
            json!({"message": "m", "files": [{"path": "b.txt"}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_request",
        ),
        (
            "topic",
            json!({"message": "m", "files": []}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "topic",
            json!({"message": " \n", "files": [file("b.txt")]}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "topic",
            json!({"message": "m", "expected_head": "main", "files": [file("b.txt")]}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "topic",
            json!({"message": "m", "files": [{"path": "big.txt", "content": over}]}),
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
        ),
        // Main moves only by merges.
        (
            "main",
            json!({"message": "m", "files": [file("b.txt")]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "default_branch",
        ),
        (
            "bad..name",
            json!({"message": "m", "files": [file("b.txt")]}),
            StatusCode::BAD_REQUEST,
            "bad_branch_name",
        ),
    ];
    for (branch, body, status, code) in cases {
        let r = w.write(branch, body.clone()).await;
        let got = r.status();
        let text = r.text().await.unwrap();
        assert_eq!(got, status, "{body}: {text}");
        let e: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(e["error"]["code"], code, "{body}: {text}");
    }
    let many: Vec<Value> = (0..1001).map(|i| file(&format!("f{i}.txt"))).collect();
    let r = w
        .write("topic", json!({"message": "m", "files": many}))
        .await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "too_many_files").await;

    assert_eq!(w.remote_heads(), heads, "no ref moved");
    assert_eq!(w.ref_events().await, events, "no event");
    let r = w
        .app
        .as_user(Method::GET, &format!("{R}/branches/topic"), &w.token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn a_write_delivers_hooks_as_a_push_does() {
    let w = world().await;
    let rx = Receiver::start().await;
    let r = w
        .app
        .as_user(Method::POST, &format!("{M}/hooks"), &w.token)
        .json(&json!({"kind": "web", "url": rx.url, "events": ["push", "branch.opened"]}))
        .send()
        .await
        .unwrap();
    let _: Value = expect_json(r, StatusCode::CREATED).await;
    let r = w
        .write(
            "topic",
            json!({"message": "One", "files": [{"path": "b.txt", "content": "b\n"}]}),
        )
        .await;
    let one: Value = expect_json(r, StatusCode::CREATED).await;
    let r = w
        .write(
            "topic",
            json!({"message": "Two", "files": [{"path": "b.txt", "content": "bb\n"}]}),
        )
        .await;
    let two: Value = expect_json(r, StatusCode::CREATED).await;
    // As for a push: the first opens the branch (`branch.opened` and `push`), the second
    // moves it (`push`).
    let got = rx.wait_for(3, Duration::from_secs(10)).await;
    let bodies: Vec<Value> = got.iter().map(|g| g.json()).collect();
    let opened = bodies
        .iter()
        .find(|b| b["event"] == "branch.opened")
        .unwrap();
    assert_eq!(
        (
            &opened["branch"],
            &opened["head"],
            &opened["before"],
            &opened["pusher"]
        ),
        (&json!("topic"), &one["sha"], &json!(ZERO), &json!("ann"))
    );
    let push = bodies
        .iter()
        .find(|b| b["event"] == "push" && b["head"] == two["sha"])
        .unwrap_or_else(|| panic!("no push delivery of the second write: {bodies:?}"));
    assert_eq!(
        (&push["ref"], &push["head"], &push["before"]),
        (&json!("refs/heads/topic"), &two["sha"], &one["sha"])
    );
}

#[tokio::test]
async fn outsiders_see_nothing_and_a_persons_agent_header_signs_the_commit() {
    let w = world().await;
    let eve = w
        .app
        .bootstrap(json!({"email": "eve@example.com"}))
        .await
        .credential
        .token;
    let body = json!({"message": "Hi", "files": [{"path": "b.txt", "content": "b\n"}]});
    let r = w.write_as(&eve, "topic", body.clone()).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    assert!(!w.remote_heads().contains("topic"));

    // A person's agent (X-Svc-Agent) is named; a trailer in the message is not kept.
    let r = w
        .app
        .as_user(
            Method::POST,
            &format!("{R}/branches/topic/commits"),
            &w.token,
        )
        .header("X-Svc-Agent", "helper")
        .json(
            &json!({"message": "Hi\n\nSvc-Agent: mallory\nSvc-Worktree: elsewhere",
            "files": [{"path": "b.txt", "content": "b\n"}]}),
        )
        .send()
        .await
        .unwrap();
    let commit: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(
        commit["trailers"],
        json!({"Svc-Agent": "helper", "Svc-Worktree": null, "Svc-Machine": null})
    );
    assert!(
        !commit["message"].as_str().unwrap().contains("mallory"),
        "{commit}"
    );
}

/// A runner that hands its credential to the test and waits until told to end.
const HANDS_OVER: &str = r#"#!/bin/sh
cat > /dev/null
echo "$SVC_TOKEN" > "$HOME/token.part" && mv "$HOME/token.part" "$HOME/token"
while [ ! -e "$HOME/go" ]; do sleep 0.1; done
echo done
"#;

#[tokio::test]
async fn an_agent_sessions_credential_gets_its_trailers_whatever_it_claims() {
    let (c, dir) = with_main("", HANDS_OVER, "svc-jsonl").await;
    let (app, ann) = (&c.app, &c.token);
    let s = launch(app, ann, json!({"prompt": "Work.", "branch": "work"})).await;
    let id = s["id"].as_str().unwrap().to_owned();
    let home = app.config.data_dir.join("agents").join(&id).join("home");
    let mut token = None;
    for _ in 0..400 {
        if let Ok(t) = std::fs::read_to_string(home.join("token")) {
            token = Some(t.trim().to_owned());
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let agent = token.expect("the runner handed its credential over");
    let r = app
        .as_user(Method::POST, &format!("{R}/branches/work/commits"), &agent)
        .header("X-Svc-Agent", "mallory")
        .json(&json!({"message": "Agent work\n\nSvc-Agent: mallory",
            "files": [{"path": "agent.txt", "content": "by r\n"}]}))
        .send()
        .await
        .unwrap();
    let commit: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(
        commit["trailers"],
        json!({"Svc-Agent": "r", "Svc-Worktree": id, "Svc-Machine": format!("cloud-{id}")}),
        "{commit}"
    );
    assert_eq!(commit["author"]["email"], "ann@example.com");
    let events = app.get_json(ann, &format!("{M}/events?limit=200")).await;
    let moved = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            ["push", "branch.opened"].contains(&e["kind"].as_str().unwrap())
                && e["head"] == commit["sha"]
        })
        .cloned()
        .unwrap_or_else(|| panic!("no event of the write in {events}"));
    assert_eq!(
        (&moved["actor"], &moved["agent"]),
        (&json!("ann"), &json!("r"))
    );
    assert!(!events.to_string().contains("mallory"), "{events}");

    std::fs::write(home.join("go"), "").unwrap();
    assert_eq!(settled(app, ann, &id).await["state"], "idle");
    drop(dir);
}

#[test]
fn svc_branch_write_help_matches_its_snapshot() {
    let help = Machine::new().ok(&["branch", "write", "--help"]);
    snapshot::assert_text("tests/snapshots/svc-branch-write-help.txt", &help);
}

#[tokio::test]
async fn svc_branch_write_commits_local_files() {
    let w = world().await;
    let m = Machine::new();
    let svc = |dir: &std::path::Path, args: &[&str]| {
        let mut cmd = m.svc(args);
        cmd.current_dir(dir)
            .env("SVC_TOKEN", &w.token)
            .env("SVC_SERVER", &w.app.base);
        cmd.output().unwrap()
    };
    // From the checkout: paths from its root; elsewhere, `path=local file`.
    std::fs::create_dir_all(w.work.join("src")).unwrap();
    std::fs::write(w.work.join("src/new.rs"), "fn new() {}\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("logo"), PNG).unwrap();
    let logo = format!("img/logo.png={}", outside.path().join("logo").display());
    let out = svc(
        &w.work.join("src"),
        &[
            "branch",
            "write",
            "-R",
            "ann/mono/app",
            "topic",
            "-m",
            "From the CLI",
            "new.rs",
            &logo,
            "--delete",
            "old.txt",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", all_output(&out));
    let commit: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sha = commit["sha"].as_str().unwrap();
    assert_eq!(commit["title"], "From the CLI");
    w.git.ok(&w.work, &["fetch", "-q", "origin", "topic"]);
    let mut status: Vec<String> = w
        .git
        .ok(&w.work, &["show", "--name-status", "--format=", sha])
        .lines()
        .map(str::to_owned)
        .collect();
    status.sort();
    assert_eq!(status, ["A\timg/logo.png", "A\tsrc/new.rs", "D\told.txt"]);
    assert_eq!(w.show(&format!("{sha}:img/logo.png")), PNG);

    // A stale --expect writes nothing and says where the branch is.
    let out = svc(
        &w.work,
        &[
            "branch",
            "write",
            "-R",
            "ann/mono/app",
            "topic",
            "-m",
            "Again",
            "--delete",
            "a.txt",
            "--expect",
            &w.main,
        ],
    );
    assert!(!out.status.success());
    let text = all_output(&out);
    assert!(text.contains("nothing was written to topic"), "{text}");
    assert!(text.contains(sha), "{text}");
    let out = svc(
        &w.work,
        &[
            "branch",
            "write",
            "-R",
            "ann/mono/app",
            "topic",
            "-m",
            "Text",
            "a.txt",
        ],
    );
    assert!(out.status.success(), "{}", all_output(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.starts_with("Committed 1 file to topic as "), "{said}");
}
