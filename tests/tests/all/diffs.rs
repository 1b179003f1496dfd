//! branchDiff end to end: every mode, checked against `git diff --patience`.

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::git::Git;
use svc_tests::{TestApp, expect_error, expect_json};

const R: &str = "/v1/monorepos/ann/mono/repos/app";

struct World {
    app: TestApp,
    token: String,
    git: Git,
    work: std::path::PathBuf,
}

/// Main with a few files; branch `topic` edits, adds, deletes, renames and adds a binary
/// and a file over 8 MiB; main moves on afterwards (three-dot diffs ignore that).
async fn world() -> World {
    let svc_tests::Cloned {
        app,
        token,
        git,
        work,
    } = svc_tests::Cloned::new("mono", "app").await;
    let lines: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    git.commit(
        &work,
        "base",
        &[
            ("a.txt", lines.as_bytes()),
            ("z.txt", b"z\n"),
            ("docs/old.md", b"moved unchanged\n"),
            ("gone.txt", b"bye\n"),
            ("src/deep/x.rs", b"fn x() {}\n"),
        ],
    );
    git.ok(&work, &["push", "-q", "origin", "main"]);
    git.ok(&work, &["checkout", "-q", "-b", "topic"]);
    let edited = lines
        .replace("line 5\n", "line five\n")
        .replace("line 30\n", "");
    let big = vec![b'x'; 9 * 1024 * 1024];
    git.commit(
        &work,
        "topic",
        &[
            ("a.txt", edited.as_bytes()),
            ("b.txt", b"new\n"),
            ("bin.dat", b"\x00\x01\x02binary"),
            ("big.txt", &big),
            ("src/deep/x.rs", b"fn x() { 1 }\n"),
            ("src/y.rs", b"fn y() {}\n"),
        ],
    );
    git.ok(&work, &["rm", "-q", "gone.txt"]);
    git.ok(&work, &["mv", "docs/old.md", "docs/new.md"]);
    git.ok(&work, &["commit", "-q", "-m", "move"]);
    git.ok(&work, &["push", "-q", "origin", "topic"]);
    World {
        app,
        token,
        git,
        work,
    }
}

impl World {
    async fn get(&self, query: &str, etag: Option<&str>) -> reqwest::Response {
        let mut r = self.app.as_user(
            Method::GET,
            &format!("{R}/branches/topic/diff{query}"),
            &self.token,
        );
        if let Some(e) = etag {
            r = r.header(header::IF_NONE_MATCH, e);
        }
        r.send().await.unwrap()
    }

    /// git's hunks for one path (everything from the first `@@`).
    fn git_patch(&self, path: &str) -> String {
        let out = self.git.ok(
            &self.work,
            &[
                "diff",
                "--patience",
                "--no-color",
                "-M100%",
                "main...topic",
                "--",
                path,
            ],
        );
        out.find("@@")
            .map(|i| out[i..].to_owned())
            .unwrap_or_default()
    }
}

fn by_path<'a>(files: &'a [Value], path: &str) -> &'a Value {
    files
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("no {path} in {files:?}"))
}

