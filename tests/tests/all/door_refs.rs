//! The door's ref advertisements and v2 `ls-refs`, answered by the server itself: byte
//! for byte what the door's git answers on the same repository, and every git client
//! command still working.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use reqwest::Method;
use serde_json::json;
use svc_tests::TestApp;
use svc_tests::git::Git;

struct Fixture {
    app: TestApp,
    token: String,
    git: Git,
    url: String,
    /// The repo's bare directory in the server's data dir.
    bare: PathBuf,
}

fn repo_dirs(app: &TestApp) -> Vec<PathBuf> {
    std::fs::read_dir(app.data_dir.path().join("repos"))
        .map(|dirs| dirs.map(|d| d.unwrap().path()).collect())
        .unwrap_or_default()
}

/// A person with monorepo `ann/mono` holding an empty repo at `services/app`.
async fn fixture() -> Fixture {
    let app = TestApp::start().await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&token, json!({"name": "mono"})).await;
    let before = repo_dirs(&app);
    let repo = app.repo(&token, "ann/mono", "services/app").await;
    let bare = repo_dirs(&app)
        .into_iter()
        .find(|d| !before.contains(d))
        .expect("the repo's directory");
    let url = repo["clone_url"].as_str().unwrap().to_owned();
    let git = Git::new(&token);
    Fixture {
        app,
        token,
        git,
        url,
        bare,
    }
}

/// The door's git, as the door runs it.
fn door_git(bare: &Path, service: &str, protocol: Option<&str>) -> Command {
    let mut cmd = Command::new("git");
    cmd.args(["-c", "core.hooksPath=/dev/null"]);
    if service == "upload-pack" {
        cmd.args([
            "-c",
            "uploadpack.allowFilter=true",
            "-c",
            "uploadpack.allowAnySHA1InWant=true",
        ]);
    } else {
        cmd.args(["-c", "receive.advertisePushOptions=true"]);
    }
    cmd.args([service, "--stateless-rpc"])
        .arg(bare)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    if let Some(p) = protocol {
        cmd.env("GIT_PROTOCOL", p);
    }
    cmd
}

fn pkt(text: &str) -> Vec<u8> {
    let mut line = format!("{:04x}", text.len() + 4).into_bytes();
    line.extend_from_slice(text.as_bytes());
    line
}

/// What git's own smart HTTP would answer to `GET info/refs?service=git-<service>`.
fn git_info_refs(bare: &Path, service: &str, protocol: Option<&str>) -> Vec<u8> {
    let out = door_git(bare, service, protocol)
        .arg("--http-backend-info-refs")
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut body = Vec::new();
    if protocol.is_none() {
        body.extend(pkt(&format!("# service=git-{service}\n")));
        body.extend_from_slice(b"0000");
    }
    body.extend(out.stdout);
    body
}

