//! Reading code through the API, checked against what git itself reports.

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::git::Git;
use svc_tests::{TestApp, expect_error};

struct Pushed {
    app: TestApp,
    token: String,
    git: Git,
    work: std::path::PathBuf,
}

const R: &str = "/v1/monorepos/ann/mono/repos/app";

/// `ann/mono` with repo `app`: main with nested folders, and branch `topic` ahead.
async fn pushed() -> Pushed {
    let app = TestApp::start().await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&token, json!({"name": "mono"})).await;
    let url = app.repo(&token, "ann/mono", "app").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let git = Git::new(&token);
    git.ok(git.home.path(), &["clone", "-q", &url, "work"]);
    let work = git.path("work");
    git.commit(
        &work,
        "one",
        &[
            ("src/a.rs", b"a\n"),
            ("src/b.rs", b"b\n"),
            ("README.md", b"r\n"),
        ],
    );
    git.commit(
        &work,
        "two\n\nBody.\n\nSvc-Agent: claude\nSvc-Machine: box",
        &[("src/a.rs", b"a2\n"), ("docs/x.md", b"x\n")],
    );
    git.commit(&work, "three", &[("README.md", b"r3\n"), ("zeta", b"z\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    git.ok(&work, &["checkout", "-q", "-b", "topic"]);
    git.commit(&work, "topic work", &[("src/b.rs", b"b-topic\n")]);
    git.ok(&work, &["push", "-q", "origin", "topic"]);
    git.ok(&work, &["checkout", "-q", "main"]);
    Pushed {
        app,
        token,
        git,
        work,
    }
}

#[tokio::test]
async fn tree_file_history_and_last_commits_agree_with_git() {
    let p = pushed().await;
    let main = p.git.ok(&p.work, &["rev-parse", "main"]).trim().to_owned();

    let tree = p.app.get_json(&p.token, &format!("{R}/tree")).await;
    let names: Vec<&str> = tree["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["docs", "src", "README.md", "zeta"],
        "folders first, then by name"
    );
    assert_eq!(tree["items"][0]["type"], "tree");
    let ls = p.git.ok(&p.work, &["ls-tree", "main", "src/"]);
    let sub = p
        .app
        .get_json(&p.token, &format!("{R}/tree?path=src"))
        .await;
    for (line, entry) in ls.lines().zip(sub["items"].as_array().unwrap()) {
        assert!(
            line.contains(entry["sha"].as_str().unwrap())
                && line.ends_with(entry["path"].as_str().unwrap()),
            "{line} vs {entry}"
        );
    }
    let on_topic = p
        .app
        .get_json(&p.token, &format!("{R}/tree?ref=topic&path=src"))
        .await;
    assert_ne!(
        on_topic["items"][1]["sha"], sub["items"][1]["sha"],
        "a branch name resolves from stored heads"
    );

    // Files: raw bytes with the blob id as ETag, and 304 when it matches.
    let r = p
        .app
        .as_user(Method::GET, &format!("{R}/file?path=src/a.rs"), &p.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    served_file_headers(&r);
    let etag = r.headers()[header::ETAG].to_str().unwrap().to_owned();
    assert_eq!(
        etag,
        format!(
            "\"{}\"",
            p.git.ok(&p.work, &["rev-parse", "main:src/a.rs"]).trim()
        )
    );
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"a2\n");
    let r = p
        .app
        .as_user(Method::GET, &format!("{R}/file?path=src/a.rs"), &p.token)
        .header(header::IF_NONE_MATCH, &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    let r = p
        .app
        .as_user(
            Method::GET,
            &format!("{R}/file?path=src/b.rs&ref=topic"),
            &p.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"b-topic\n");

    // History of a path, newest first.
    let history = p
        .app
        .get_json(&p.token, &format!("{R}/history?path=README.md"))
        .await;
    let shas: Vec<&str> = history["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["sha"].as_str().unwrap())
        .collect();
    let expected = p.git.ok(
        &p.work,
        &[
            "log",
            "--first-parent",
            "--format=%H",
            "main",
            "--",
            "README.md",
        ],
    );
    assert_eq!(shas, expected.lines().collect::<Vec<_>>());
    assert_eq!(
        (
            history["complete_page"].as_bool(),
            history["capped"].as_bool()
        ),
        (Some(true), Some(false))
    );
    let page = p
        .app
        .get_json(&p.token, &format!("{R}/history?limit=1"))
        .await;
    assert_eq!(page["items"][0]["sha"], main.as_str());
    let next = page["next"].as_str().unwrap();
    let page2 = p
        .app
        .get_json(&p.token, &format!("{R}/history?limit=1&next={next}"))
        .await;
    assert_ne!(page2["items"][0]["sha"], page["items"][0]["sha"]);

    // Last commits: one per entry, as `git log -1` has it.
    let last = p
        .app
        .get_json(&p.token, &format!("{R}/last-commits?path=src"))
        .await;
    assert_eq!(last["complete"], true);
    for entry in last["entries"].as_array().unwrap() {
        let path = entry["path"].as_str().unwrap();
        let want = p.git.ok(
            &p.work,
            &[
                "log",
                "-1",
                "--first-parent",
                "--format=%H",
                "main",
                "--",
                path,
            ],
        );
        assert_eq!(entry["commit"]["sha"], want.trim(), "{path}");
    }

    // A commit with its trailers.
    let second = p
        .git
        .ok(&p.work, &["rev-parse", "main~1"])
        .trim()
        .to_owned();
    let commit = p
        .app
        .get_json(&p.token, &format!("{R}/commits/{second}"))
        .await;
    assert_eq!(commit["title"], "two");
    assert_eq!(
        commit["trailers"],
        json!({"Svc-Agent": "claude", "Svc-Worktree": null, "Svc-Machine": "box"})
    );
}

#[tokio::test]
async fn unknown_refs_paths_and_outsiders() {
    let p = pushed().await;
    let absent = "0123456789abcdef0123456789abcdef01234567";
    for path in [
        format!("{R}/tree?ref={absent}"),
        format!("{R}/commits/{absent}"),
        format!("{R}/tree?path=nope"),
        format!("{R}/file?path=src"),
        format!("{R}/tree?ref=no-such-branch"),
        "/v1/monorepos/ann/mono/repos/nope/tree".to_owned(),
    ] {
        let r = p
            .app
            .as_user(Method::GET, &path, &p.token)
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
    let r = p
        .app
        .as_user(Method::GET, &format!("{R}/history?limit=0"), &p.token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let other = p
        .app
        .bootstrap(json!({"email": "eve@example.com"}))
        .await
        .credential
        .token;
    let r = p
        .app
        .as_user(Method::GET, &format!("{R}/tree"), &other)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    // An empty repo has no main to read yet.
    p.app.repo(&p.token, "ann/mono", "empty").await;
    let r = p
        .app
        .as_user(
            Method::GET,
            "/v1/monorepos/ann/mono/repos/empty/tree",
            &p.token,
        )
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

/// A file served as it is may not be sniffed into a page, run anything or be framed.
fn served_file_headers(r: &reqwest::Response) {
    assert_eq!(r.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert_eq!(
        r.headers()[header::CONTENT_SECURITY_POLICY],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
}

#[tokio::test]
async fn raw_routes_serve_main_and_the_meta_layer() {
    let p = pushed().await;
    let r = p
        .app
        .as_user(Method::GET, "/ann/mono/projects/app/raw/src/a.rs", &p.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    served_file_headers(&r);
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"a2\n");

    let meta_url = p
        .app
        .get_json(&p.token, "/v1/monorepos/ann/mono/repos/meta")
        .await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    p.git
        .ok(p.git.home.path(), &["clone", "-q", &meta_url, "meta"]);
    let meta = p.git.path("meta");
    p.git.commit(
        &meta,
        "config",
        &[(
            ".svc/svc.toml",
            b"[repos.\"app\"]\nrequired_checks = [\"ci\"]\n",
        )],
    );
    p.git.ok(&meta, &["push", "-q", "origin", "main"]);
    let r = p
        .app
        .as_user(Method::GET, "/ann/mono/raw/svc.toml", &p.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    served_file_headers(&r);
    assert!(
        String::from_utf8(r.bytes().await.unwrap().to_vec())
            .unwrap()
            .contains("required_checks")
    );
    let r = p
        .app
        .request(Method::GET, "/ann/mono/raw/svc.toml")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let heads = p
        .app
        .get_json(&p.token, "/v1/monorepos/ann/mono/heads")
        .await;
    assert!(
        heads["heads"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["repo"] != "meta"),
        "{heads}"
    );
    let _: Value = heads;
}