#[tokio::test]
async fn patches_agree_with_git_and_answer_304() {
    let w = world().await;
    let r = w.get("?patches=1", None).await;
    let etag = r.headers()[header::ETAG].to_str().unwrap().to_owned();
    let d: Value = expect_json(r, StatusCode::OK).await;
    let main = w.git.ok(&w.work, &["rev-parse", "main"]).trim().to_owned();
    let topic = w.git.ok(&w.work, &["rev-parse", "topic"]).trim().to_owned();
    assert_eq!(
        (d["base"].as_str(), d["head"].as_str()),
        (Some(main.as_str()), Some(topic.as_str()))
    );
    assert_eq!(d["merge_base"], main.as_str());
    assert!(etag.contains(&main) && etag.contains(&topic), "{etag}");
    let files = d["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "docs/new.md",
            "src/deep/x.rs",
            "src/y.rs",
            "a.txt",
            "b.txt",
            "big.txt",
            "bin.dat",
            "gone.txt"
        ],
        "file-tree order: folders first at each level, then by name"
    );
    assert_eq!(d["files_total"], 8);
    assert_eq!(d["too_many_files"], false);

    let a = by_path(files, "a.txt");
    assert_eq!(a["status"], "modified");
    assert_eq!(a["patch"].as_str().unwrap(), w.git_patch("a.txt"));
    let numstat = w.git.ok(
        &w.work,
        &[
            "diff",
            "--patience",
            "--numstat",
            "main...topic",
            "--",
            "a.txt",
        ],
    );
    assert_eq!(
        numstat.split_whitespace().take(2).collect::<Vec<_>>(),
        [a["additions"].to_string(), a["deletions"].to_string()]
    );
    let moved = by_path(files, "docs/new.md");
    assert_eq!(
        (moved["status"].as_str(), moved["old_path"].as_str()),
        (Some("renamed"), Some("docs/old.md"))
    );
    assert_eq!(by_path(files, "gone.txt")["status"], "deleted");
    assert_eq!(by_path(files, "b.txt")["status"], "added");
    let bin = by_path(files, "bin.dat");
    assert_eq!(
        (bin["binary"].as_bool(), bin.get("patch")),
        (Some(true), Some(&Value::Null)),
        "a binary file has patch: null"
    );
    assert_eq!(bin["additions"], Value::Null);
    let big = by_path(files, "big.txt");
    assert_eq!(big["patch_omitted"], "too_large");
    assert_eq!(big.get("patch"), Some(&Value::Null));
    assert_eq!(
        (big["additions"].clone(), big["deletions"].clone()),
        (Value::Null, Value::Null)
    );

    let again = w.get("?patches=1", Some(&etag)).await;
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn budget_and_paths_in_the_plain_form() {
    let w = world().await;
    let d: Value = expect_json(w.get("?max_bytes=30", None).await, StatusCode::OK).await;
    let files = d["files"].as_array().unwrap();
    assert_eq!(by_path(files, "a.txt")["patch_omitted"], "budget");
    assert_eq!(by_path(files, "a.txt").get("patch"), Some(&Value::Null));
    assert!(by_path(files, "a.txt")["additions"].is_u64(), "counts stay");
    assert_eq!(d["truncated"], true);
    let d: Value = expect_json(w.get("?paths=src", None).await, StatusCode::OK).await;
    let paths: Vec<&str> = d["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["src/deep/x.rs", "src/y.rs"]);
    let d: Value = expect_json(w.get("?hunks=0", None).await, StatusCode::OK).await;
    assert!(
        d["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f.get("patch") == Some(&Value::Null)),
        "without hunks every file has patch: null"
    );
    let text = w
        .get("?format=patch&paths=a.txt", None)
        .await
        .text()
        .await
        .unwrap();
    assert!(
        text.starts_with("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@"),
        "{text}"
    );
}

#[tokio::test]
async fn streamed_lines_then_replay_with_etag() {
    let w = world().await;
    let r = w.get("?patches=1&stream=1", None).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()[header::CONTENT_TYPE], "application/x-ndjson");
    assert!(
        r.headers().get(header::ETAG).is_none(),
        "no ETag while computing"
    );
    assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
    let first = r.text().await.unwrap();
    let lines: Vec<Value> = first
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "start");
    assert_eq!(lines[0]["files_total"], 8);
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "end");
    assert_eq!(last["stats"]["files"], 8);
    let files: Vec<&str> = lines[1..lines.len() - 1]
        .iter()
        .map(|l| {
            assert_eq!(l["type"], "file");
            l["path"].as_str().unwrap()
        })
        .collect();
    assert_eq!(files[0], "docs/new.md");
    assert_eq!(files.len(), 8);

    let r = w.get("?patches=1&stream=1", None).await;
    let etag = r.headers()[header::ETAG].to_str().unwrap().to_owned();
    assert_eq!(
        r.text().await.unwrap(),
        first,
        "the kept answer is replayed"
    );
    let r = w.get("?patches=1&stream=1", Some(&etag)).await;
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
}

/// commitDiff: a commit's own changes, from its first parent; a root commit's from the
/// empty tree. Its forms are branchDiff's.
#[tokio::test]
async fn a_commit_diff_is_against_its_first_parent() {
    let w = world().await;
    let sha = |rev: &str| w.git.ok(&w.work, &["rev-parse", rev]).trim().to_owned();
    let (root, topic, moved) = (sha("main"), sha("topic~1"), sha("topic"));
    let get = |sha: String, query: &'static str| {
        let path = format!("{R}/commits/{sha}/diff{query}");
        let r = w.app.as_user(Method::GET, &path, &w.token);
        async move { r.send().await.unwrap() }
    };

    let d: Value = expect_json(get(moved.clone(), "").await, StatusCode::OK).await;
    assert_eq!(
        (&d["base"], &d["merge_base"], &d["head"]),
        (&json!(topic), &json!(topic), &json!(moved))
    );
    let files = d["files"].as_array().unwrap();
    let changes: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        changes,
        [("docs/new.md", "renamed"), ("gone.txt", "deleted")]
    );
    let git_patch = w
        .git
        .ok(&w.work, &["show", "--format=", "topic", "--", "gone.txt"]);
    let hunks = &git_patch[git_patch.find("@@").unwrap()..];
    assert_eq!(by_path(files, "gone.txt")["patch"], hunks);

    // The first commit: every file added, from the all-zero sha.
    let d: Value = expect_json(get(root.clone(), "").await, StatusCode::OK).await;
    let zero = "0".repeat(40);
    assert_eq!((&d["base"], &d["merge_base"]), (&json!(zero), &json!(zero)));
    assert_eq!(d["files_total"], 5);
    assert!(
        d["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["status"] == "added"),
        "{d}"
    );

    // Streamed, and as one patch.
    let r = get(topic.clone(), "?patches=1&stream=1").await;
    assert_eq!(r.headers()[header::CONTENT_TYPE], "application/x-ndjson");
    let text = r.text().await.unwrap();
    let start: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (&start["type"], &start["base"], &start["files_total"]),
        (&json!("start"), &json!(root), &json!(6))
    );
    let r = get(topic.clone(), "?format=patch").await;
    assert!(r.text().await.unwrap().contains("+fn y() {}"));

    // What is not a commit of the repo, and who may not read it.
    let r = get("1".repeat(40), "").await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = get(moved[..12].to_owned(), "").await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let bob = w
        .app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob"}))
        .await
        .credential
        .token;
    let r = w
        .app
        .as_user(Method::GET, &format!("{R}/commits/{moved}/diff"), &bob)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}