fn git_post(bare: &Path, request: &[u8]) -> Vec<u8> {
    let mut child = door_git(bare, "upload-pack", Some("version=2"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(request).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
}

fn ls_refs(args: &[&str]) -> Vec<u8> {
    let mut body = pkt("command=ls-refs\n");
    body.extend(pkt("agent=git/2.47.3\n"));
    body.extend(pkt("object-format=sha1\n"));
    body.extend_from_slice(b"0001");
    for arg in args {
        body.extend(pkt(&format!("{arg}\n")));
    }
    body.extend_from_slice(b"0000");
    body
}

impl Fixture {
    async fn get(&self, service: &str, protocol: Option<&str>) -> Vec<u8> {
        let path = self.url.strip_prefix(&self.app.url("")).unwrap();
        let mut r = self.app.as_user(
            Method::GET,
            &format!("{path}/info/refs?service=git-{service}"),
            &self.token,
        );
        if let Some(p) = protocol {
            r = r.header("Git-Protocol", p);
        }
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(
            r.headers()["content-type"],
            format!("application/x-git-{service}-advertisement").as_str()
        );
        r.bytes().await.unwrap().to_vec()
    }

    async fn post(&self, request: Vec<u8>) -> Vec<u8> {
        let path = self.url.strip_prefix(&self.app.url("")).unwrap();
        let r = self
            .app
            .as_user(
                Method::POST,
                &format!("{path}/git-upload-pack"),
                &self.token,
            )
            .header("Git-Protocol", "version=2")
            .header("content-type", "application/x-git-upload-pack-request")
            .body(request)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.bytes().await.unwrap().to_vec()
    }

    /// Every advertisement and `ls-refs` through the door against git's on the bare dir.
    async fn same_as_git(&self) {
        let show = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        for service in ["upload-pack", "receive-pack"] {
            assert_eq!(
                show(&self.get(service, None).await),
                show(&git_info_refs(&self.bare, service, None)),
                "{service}"
            );
        }
        assert_eq!(
            show(&self.get("upload-pack", Some("version=2")).await),
            show(&git_info_refs(&self.bare, "upload-pack", Some("version=2")))
        );
        for args in [
            &[][..],
            &["symrefs", "peel", "unborn"],
            &[
                "peel",
                "symrefs",
                "unborn",
                "ref-prefix HEAD",
                "ref-prefix refs/heads/",
            ],
            &["peel", "ref-prefix refs/tags/"],
        ] {
            let request = ls_refs(args);
            assert_eq!(
                show(&self.post(request.clone()).await),
                show(&git_post(&self.bare, &request)),
                "ls-refs {args:?}"
            );
        }
    }
}

#[tokio::test]
async fn the_doors_ref_answers_are_byte_for_byte_gits() {
    let f = fixture().await;
    // Empty: git's `capabilities^{}` line, and an unborn HEAD.
    f.same_as_git().await;
    let unborn = f.post(ls_refs(&["symrefs", "unborn"])).await;
    assert_eq!(
        String::from_utf8_lossy(&unborn),
        "002eunborn HEAD symref-target:refs/heads/main\n0000"
    );

    let work = f.git.path("work");
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    f.git.commit(&work, "first", &[("README.md", b"hello\n")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    f.git.ok(&work, &["tag", "light"]);
    f.git.ok(&work, &["tag", "-a", "-m", "annotated", "v1"]);
    for i in 0..150 {
        f.git.ok(&work, &["branch", &format!("b/{i:03}")]);
        f.git
            .ok(&work, &["tag", "-a", "-m", "many", &format!("t{i:03}")]);
    }
    f.git.ok(&work, &["push", "-q", "origin", "--all"]);
    f.git.ok(&work, &["push", "-q", "origin", "--tags"]);
    f.same_as_git().await;

    // Packed refs with loose ones beside and over them.
    let pack = Command::new("git")
        .args(["pack-refs", "--all"])
        .current_dir(&f.bare)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(pack.success());
    f.git.ok(&work, &["checkout", "-q", "-b", "b/007-later"]);
    f.git.commit(&work, "second", &[("b.txt", b"b\n")]);
    f.git.ok(&work, &["tag", "-a", "-m", "loose", "v2"]);
    f.git.ok(
        &work,
        &[
            "push",
            "-q",
            "-f",
            "origin",
            "HEAD:b/007",
            "HEAD:b/007-later",
            "v2",
        ],
    );
    f.same_as_git().await;
}

#[tokio::test]
async fn ls_remote_clone_fetch_and_push_work_through_the_door() {
    let f = fixture().await;
    let home = f.git.home.path();
    // An empty repo lists nothing, in both protocols.
    for version in ["0", "2"] {
        let listed = f.git.ok(
            home,
            &[
                "-c",
                &format!("protocol.version={version}"),
                "ls-remote",
                &f.url,
            ],
        );
        assert_eq!(listed, "");
    }
    let work = f.git.path("work");
    f.git.ok(home, &["clone", "-q", &f.url, "work"]);
    f.git.commit(&work, "first", &[("README.md", b"hello\n")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    f.git.ok(&work, &["tag", "-a", "-m", "annotated", "v1"]);
    f.git.ok(&work, &["checkout", "-q", "-b", "feature"]);
    f.git.commit(&work, "second", &[("a.txt", b"a\n")]);
    f.git.ok(&work, &["push", "-q", "origin", "feature", "v1"]);

    let on_disk = f.git.ok(home, &["ls-remote", f.bare.to_str().unwrap()]);
    assert!(on_disk.contains("refs/tags/v1^{}"), "{on_disk}");
    for version in ["0", "2"] {
        let listed = f.git.ok(
            home,
            &[
                "-c",
                &format!("protocol.version={version}"),
                "ls-remote",
                &f.url,
            ],
        );
        assert_eq!(listed, on_disk, "protocol {version}");
        let symref = f.git.ok(
            home,
            &[
                "-c",
                &format!("protocol.version={version}"),
                "ls-remote",
                "--symref",
                &f.url,
                "HEAD",
            ],
        );
        assert!(
            symref.starts_with("ref: refs/heads/main\tHEAD\n"),
            "{symref}"
        );
    }

    // Clone (whole and blobless), fetch and push still go through.
    for version in ["0", "2"] {
        let dest = format!("clone-v{version}");
        f.git.ok(
            home,
            &[
                "-c",
                &format!("protocol.version={version}"),
                "clone",
                "-q",
                &f.url,
                &dest,
            ],
        );
        let dest = f.git.path(&dest);
        assert_eq!(
            f.git.ok(&dest, &["rev-parse", "origin/feature"]),
            f.git.ok(&work, &["rev-parse", "feature"])
        );
        f.git.commit(
            &work,
            &format!("more {version}"),
            &[("b.txt", version.as_bytes())],
        );
        f.git.ok(&work, &["push", "-q", "origin", "feature"]);
        f.git.ok(
            &dest,
            &[
                "-c",
                &format!("protocol.version={version}"),
                "fetch",
                "-q",
                "origin",
            ],
        );
        assert_eq!(
            f.git.ok(&dest, &["rev-parse", "origin/feature"]),
            f.git.ok(&work, &["rev-parse", "feature"])
        );
    }
    f.git.ok(
        home,
        &["clone", "-q", "--filter=blob:none", &f.url, "blobless"],
    );
    let blobless = f.git.path("blobless");
    assert_eq!(
        f.git
            .ok(&blobless, &["config", "remote.origin.partialclonefilter"]),
        "blob:none\n"
    );
}
