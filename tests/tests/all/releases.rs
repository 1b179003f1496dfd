//! Releases, tags and deployments end to end: real git through the door, the checks gate,
//! locked tags, files streamed with their SHA-256, public downloads, generated notes.

use std::path::PathBuf;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use svc_tests::git::{Git, all_output};
use svc_tests::{TestApp, expect_error, expect_json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";

/// `ann/mono` with repo `app`, main pushed (two commits), cloned in `work`.
struct World {
    app: TestApp,
    token: String,
    git: Git,
    work: PathBuf,
    /// Main's first and second commits.
    first: String,
    main: String,
}

async fn world() -> World {
    let svc_tests::Cloned {
        app,
        token,
        git,
        work,
    } = svc_tests::Cloned::new("mono", "app").await;
    let first = git.commit(&work, "first", &[("a.txt", b"one\n")]);
    let main = git.commit(&work, "second", &[("a.txt", b"two\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    World {
        app,
        token,
        git,
        work,
        first,
        main,
    }
}

impl World {
    async fn send(&self, method: Method, path: &str, body: Option<Value>) -> reqwest::Response {
        let mut r = self.app.as_user(method, &format!("{R}{path}"), &self.token);
        if let Some(b) = body {
            r = r.json(&b);
        }
        r.send().await.unwrap()
    }

    async fn create(&self, body: Value) -> reqwest::Response {
        self.send(Method::POST, "/releases", Some(body)).await
    }

    async fn upload(
        &self,
        tag: &str,
        name: &str,
        bytes: &[u8],
        sha: Option<&str>,
    ) -> reqwest::Response {
        let mut r = self
            .app
            .as_user(
                Method::PUT,
                &format!("{R}/releases/{tag}/files/{name}"),
                &self.token,
            )
            .body(bytes.to_vec());
        if let Some(sha) = sha {
            r = r.header("x-svc-sha256", sha);
        }
        r.send().await.unwrap()
    }

    /// The remote's tags: name to the commit each names.
    fn remote_tags(&self) -> Vec<(String, String)> {
        let out = self.git.ok(&self.work, &["ls-remote", "--tags", "origin"]);
        let mut tags: Vec<(String, String)> = out
            .lines()
            .filter(|l| l.contains("refs/tags/"))
            .filter_map(|l| l.split_once('\t'))
            .map(|(sha, r)| {
                (
                    r.trim_start_matches("refs/tags/").to_owned(),
                    sha.to_owned(),
                )
            })
            .collect();
        tags.sort();
        tags
    }

    async fn kinds(&self, collection: &str) -> Vec<String> {
        let page = self
            .app
            .get_json(&self.token, &format!("{M}/events?limit=500"))
            .await;
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["collection"] == collection)
            .map(|e| e["kind"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Writes `.svc/svc.toml` on the meta layer's main.
    fn require_checks(&self, contexts: &str) {
        let url = self.app.url("/ann/mono/meta.git");
        self.git
            .ok(self.git.home.path(), &["clone", "-q", &url, "meta"]);
        let meta = self.git.path("meta");
        let toml = format!("[repos.\"app\"]\nrequired_checks = [{contexts}]\n");
        self.git
            .commit(&meta, "config", &[(".svc/svc.toml", toml.as_bytes())]);
        self.git.ok(&meta, &["push", "-q", "origin", "main"]);
    }

    async fn status(&self, sha: &str, context: &str, state: &str) {
        let r = self
            .send(
                Method::POST,
                &format!("/statuses/{sha}"),
                Some(json!({"context": context, "state": state})),
            )
            .await;
        assert_eq!(r.status(), StatusCode::CREATED);
    }
}

/// Release files on disk, in every repo's folder.
fn files_on_disk(w: &World) -> usize {
    let root = w.app.data_dir.path().join("releases");
    std::fs::read_dir(root)
        .unwrap()
        .map(|repo| std::fs::read_dir(repo.unwrap().path()).unwrap().count())
        .sum()
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[tokio::test]
async fn a_published_release_makes_its_tag_and_git_cannot_move_or_delete_it() {
    let w = world().await;
    let r: Value = expect_json(
        w.create(json!({"tag": "v1.0", "title": "One"})).await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(r["commit"], w.main.as_str(), "main's head by default");
    assert_eq!(r["draft"], false);
    assert!(r["published_at"].is_string());
    assert_eq!(r["author"], "ann");
    assert_eq!(w.remote_tags(), [("v1.0".to_owned(), w.main.clone())]);
    assert_eq!(w.kinds("tags").await, ["tag.created"]);
    assert_eq!(w.kinds("releases").await, ["release.created"]);

    // Moving it, deleting it, or pushing a branch beside a move: refused whole.
    w.git.ok(&w.work, &["tag", "-f", "v1.0", &w.first]);
    let out = w.git.run(&w.work, &["push", "-f", "origin", "v1.0"]);
    assert!(!out.status.success());
    assert!(
        all_output(&out).contains("tag of a published release"),
        "{}",
        all_output(&out)
    );
    let out = w.git.run(&w.work, &["push", "origin", ":refs/tags/v1.0"]);
    assert!(!out.status.success());
    w.git.ok(&w.work, &["branch", "side", &w.first]);
    let out = w.git.run(
        &w.work,
        &[
            "push",
            "-f",
            "origin",
            "side",
            "refs/tags/v1.0:refs/tags/v1.0",
        ],
    );
    assert!(!out.status.success());
    assert_eq!(w.remote_tags(), [("v1.0".to_owned(), w.main.clone())]);
    let branches = w.app.get_json(&w.token, &format!("{R}/branches")).await;
    assert_eq!(
        branches["items"].as_array().unwrap().len(),
        0,
        "nothing landed"
    );

    // Other tags come and go through the door, with their events.
    w.git
        .ok(&w.work, &["tag", "-a", "-m", "note", "v0.9", &w.first]);
    w.git.ok(&w.work, &["push", "-q", "origin", "v0.9"]);
    let tags = w.app.get_json(&w.token, &format!("{R}/tags")).await;
    let names: Vec<&str> = tags["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["v0.9", "v1.0"], "newest first");
    assert_eq!(tags["items"][0]["commit"], w.first.as_str(), "peeled");
    assert_eq!(tags["items"][0]["release"], Value::Null);
    assert_eq!(tags["items"][1]["release"]["draft"], false);
    w.git
        .ok(&w.work, &["push", "-q", "origin", ":refs/tags/v0.9"]);
    assert_eq!(
        w.kinds("tags").await,
        ["tag.created", "tag.created", "tag.deleted"]
    );

    // Deleting the release keeps the tag and unlocks it.
    let r = w.send(Method::DELETE, "/releases/v1.0", None).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(w.remote_tags(), [("v1.0".to_owned(), w.main.clone())]);
    assert_eq!(
        w.kinds("releases").await,
        ["release.created", "release.deleted"]
    );
    w.git.ok(&w.work, &["push", "-q", "-f", "origin", "v1.0"]);
    assert_eq!(w.remote_tags(), [("v1.0".to_owned(), w.first.clone())]);
}

#[tokio::test]
async fn red_or_missing_checks_refuse_before_anything_is_made() {
    let w = world().await;
    w.require_checks("\"ci\"");
    let e = expect_error(
        w.create(json!({"tag": "v1"})).await,
        StatusCode::PRECONDITION_FAILED,
        "checks_not_green",
    )
    .await;
    assert_eq!(e["error"]["checks"]["state"], "missing");
    assert_eq!(e["error"]["checks"]["missing"], json!(["ci"]));
    assert!(w.remote_tags().is_empty(), "no tag");
    expect_error(
        w.send(Method::GET, "/releases/v1", None).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    assert!(w.kinds("releases").await.is_empty());

    // A draft asks nothing and makes no tag; publishing asks.
    let d: Value = expect_json(
        w.create(json!({"tag": "v1", "draft": true})).await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(d["draft"], true);
    assert_eq!(d["published_at"], Value::Null);
    assert!(w.remote_tags().is_empty());
    w.status(&w.main, "ci", "failure").await;
    let e = expect_error(
        w.send(Method::POST, "/releases/v1/publish", None).await,
        StatusCode::PRECONDITION_FAILED,
        "checks_not_green",
    )
    .await;
    assert_eq!(e["error"]["checks"]["state"], "failure");
    assert!(w.remote_tags().is_empty());
    let got = w.app.get_json(&w.token, &format!("{R}/releases/v1")).await;
    assert_eq!(got["checks"]["state"], "failure");
    w.status(&w.main, "ci", "success").await;
    let p: Value = expect_json(
        w.send(Method::POST, "/releases/v1/publish", None).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(p["draft"], false);
    assert_eq!(w.remote_tags(), [("v1".to_owned(), w.main.clone())]);
    assert_eq!(
        w.kinds("releases").await,
        ["release.created", "release.published"]
    );

    // force goes past red checks, on create and on publish.
    w.git.ok(&w.work, &["tag", "old", &w.first]);
    w.git.ok(&w.work, &["push", "-q", "origin", "old"]);
    w.status(&w.first, "ci", "failure").await;
    let f: Value = expect_json(
        w.send(
            Method::POST,
            "/releases?force=1",
            Some(json!({"tag": "old"})),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(f["commit"], w.first.as_str(), "the tag's commit");
}

#[tokio::test]
async fn the_release_commit_is_on_main_and_a_tag_elsewhere_is_tag_exists() {
    let w = world().await;
    w.git.ok(&w.work, &["checkout", "-q", "-b", "topic"]);
    let off = w.git.commit(&w.work, "off main", &[("b.txt", b"b\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "topic"]);
    expect_error(
        w.create(json!({"tag": "v1", "target": off})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "not_on_main",
    )
    .await;
    w.git.ok(&w.work, &["tag", "offtag", &off]);
    w.git.ok(&w.work, &["push", "-q", "origin", "offtag"]);
    expect_error(
        w.create(json!({"tag": "offtag"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "not_on_main",
    )
    .await;
    expect_error(
        w.create(json!({"tag": "latest"})).await,
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    let r: Value = expect_json(
        w.create(json!({"tag": "v1", "target": w.first, "draft": true}))
            .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(r["commit"], w.first.as_str());
    expect_error(
        w.create(json!({"tag": "v1"})).await,
        StatusCode::CONFLICT,
        "release_exists",
    )
    .await;
    // While a draft, the tag may be made elsewhere; publishing then refuses.
    w.git.ok(&w.work, &["tag", "v1", &w.main]);
    w.git.ok(&w.work, &["push", "-q", "origin", "v1"]);
    expect_error(
        w.send(Method::POST, "/releases/v1/publish", None).await,
        StatusCode::CONFLICT,
        "tag_exists",
    )
    .await;
    let got = w.app.get_json(&w.token, &format!("{R}/releases/v1")).await;
    assert_eq!(got["draft"], true);
}

#[tokio::test]
async fn files_stream_with_their_sha256_replace_atomically_and_resume() {
    let w = world().await;
    expect_json::<Value>(w.create(json!({"tag": "v1"})).await, StatusCode::CREATED).await;
    let one = b"first version of the file".to_vec();
    let f: Value = expect_json(
        w.upload("v1", "app.tar.gz", &one, Some(&sha256(&one)))
            .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(f["sha256"], sha256(&one));
    assert_eq!(f["size"], one.len());

    // A mismatch keeps nothing; the old file stays.
    let two = b"second version, a little longer".to_vec();
    expect_error(
        w.upload("v1", "app.tar.gz", &two, Some(&sha256(b"other")))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "sha256_mismatch",
    )
    .await;
    let got = w.app.get_json(&w.token, &format!("{R}/releases/v1")).await;
    assert_eq!(got["files"][0]["sha256"], sha256(&one));
    let f: Value = expect_json(
        w.upload("v1", "app.tar.gz", &two, None).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(f["sha256"], sha256(&two));

    // Download, whole and from an offset; `latest` names v1.
    let url = format!("{R}/releases/latest/files/app.tar.gz");
    let r = w
        .app
        .as_user(Method::GET, &url, &w.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["x-svc-sha256"], sha256(&two).as_str());
    assert_eq!(r.headers()["x-content-type-options"], "nosniff");
    assert_eq!(
        r.headers()["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    assert_eq!(
        r.headers()["etag"],
        format!("\"{}\"", sha256(&two)).as_str()
    );
    let disposition = r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        disposition.starts_with("attachment; filename=\"app.tar.gz\""),
        "{disposition}"
    );
    assert_eq!(r.bytes().await.unwrap().as_ref(), two.as_slice());
    let r = w
        .app
        .as_user(Method::GET, &url, &w.token)
        .header("range", "bytes=7-")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(
        r.headers()["content-range"],
        format!("bytes 7-{}/{}", two.len() - 1, two.len()).as_str()
    );
    assert_eq!(r.bytes().await.unwrap().as_ref(), &two[7..]);

    // An upload cut off mid-way keeps nothing and the old file stays.
    let addr = w.app.base.trim_start_matches("http://").to_owned();
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "PUT {R}/releases/v1/files/app.tar.gz HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\nContent-Length: 100000\r\n\r\n",
        w.token
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(&[7u8; 5000]).await.unwrap();
    s.flush().await.unwrap();
    drop(s);
    // 411 without Content-Length; 413 at once when the header says too much.
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "PUT {R}/releases/v1/files/big.bin HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\nContent-Length: 100000001\r\nConnection: close\r\n\r\n",
        w.token
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 12];
    s.read_exact(&mut answer).await.unwrap();
    assert_eq!(&answer, b"HTTP/1.1 413");
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "PUT {R}/releases/v1/files/c.bin HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        w.token
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 12];
    s.read_exact(&mut answer).await.unwrap();
    assert_eq!(&answer, b"HTTP/1.1 411");
    let mut files = Vec::new();
    for _ in 0..50 {
        let got = w.app.get_json(&w.token, &format!("{R}/releases/v1")).await;
        files = got["files"].as_array().unwrap().clone();
        if files_on_disk(&w) == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(files.len(), 1);
    assert_eq!(files[0]["sha256"], sha256(&two), "the old file stays");
    let on_disk = std::fs::read_dir(w.app.data_dir.path().join("releases"))
        .unwrap()
        .count();
    assert_eq!(
        on_disk, 1,
        "nothing kept of the cut-off upload or the replaced file"
    );

    // 20 files a release.
    for i in 1..20 {
        let r = w.upload("v1", &format!("f{i}"), b"x", None).await;
        assert_eq!(r.status(), StatusCode::CREATED);
    }
    expect_error(
        w.upload("v1", "f20", b"x", None).await,
        StatusCode::CONFLICT,
        "too_many_files",
    )
    .await;
    let r = w.upload("v1", "f1", b"replaced", None).await;
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "a replacement is not a new file"
    );
    let r = w.send(Method::DELETE, "/releases/v1/files/f1", None).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = w.upload("v1", "f20", b"x", None).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    expect_error(
        w.upload("v1", "a%5Cb", b"x", None).await,
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;

    // The files go with their monorepo.
    let r = w
        .app
        .as_user(Method::DELETE, &format!("{M}?confirm=ann/mono"), &w.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let left = std::fs::read_dir(w.app.data_dir.path().join("releases"))
        .unwrap()
        .count();
    assert_eq!(left, 0, "no release file outlives its monorepo");
}

#[tokio::test]
async fn anyone_downloads_public_release_files_and_never_code() {
    let w = world().await;
    expect_json::<Value>(w.create(json!({"tag": "v1"})).await, StatusCode::CREATED).await;
    let r = w.upload("v1", "tool", b"binary", None).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let eve = w
        .app
        .bootstrap(json!({"email": "eve@example.com"}))
        .await
        .credential
        .token;
    let url = w.app.url(&format!("{R}/releases/v1/files/tool"));
    let anonymous = w.app.client.get(&url).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::NOT_FOUND);
    let outsider = w
        .app
        .as_user(Method::GET, &format!("{R}/releases/v1/files/tool"), &eve);
    assert_eq!(
        outsider.send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );

    let r = w
        .app
        .as_user(Method::PATCH, R, &w.token)
        .json(&json!({"releases_public": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let anonymous = w.app.client.get(&url).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::OK);
    assert_eq!(anonymous.bytes().await.unwrap().as_ref(), b"binary");
    let latest = w.app.url(&format!("{R}/releases/latest/files/tool"));
    assert_eq!(
        w.app.client.get(&latest).send().await.unwrap().status(),
        StatusCode::OK
    );
    let outsider = w
        .app
        .as_user(Method::GET, &format!("{R}/releases/v1/files/tool"), &eve);
    assert_eq!(outsider.send().await.unwrap().status(), StatusCode::OK);

    // Never code, nor the release records.
    for path in [
        format!("{R}/tree"),
        format!("{R}/file?path=a.txt"),
        format!("{R}/releases/v1"),
        format!("{R}/releases"),
    ] {
        let r = w.app.client.get(w.app.url(&path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path}");
        let r = w
            .app
            .as_user(Method::GET, &path, &eve)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let clone = w.git.run(
        w.git.home.path(),
        &[
            "-c",
            "credential.helper=",
            "clone",
            "-q",
            &w.app.url("/ann/mono/app.git"),
            "anon",
        ],
    );
    assert!(!clone.status.success(), "no anonymous clone");
    // A credential that does not work is 401, not anonymous.
    let r = w
        .app
        .client
        .get(&url)
        .bearer_auth("svc_not_a_token")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn notes_come_from_the_merges_since_the_last_published_release() {
    let w = world().await;
    let mut merged = Vec::new();
    for (branch, title) in [("fix-a", "Fix the a file"), ("feat-b", "Add b")] {
        w.git
            .ok(&w.work, &["checkout", "-q", "-B", branch, "origin/main"]);
        w.git
            .commit(&w.work, title, &[(&format!("{branch}.txt"), b"x\n")]);
        w.git.ok(&w.work, &["push", "-q", "origin", branch]);
        let r = w
            .send(
                Method::PATCH,
                &format!("/branches/{branch}"),
                Some(json!({"title": title})),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK);
        let m: Value = expect_json(
            w.send(Method::POST, &format!("/branches/{branch}/merge"), None)
                .await,
            StatusCode::OK,
        )
        .await;
        merged.push(m);
        if branch == "fix-a" {
            let r: Value = expect_json(
                w.create(json!({"tag": "v1", "generate_notes": true, "notes": "First."}))
                    .await,
                StatusCode::CREATED,
            )
            .await;
            let notes = r["notes"].as_str().unwrap();
            assert!(notes.starts_with("First.\n\n"), "{notes}");
            assert!(
                notes.contains("- Fix the a file (`fix-a`) by @ann"),
                "{notes}"
            );
        }
    }
    let to_be: Value = w
        .app
        .get_json(&w.token, &format!("{R}/release-notes?target=main"))
        .await;
    assert_eq!(to_be["previous"], "v1");
    let text = to_be["notes"].as_str().unwrap();
    assert!(text.contains("Add b"), "{text}");
    assert!(!text.contains("Fix the a file"), "{text}");
    let v1: Value = w
        .app
        .get_json(&w.token, &format!("{R}/releases/v1/notes"))
        .await;
    assert!(v1["notes"].as_str().unwrap().starts_with("First."));
    let v1: Value = w
        .app
        .get_json(&w.token, &format!("{R}/releases/v1/notes?generate=1"))
        .await;
    assert_eq!(v1["previous"], Value::Null);
    let text = v1["notes"].as_str().unwrap();
    assert!(
        text.contains("Fix the a file") && !text.contains("Add b"),
        "{text}"
    );
}

#[tokio::test]
async fn lists_summary_and_deployments() {
    let w = world().await;
    expect_json::<Value>(
        w.create(json!({"tag": "d1", "draft": true})).await,
        StatusCode::CREATED,
    )
    .await;
    expect_json::<Value>(
        w.create(json!({"tag": "v1", "target": w.first})).await,
        StatusCode::CREATED,
    )
    .await;
    expect_json::<Value>(
        w.create(json!({"tag": "d2", "draft": true})).await,
        StatusCode::CREATED,
    )
    .await;
    // Publishing d1 moves it to the top: published ones sort by publish time.
    expect_json::<Value>(
        w.send(Method::POST, "/releases/d1/publish", None).await,
        StatusCode::OK,
    )
    .await;
    let list = w.app.get_json(&w.token, &format!("{R}/releases")).await;
    let tags: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tag"].as_str().unwrap())
        .collect();
    assert_eq!(tags, ["d1", "d2", "v1"]);
    let r = w
        .send(
            Method::PATCH,
            "/releases/d2",
            Some(json!({"title": "Two", "notes": "n"})),
        )
        .await;
    let d2: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(
        (d2["title"].as_str(), d2["notes"].as_str()),
        (Some("Two"), Some("n"))
    );

    let summary = w.app.get_json(&w.token, &format!("{R}/summary")).await;
    assert_eq!(summary["repo"], "app");
    assert_eq!(summary["main"]["commit"], w.main.as_str());
    assert_eq!(summary["main"]["build_state"], "not_built");
    assert_eq!(summary["main"]["build"], Value::Null);
    assert_eq!(summary["release"]["tag"], "d1");

    // Deployments: the release at the commit is named when left out.
    let d: Value = expect_json(
        w.send(
            Method::POST,
            "/deployments",
            Some(json!({"environment": "production", "sha": w.first})),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(d["release"], "v1");
    assert_eq!(d["created_by"], "ann");
    let d: Value = expect_json(
        w.send(
            Method::POST,
            "/deployments",
            Some(json!({"environment": "staging", "release": "d1", "url": "https://staging.example"})),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(d["sha"], w.main.as_str());
    expect_error(
        w.send(
            Method::POST,
            "/deployments",
            Some(json!({"environment": "x", "release": "d2"})),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "bad_request",
    )
    .await;
    let list = w.app.get_json(&w.token, &format!("{R}/deployments")).await;
    let envs: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["environment"].as_str().unwrap())
        .collect();
    assert_eq!(envs, ["staging", "production"]);
}
