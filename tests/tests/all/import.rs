//! Importing an existing project: every branch and tag, main at exactly the project's
//! head, whatever its size, checked on receipt, and nothing visible until it is whole.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::git::{Git, all_output};
use svc_tests::machine::Machine;
use svc_tests::{TestApp, expect_error, expect_json};

struct World {
    app: TestApp,
    ann: String,
    git: Git,
    m: Machine,
}

/// Ann with her monorepo `ann/mono`.
async fn world() -> World {
    let app = TestApp::start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&ann, json!({"name": "mono"})).await;
    let git = Git::new(&ann);
    World {
        app,
        ann,
        git,
        m: Machine::new(),
    }
}

impl World {
    /// `svc` signed in as Ann.
    fn svc(&self, args: &[&str]) -> Output {
        self.m
            .svc(args)
            .env("SVC_TOKEN", &self.ann)
            .env("SVC_SERVER", &self.app.base)
            .output()
            .unwrap()
    }

    /// A project with history: `main` with a merged branch `done`, an open branch
    /// `wip`, an annotated tag and a lightweight one. Answers its folder.
    fn project(&self, name: &str) -> PathBuf {
        let dir = self.git.path(name);
        std::fs::create_dir_all(&dir).unwrap();
        self.git.ok(&dir, &["init", "-q", "-b", "main"]);
        self.git.commit(&dir, "base", &[("a.txt", b"a\n")]);
        self.git.ok(&dir, &["tag", "-a", "v1", "-m", "one"]);
        self.git.ok(&dir, &["checkout", "-q", "-b", "done"]);
        self.git.commit(&dir, "done work", &[("b.txt", b"b\n")]);
        self.git.ok(&dir, &["checkout", "-q", "main"]);
        self.git.ok(
            &dir,
            &["merge", "-q", "--no-ff", "-m", "merge done", "done"],
        );
        self.git.ok(&dir, &["checkout", "-q", "-b", "wip"]);
        self.git.commit(&dir, "wip work", &[("c.txt", b"c\n")]);
        self.git.ok(&dir, &["checkout", "-q", "main"]);
        self.git.commit(&dir, "last", &[("a.txt", b"aa\n")]);
        self.git.ok(&dir, &["tag", "light"]);
        dir
    }

    /// The project's refs (branches and tags), as `git show-ref` lists them.
    fn refs(&self, dir: &Path) -> Vec<String> {
        sorted(self.git.ok(dir, &["show-ref", "--heads", "--tags"]))
    }

