//! The meta layer end to end: `svc sync` (and `svc meta sync`) on two sealed machines
//! against a real server, and the `{m}/meta/...` routes' refusals.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Output;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use svc_tests::git::{Git, all_output};
use svc_tests::machine::Machine;
use svc_tests::{TestApp, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";

struct World {
    app: TestApp,
    ann: String,
    a: Machine,
    b: Machine,
}

impl World {
    async fn start() -> World {
        let app = TestApp::start().await;
        let ann = app
            .bootstrap(json!({"email": "ann@example.com", "name": "Ann Example"}))
            .await
            .credential
            .token;
        app.monorepo(&ann, json!({"name": "mono"})).await;
        app.repo(&ann, "ann/mono", "web").await;
        let w = World {
            app,
            ann,
            a: Machine::new(),
            b: Machine::new(),
        };
        for m in [&w.a, &w.b] {
            let out = w.svc(m, "x", m.home.path(), &["clone", "ann/mono"]);
            assert!(out.status.success(), "clone: {}", all_output(&out));
        }
        w
    }

    fn svc(&self, m: &Machine, name: &str, dir: &Path, args: &[&str]) -> Output {
        m.svc(args)
            .current_dir(dir)
            .env("SVC_TOKEN", &self.ann)
            .env("SVC_SERVER", &self.app.base)
            .env("SVC_MACHINE", name)
            .output()
            .unwrap()
    }

    /// `svc sync --json` on machine `a` or `b`, insisting on success.
    fn sync(&self, which: char) -> Value {
        let out = self.sync_raw(which, &["sync", "--json"]);
        assert!(
            out.status.success(),
            "sync on {which}: {}",
            all_output(&out)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn sync_raw(&self, which: char, args: &[&str]) -> Output {
        let (m, name) = self.machine(which);
        self.svc(m, name, &m.home.path().join("mono"), args)
    }

    fn machine(&self, which: char) -> (&Machine, &'static str) {
        if which == 'a' {
            (&self.a, "laptop-a")
        } else {
            (&self.b, "desktop-b")
        }
    }

    async fn meta_saved(&self) -> Vec<Value> {
        self.app
            .get_json(&self.ann, &format!("{M}/events?kinds=meta.saved&limit=500"))
            .await["items"]
            .as_array()
            .unwrap()
            .clone()
    }
}

fn svc_dir(m: &Machine) -> PathBuf {
    m.home.path().join("mono/.svc")
}

fn write(m: &Machine, path: &str, text: &str) {
    let p = svc_dir(m).join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(m: &Machine, path: &str) -> Option<String> {
    std::fs::read_to_string(svc_dir(m).join(path)).ok()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[tokio::test]
async fn two_machines_share_the_meta_layer() {
    let w = World::start().await;

    // First upload of the new monorepo: saved, but no history events.
    write(&w.a, "svc.toml", "[repos.\"web\"]\nrequired_checks = []\n");
    write(&w.a, "notes/plan.md", "plan v1\n");
    let r = w.sync('a');
    assert_eq!(
        strings(&r["saved"]),
        vec!["notes/plan.md".to_owned(), "svc.toml".into()]
    );
    assert_eq!(r["uploaded"], 2);
    assert!(r["version"].is_string(), "{r}");
    assert!(w.meta_saved().await.is_empty());
    let files = w.app.get_json(&w.ann, &format!("{M}/meta/files")).await;
    assert_eq!(files["version"], r["version"]);
    let listed: Vec<(&str, &str)> = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["sha256"].as_str().unwrap()))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("notes/plan.md", sha256(b"plan v1\n").as_str()),
            (
                "svc.toml",
                sha256(b"[repos.\"web\"]\nrequired_checks = []\n").as_str()
            )
        ]
    );

    // The old name works and brings A's files to B.
    let out = w.sync_raw('b', &["meta", "sync"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("2 downloaded"), "{said}");
    assert_eq!(read(&w.b, "notes/plan.md").as_deref(), Some("plan v1\n"));

    // Nothing changed: nothing sent, nothing fetched.
    let r = w.sync('b');
    assert_eq!(r["uploaded"], 0);
    assert!(strings(&r["saved"]).is_empty() && strings(&r["downloaded"]).is_empty());
    assert_eq!(r["unchanged"], 2);

    // A later save is history: one meta.saved event, no bytes.
    write(&w.a, "notes/plan.md", "plan v2\n");
    let r = w.sync('a');
    assert_eq!(strings(&r["saved"]), vec!["notes/plan.md".to_owned()]);
    let events = w.meta_saved().await;
    assert_eq!(events.len(), 1, "{events:?}");
    let row = &events[0]["row"];
    assert_eq!(events[0]["collection"], "meta_files");
    assert_eq!(events[0]["key"], "notes/plan.md");
    assert_eq!(row["sha256"], sha256(b"plan v2\n"));
    assert_eq!(row["size"], 8);
    assert_eq!(row["machine"], "laptop-a");
    assert_eq!(row["actor"], "ann");
    assert_eq!(row["version"], r["version"]);
    let r = w.sync('b');
    assert_eq!(strings(&r["downloaded"]), vec!["notes/plan.md".to_owned()]);
    assert_eq!(read(&w.b, "notes/plan.md").as_deref(), Some("plan v2\n"));

    // The same content saved again elsewhere is not uploaded again.
    write(&w.b, "copy.md", "plan v2\n");
    let r = w.sync('b');
    assert_eq!(r["uploaded"], 0);
    assert_eq!(strings(&r["saved"]), vec!["copy.md".to_owned()]);

    // A deletion propagates.
    std::fs::remove_file(svc_dir(&w.a).join("notes/plan.md")).unwrap();
    let r = w.sync('a');
    assert_eq!(strings(&r["saved"]), vec!["notes/plan.md".to_owned()]);
    assert_eq!(strings(&r["downloaded"]), vec!["copy.md".to_owned()]);
    let r = w.sync('b');
    assert_eq!(strings(&r["deleted"]), vec!["notes/plan.md".to_owned()]);
    assert!(!svc_dir(&w.b).join("notes").exists());

    // A concurrent edit: the second sync keeps the server's copy and the local one.
    write(&w.a, "svc.toml", "# from a\n");
    write(&w.b, "svc.toml", "# from b\n");
    w.sync('a');
    let out = w.sync_raw('b', &["sync"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(".svc/svc.toml") && err.contains("svc.conflict-desktop-b-"),
        "{err}"
    );
    assert_eq!(read(&w.b, "svc.toml").as_deref(), Some("# from a\n"));
    let copies: Vec<String> = std::fs::read_dir(svc_dir(&w.b))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("svc.conflict-desktop-b-") && n.ends_with(".toml"))
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert_eq!(read(&w.b, &copies[0]).as_deref(), Some("# from b\n"));
    // The conflict copy was shared by that sync; nothing is lost anywhere.
    let r = w.sync('b');
    assert!(strings(&r["saved"]).is_empty(), "{r}");
    let r = w.sync('a');
    assert_eq!(strings(&r["downloaded"]), copies);
    assert_eq!(read(&w.a, &copies[0]).as_deref(), Some("# from b\n"));
    assert_eq!(read(&w.a, "svc.toml").as_deref(), Some("# from a\n"));

    // A merge into the meta repo reaches the machines on their next sync.
    let merged = w
        .app
        .merge_into_meta(&w.ann, "ann/mono", "merged.txt", b"by merge\n")
        .await;
    let r = w.sync('b');
    assert_eq!(strings(&r["downloaded"]), vec!["merged.txt".to_owned()]);
    assert_eq!(r["version"], merged["sha"]);
    assert_eq!(read(&w.b, "merged.txt").as_deref(), Some("by merge\n"));
    // Merged files are not meta.saved history.
    assert!(
        w.meta_saved()
            .await
            .iter()
            .all(|e| e["key"] != "merged.txt")
    );
}

/// Sends raw HTTP/1.1 `head` (no body) and answers the status code.
fn raw_status(base: &str, head: &str) -> u16 {
    let addr = base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    s.write_all(head.as_bytes()).unwrap();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap();
    let line = String::from_utf8_lossy(&buf[..n]);
    line.split(' ').nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn uploads_and_saves_are_checked() {
    let app = TestApp::start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&ann, json!({"name": "mono"})).await;
    let empty = app.get_json(&ann, &format!("{M}/meta/files")).await;
    assert_eq!(empty, json!({"version": null, "files": []}));

    let body = b"hello meta\n";
    let sha = sha256(body);
    let put = |sha: &str, bytes: &'static [u8]| {
        app.as_user(Method::PUT, &format!("{M}/meta/blobs/{sha}"), &ann)
            .body(bytes)
            .send()
    };
    // A wrong digest: 422.
    let wrong = sha256(b"other");
    expect_error(
        put(&wrong, body).await.unwrap(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "sha256_mismatch",
    )
    .await;
    // Over 100 MB: 413 before any byte is read; no length: 411.
    let host = app.base.trim_start_matches("http://").to_owned();
    let base = app.base.clone();
    let head = format!(
        "PUT {M}/meta/blobs/{sha} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {ann}\r\nContent-Length: 100000001\r\n\r\n"
    );
    let b2 = base.clone();
    assert_eq!(
        tokio::task::spawn_blocking(move || raw_status(&b2, &head))
            .await
            .unwrap(),
        413
    );
    let head = format!(
        "PUT {M}/meta/blobs/{sha} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {ann}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    );
    assert_eq!(
        tokio::task::spawn_blocking(move || raw_status(&base, &head))
            .await
            .unwrap(),
        411
    );

    // Missing, then uploaded, then no longer missing.
    let missing = |list: Value| {
        app.as_user(Method::POST, &format!("{M}/meta/blobs/missing"), &ann)
            .json(&json!({"sha256": list}))
            .send()
    };
    let r: Value = expect_json(missing(json!([sha])).await.unwrap(), StatusCode::OK).await;
    assert_eq!(r["missing"], json!([sha]));
    let r: Value = expect_json(put(&sha, body).await.unwrap(), StatusCode::OK).await;
    assert_eq!(r["size"], 11);
    let r: Value = expect_json(missing(json!([sha])).await.unwrap(), StatusCode::OK).await;
    assert_eq!(r["missing"], json!([]));
    expect_error(
        missing(json!(["nothex"])).await.unwrap(),
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;

    let save = |body: Value| {
        app.as_user(Method::POST, &format!("{M}/meta/saves"), &ann)
            .json(&body)
            .send()
    };
    for bad in ["../x", "/abs", "a/.git/config", "a//b", ""] {
        expect_error(
            save(json!({"base": null, "changes": [{"path": bad, "sha256": sha}]}))
                .await
                .unwrap(),
            StatusCode::BAD_REQUEST,
            "bad_path",
        )
        .await;
    }
    let err = expect_error(
        save(json!({"base": null, "changes": [{"path": "x", "sha256": wrong}]}))
            .await
            .unwrap(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "missing_blob",
    )
    .await;
    assert_eq!(err["error"]["paths"], json!(["x"]));

    let first: Value = expect_json(
        save(json!({"base": null, "machine": "m1", "changes": [{"path": "a.txt", "sha256": sha}]}))
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    let v1 = first["version"].as_str().unwrap().to_owned();
    let commit = app
        .get_json(&ann, &format!("{M}/repos/meta/commits/{v1}"))
        .await;
    assert!(
        commit["message"]
            .as_str()
            .unwrap()
            .contains("Svc-Machine: m1"),
        "{commit}"
    );

    // Another path saved against the old base still lands (main moved, path untouched).
    let other = b"second\n";
    let other_sha = sha256(other);
    expect_json::<Value>(put(&other_sha, other).await.unwrap(), StatusCode::OK).await;
    let second: Value = expect_json(
        save(json!({"base": v1, "changes": [{"path": "b.txt", "sha256": other_sha}]}))
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    let v2 = second["version"].as_str().unwrap().to_owned();
    let r: Value = expect_json(
        save(json!({"base": v1, "changes": [{"path": "c.txt", "sha256": sha}]}))
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    let v3 = r["version"].as_str().unwrap().to_owned();
    // A path changed on main since the base: 409 edited, nothing written.
    let err = expect_error(
        save(json!({"base": v1, "changes": [
            {"path": "b.txt", "sha256": sha},
            {"path": "d.txt", "sha256": sha}
        ]}))
        .await
        .unwrap(),
        StatusCode::CONFLICT,
        "edited",
    )
    .await;
    assert_eq!(err["error"]["paths"], json!(["b.txt"]));
    assert_eq!(err["error"]["current"], v3);
    let files = app.get_json(&ann, &format!("{M}/meta/files")).await;
    let paths: Vec<&str> = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, vec!["a.txt", "b.txt", "c.txt"]);
    assert_ne!(v2, v3);
    // The meta.saved events of the later saves (not the first upload).
    let events = app
        .get_json(&ann, &format!("{M}/events?kinds=meta.saved&repo=meta"))
        .await;
    let keys: Vec<&str> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, vec!["b.txt", "c.txt"]);
    // The same entries as history, newest first, for all paths or one.
    let h = app.get_json(&ann, &format!("{M}/meta/history")).await;
    let keys: Vec<&str> = h["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["row"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(keys, vec!["c.txt", "b.txt"]);
    assert_eq!(h["next_cursor"], Value::Null);
    let h = app
        .get_json(&ann, &format!("{M}/meta/history?path=b.txt"))
        .await;
    assert_eq!(h["items"].as_array().unwrap().len(), 1);
    assert_eq!(h["items"][0]["row"]["version"], v2);

    // A plain repo has no meta layer.
    app.monorepo(&ann, json!({"name": "plain", "kind": "repo"}))
        .await;
    let r = app
        .as_user(Method::GET, "/v1/monorepos/ann/plain/meta/files", &ann)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn concurrent_listings_of_merged_files_all_answer() {
    let app = TestApp::start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&ann, json!({"name": "mono"})).await;
    let meta = app.get_json(&ann, &format!("{M}/repos/meta")).await;
    let git = Git::new(&ann);
    git.ok(
        git.home.path(),
        &["clone", "-q", meta["clone_url"].as_str().unwrap(), "meta"],
    );
    let work = git.path("meta");
    git.commit(&work, "base", &[(".svc/base.txt", b"base\n")]);
    git.ok(&work, &["push", "-q", "origin", "HEAD:main"]);
    // Contents the server has never hashed, brought in by a merge.
    git.ok(&work, &["checkout", "-q", "-b", "many"]);
    let files: Vec<(String, Vec<u8>)> = (0..20)
        .map(|i| (format!(".svc/f{i}.txt"), format!("file {i}\n").into_bytes()))
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    git.commit(&work, "many", &refs);
    git.ok(&work, &["push", "-q", "origin", "many"]);
    let r = app
        .as_user(
            Method::POST,
            &format!("{M}/repos/meta/branches/many/merge"),
            &ann,
        )
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;

    // Every machine's daemon lists them at once; each listing answers in full.
    let listings = (0..8).map(|_| {
        app.as_user(Method::GET, &format!("{M}/meta/files"), &ann)
            .send()
    });
    for r in futures_util::future::join_all(listings).await {
        let listed: Value = expect_json(r.unwrap(), StatusCode::OK).await;
        assert_eq!(listed["files"].as_array().unwrap().len(), 21, "{listed}");
    }
}