    /// The refs a clone URL advertises, HEAD left out.
    fn remote_refs(&self, url: &str) -> Vec<String> {
        let out = self.git.ok(self.git.home.path(), &["ls-remote", url]);
        sorted(
            out.lines()
                .filter(|l| !l.ends_with("\tHEAD") && !l.ends_with("^{}"))
                .map(|l| l.replace('\t', " "))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }

    async fn branches(&self, repo: &str) -> Vec<Value> {
        self.app
            .get_json(
                &self.ann,
                &format!("/v1/monorepos/ann/mono/repos/{repo}/branches?state=open,merged,deleted"),
            )
            .await["items"]
            .as_array()
            .unwrap()
            .clone()
    }

    async fn events(&self, monorepo: &str) -> Vec<Value> {
        self.app
            .get_json(&self.ann, &format!("/v1/monorepos/{monorepo}/events"))
            .await["items"]
            .as_array()
            .unwrap()
            .clone()
    }

    /// Starts an import through the API, answering it.
    async fn start(&self, token: &str, body: Value) -> reqwest::Response {
        self.app
            .as_user(Method::POST, "/v1/monorepos/ann/mono/imports", token)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// Sends a bundle file to a waiting import.
    async fn put_bundle(&self, token: &str, id: &str, bundle: &Path) -> reqwest::Response {
        let body = std::fs::read(bundle).unwrap();
        self.app
            .as_user(
                Method::PUT,
                &format!("/v1/monorepos/ann/mono/imports/{id}/bundle"),
                token,
            )
            .timeout(Duration::from_secs(600))
            .header("content-type", "application/octet-stream")
            .body(body)
            .send()
            .await
            .unwrap()
    }

    /// `git bundle create <file> --all` of `dir`.
    fn bundle(&self, dir: &Path, name: &str) -> PathBuf {
        let file = self.git.path(name);
        self.git.ok(
            dir,
            &["bundle", "create", "-q", file.to_str().unwrap(), "--all"],
        );
        file
    }
}

fn sorted(text: String) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

#[tokio::test]
async fn a_project_comes_in_whole_with_main_at_its_head() {
    let w = world().await;
    let project = w.project("project");
    let head = w.git.ok(&project, &["rev-parse", "HEAD"]).trim().to_owned();
    let done = w.git.ok(&project, &["rev-parse", "done"]).trim().to_owned();

    let out = w.svc(&[
        "repo",
        "import",
        project.to_str().unwrap(),
        "--path",
        "libs/project",
        "-R",
        "ann/mono",
    ]);
    assert!(out.status.success(), "{}", all_output(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("into libs-project at libs/project"), "{text}");

    // Every branch and tag, main exactly at the project's head (no merge commit).
    let repo = w
        .app
        .get_json(&w.ann, "/v1/monorepos/ann/mono/repos/libs-project")
        .await;
    let url = repo["clone_url"].as_str().unwrap();
    assert_eq!(w.remote_refs(url), w.refs(&project));
    let heads = w.app.get_json(&w.ann, "/v1/monorepos/ann/mono/heads").await;
    let main = heads["heads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["repo"] == "libs-project")
        .unwrap();
    assert_eq!(main["head"], head.as_str());

    // The branch main has already is merged history; the other is open work.
    let branches = w.branches("libs-project").await;
    let state = |name: &str| {
        let b = branches.iter().find(|b| b["name"] == name).unwrap();
        (b["state"].as_str().unwrap().to_owned(), b.clone())
    };
    let (done_state, done_row) = state("done");
    assert_eq!(done_state, "merged", "{done_row}");
    assert_eq!(done_row["head"], done.as_str());
    assert_eq!(done_row["merged_by"], "ann");
    assert_eq!(done_row["merge_sha"], Value::Null);
    assert_eq!(state("wip").0, "open");
    assert_eq!(branches.len(), 2, "{branches:?}");
    let tags = w
        .app
        .get_json(&w.ann, "/v1/monorepos/ann/mono/repos/libs-project/tags")
        .await;
    let mut names: Vec<&str> = tags["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["light", "v1"]);

    // The repo's creation comes first, then its history.
    let ev = w.events("ann/mono").await;
    assert_eq!(ev[0]["kind"], "repo.created", "{ev:?}");
    assert!(
        ev.iter()
            .any(|e| e["kind"] == "push" && e["head"] == head.as_str())
    );

    // A repo with history takes no import.
    let r = w.start(&w.ann, json!({"path": "libs/project"})).await;
    expect_error(r, StatusCode::CONFLICT, "repo_not_empty").await;
}

/// Random bytes that do not compress, quickly.
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.extend_from_slice(&seed.to_le_bytes());
    }
    out.truncate(len);
    out
}

#[tokio::test]
async fn a_70_mb_file_in_200_mb_of_history_comes_in() {
    let w = world().await;
    let dir = w.git.path("big");
    std::fs::create_dir_all(&dir).unwrap();
    w.git.ok(&dir, &["init", "-q", "-b", "main"]);
    // Random data neither compresses nor deltas: store it as it is, quickly.
    for (key, value) in [
        ("core.compression", "0"),
        ("pack.compression", "0"),
        ("pack.window", "0"),
    ] {
        w.git.ok(&dir, &["config", key, value]);
    }
    w.git.commit(&dir, "small", &[("README", b"big\n")]);
    let big = noise(70 * 1024 * 1024, 0x9E37_79B9_7F4A_7C15);
    w.git.commit(&dir, "one big file", &[("big.bin", &big)]);
    drop(big);
    // Then 130 MiB more, 5 MiB a commit.
    for n in 0..26u64 {
        let file = format!("more/{n}.bin");
        w.git.commit(
            &dir,
            &format!("more {n}"),
            &[(file.as_str(), &noise(5 << 20, n + 7))],
        );
    }
    let head = w.git.ok(&dir, &["rev-parse", "HEAD"]).trim().to_owned();
    let bundle = w.bundle(&dir, "big.bundle");
    assert!(std::fs::metadata(&bundle).unwrap().len() > 200 << 20);

    let r = w.start(&w.ann, json!({"path": "big"})).await;
    let started: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(started["state"], "waiting");
    assert_eq!(started["path"], "big");
    let id = started["id"].as_str().unwrap();
    let r = w.put_bundle(&w.ann, id, &bundle).await;
    let done: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["repo"]["name"], "big");
    let url = done["repo"]["clone_url"].as_str().unwrap();
    assert_eq!(w.remote_refs(url), w.refs(&dir));
    let got = w
        .app
        .get_json(&w.ann, &format!("/v1/monorepos/ann/mono/imports/{id}"))
        .await;
    assert_eq!(got["state"], "done");
    let heads = w.app.get_json(&w.ann, "/v1/monorepos/ann/mono/heads").await;
    assert_eq!(heads["heads"][0]["head"], head.as_str(), "{heads}");
}

#[tokio::test]
async fn a_url_comes_in_only_from_an_address_the_server_may_reach() {
    let mut w = world().await;
    // The project lives in another repo of this server, reached over loopback.
    w.app
        .monorepo(&w.ann, json!({"name": "src", "kind": "repo"}))
        .await;
    let src = format!("{}/ann/src.git", w.app.base);
    let work = w.git.path("src");
    w.git.ok(w.git.home.path(), &["clone", "-q", &src, "src"]);
    w.git.commit(&work, "first", &[("a.txt", b"a\n")]);
    w.git.ok(&work, &["push", "-q", "origin", "main"]);
    w.git.ok(&work, &["checkout", "-q", "-b", "topic"]);
    w.git.commit(&work, "topic", &[("t.txt", b"t\n")]);
    w.git.ok(&work, &["push", "-q", "origin", "topic"]);
    w.git.ok(&work, &["tag", "v1"]);
    w.git.ok(&work, &["push", "-q", "origin", "v1"]);
    let main = w.git.ok(&work, &["rev-parse", "main"]).trim().to_owned();
    let with_token = src.replacen("://", &format!("://svc:{}@", w.ann), 1);

    let r = w
        .start(&w.ann, json!({"path": "fetched", "url": with_token}))
        .await;
    let started: Value = expect_json(r, StatusCode::ACCEPTED).await;
    assert_eq!(started["state"], "running");
    let id = started["id"].as_str().unwrap().to_owned();
    let mut got = Value::Null;
    for _ in 0..600 {
        got = w
            .app
            .get_json(&w.ann, &format!("/v1/monorepos/ann/mono/imports/{id}"))
            .await;
        if got["state"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(got["state"], "done", "{got}");
    let url = got["repo"]["clone_url"].as_str().unwrap();
    assert_eq!(w.remote_refs(url), w.remote_refs(&src));
    let branches = w.branches("fetched").await;
    assert_eq!(branches.len(), 1);
    assert_eq!(
        (&branches[0]["name"], &branches[0]["state"]),
        (&json!("topic"), &json!("open"))
    );
    let heads = w.app.get_json(&w.ann, "/v1/monorepos/ann/mono/heads").await;
    assert_eq!(heads["heads"][0]["head"], main.as_str(), "{heads}");

    // Only http and https.
    let r = w
        .start(
            &w.ann,
            json!({"path": "local", "url": format!("file://{}", work.display())}),
        )
        .await;
    expect_error(r, StatusCode::BAD_REQUEST, "url_not_allowed").await;

    // Without loopback among the addresses the server may reach, the same URL is refused
    // before anything starts.
    w.app.config.hooks.allowed_hosts = vec!["external".into()];
    w.app.restart().await;
    let r = w
        .start(&w.ann, json!({"path": "again", "url": with_token}))
        .await;
    let e = expect_error(r, StatusCode::BAD_REQUEST, "url_not_allowed").await;
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("allowed_hosts"),
        "{e}"
    );
    let r = w
        .app
        .as_user(Method::GET, "/v1/monorepos/ann/mono/repos/again", &w.ann)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn imports_are_for_owners_and_hidden_from_outsiders() {
    let w = world().await;
    let bob = w
        .app
        .bootstrap(json!({"email": "bob@example.com"}))
        .await
        .credential
        .token;
    let r = w.start(&bob, json!({"path": "x"})).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = w.start(&w.ann, json!({"path": "x"})).await;
    let started: Value = expect_json(r, StatusCode::CREATED).await;
    let id = started["id"].as_str().unwrap();
    let r = w
        .app
        .as_user(
            Method::GET,
            &format!("/v1/monorepos/ann/mono/imports/{id}"),
            &bob,
        )
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let project = w.project("project");
    let bundle = w.bundle(&project, "p.bundle");
    let r = w.put_bundle(&bob, id, &bundle).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let got = w
        .app
        .get_json(&w.ann, &format!("/v1/monorepos/ann/mono/imports/{id}"))
        .await;
    assert_eq!(got["state"], "waiting", "{got}");
}

#[tokio::test]
async fn a_corrupt_bundle_fails_clearly_and_leaves_nothing_visible() {
    let w = world().await;
    let project = w.project("project");
    let bundle = w.bundle(&project, "p.bundle");
    let mut bytes = std::fs::read(&bundle).unwrap();
    let at = bytes.len() - 40;
    bytes[at] ^= 0xff;
    std::fs::write(&bundle, &bytes).unwrap();

    // A commit git's own checks refuse (its date is not a number).
    let bad = w.git.path("bad");
    std::fs::create_dir_all(&bad).unwrap();
    w.git.ok(&bad, &["init", "-q", "-b", "main"]);
    let tree = w.git.commit(&bad, "ok", &[("a", b"a\n")]);
    let tree = w.git.ok(&bad, &["rev-parse", &format!("{tree}^{{tree}}")]);
    let commit = format!(
        "tree {}\nauthor A <a@example.com> notadate +0000\ncommitter A <a@example.com> 1 +0000\n\nbad\n",
        tree.trim()
    );
    std::fs::write(bad.join("commit.txt"), commit).unwrap();
    let sha = w.git.ok(
        &bad,
        &[
            "hash-object",
            "-t",
            "commit",
            "-w",
            "--literally",
            "commit.txt",
        ],
    );
    w.git
        .ok(&bad, &["update-ref", "refs/heads/main", sha.trim()]);
    let malformed = w.bundle(&bad, "bad.bundle");

    for (path, file, says) in [
        ("one", &bundle, "the import failed"),
        ("two", &malformed, "fsck"),
    ] {
        let r = w.start(&w.ann, json!({"path": path})).await;
        let started: Value = expect_json(r, StatusCode::CREATED).await;
        let id = started["id"].as_str().unwrap();
        let r = w.put_bundle(&w.ann, id, file).await;
        let e = expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "import_failed").await;
        let message = e["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
        let got = w
            .app
            .get_json(&w.ann, &format!("/v1/monorepos/ann/mono/imports/{id}"))
            .await;
        assert_eq!(got["state"], "failed", "{got}");
        assert!(
            got["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{got}"
        );
        // A failed import takes no second bundle.
        let r = w.put_bundle(&w.ann, id, file).await;
        expect_error(r, StatusCode::CONFLICT, "import_not_waiting").await;
    }
    // No repo, no event, nothing on disk left over.
    let repos = w.app.get_json(&w.ann, "/v1/monorepos/ann/mono/repos").await;
    assert_eq!(repos["items"], json!([]), "{repos}");
    assert_eq!(w.events("ann/mono").await, Vec::<Value>::new());
    let on_disk = std::fs::read_dir(w.app.data_dir.path().join("repos"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(on_disk, 1, "only the meta layer's repository");
}

#[tokio::test]
async fn a_plain_repo_is_made_from_a_project() {
    let w = world().await;
    let project = w.project("project");
    let head = w.git.ok(&project, &["rev-parse", "HEAD"]).trim().to_owned();
    let out = w.svc(&[
        "monorepo",
        "create",
        "lib",
        "--plain",
        "--from",
        project.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", all_output(&out));
    let heads = w.app.get_json(&w.ann, "/v1/monorepos/ann/lib/heads").await;
    assert_eq!(heads["heads"][0]["head"], head.as_str(), "{heads}");
    let url = format!("{}/ann/lib.git", w.app.base);
    assert_eq!(w.remote_refs(&url), w.refs(&project));
    // --from is for plain repos.
    let out = w.svc(&["monorepo", "create", "other", "--from", "."]);
    assert!(!out.status.success());
}
