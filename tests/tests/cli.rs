//! The `svc` CLI end to end: a sealed machine, a real server, real git.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use reqwest::Method;
use serde_json::{Value, json};
use svc_tests::git::{Git, all_output};
use svc_tests::machine::Machine;
use svc_tests::{TestApp, expect_json};

/// Logs `machine` in through the device flow, approving the code with `approver`.
async fn login(app: &TestApp, machine: &Machine, approver: &str, name: &str) -> String {
    let mut child = machine
        .svc(&[
            "login",
            "--server",
            &app.base,
            "--no-browser",
            "--machine",
            name,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let code = first.rsplit(' ').next().unwrap().to_owned();
    assert!(
        first.starts_with("First copy your one-time code: ") && code.len() == 9,
        "{first}"
    );
    let r = app
        .as_user(Method::POST, "/v1/login/device/approve", approver)
        .json(&json!({"user_code": code, "approve": true}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{rest:?}");
    rest.join("\n")
}

#[tokio::test]
async fn login_status_token_git_and_logout() {
    let app = TestApp::builder().device_flow(900, 1).start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    let m = Machine::new();
    let said = login(&app, &m, &ann, "laptop").await;
    assert!(
        said.contains(&format!("Logged in to {} as ann", app.base)),
        "{said}"
    );

    // Headless: the credential is in a 0600 file.
    let file = m.config_dir().join("credentials.toml");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let status = m.ok(&["auth", "status"]);
    assert!(
        status.contains("as ann")
            && status.contains("Credential: laptop")
            && status.contains("credentials.toml"),
        "{status}"
    );
    let token = m.ok(&["auth", "token"]).trim().to_owned();
    assert!(token.starts_with("svc_"));

    // git uses the helper: a clone and fetch with no token anywhere in a URL.
    app.monorepo(&ann, json!({"name": "tool", "kind": "repo"}))
        .await;
    let url = app.url("/ann/tool.git");
    let seed = Git::new(&ann);
    seed.ok(seed.home.path(), &["clone", "-q", &url, "w"]);
    seed.commit(&seed.path("w"), "c", &[("a", b"a")]);
    seed.ok(&seed.path("w"), &["push", "-q", "origin", "main"]);
    m.ok(&["auth", "setup-git"]);
    m.git(m.home.path(), &["clone", "-q", &url, "tool"]);
    m.git(&m.home.path().join("tool"), &["fetch", "-q", "origin"]);
    let config = std::fs::read_to_string(m.home.path().join("tool/.git/config")).unwrap();
    assert!(!config.contains("svc_"), "no token in any URL: {config}");

    // The helper answers only for servers it holds a credential for; store/erase are no-ops.
    let mut get = m
        .svc(&["git-credential", "get"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    get.stdin
        .take()
        .unwrap()
        .write_all(b"protocol=https\nhost=elsewhere.example\n\n")
        .unwrap();
    assert!(get.wait_with_output().unwrap().stdout.is_empty());
    let mut erase = m
        .svc(&["git-credential", "erase"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let host = app.base.trim_start_matches("http://");
    erase
        .stdin
        .take()
        .unwrap()
        .write_all(format!("protocol=http\nhost={host}\n\n").as_bytes())
        .unwrap();
    assert!(erase.wait().unwrap().success());
    assert_eq!(
        m.ok(&["auth", "token"]).trim(),
        token,
        "erase does not log out"
    );

    // Logout revokes on the server, then forgets.
    m.ok(&["logout"]);
    let r = app
        .as_user(Method::GET, "/v1/user", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::UNAUTHORIZED);
    let out = m.run(&["auth", "token", "--server", &app.base]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run svc login"));
}

#[tokio::test]
async fn svc_token_commands_and_json() {
    let app = TestApp::start().await;
    let bea = app
        .bootstrap(json!({"email": "bea@example.com"}))
        .await
        .credential
        .token;
    let m = Machine::new();
    let with_token = |args: &[&str]| {
        let out = m
            .svc(args)
            .env("SVC_TOKEN", &bea)
            .env("SVC_SERVER", &app.base)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", all_output(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(with_token(&["monorepo", "create", "mono"]).contains("Created bea/mono"));
    with_token(&["repo", "create", "bea/mono", "services/api"]);
    let list: Value =
        serde_json::from_str(&with_token(&["repo", "list", "bea/mono", "--json"])).unwrap();
    assert_eq!(list["items"][0]["name"], "services-api");
    let monos: Value = serde_json::from_str(&with_token(&["monorepo", "list", "--json"])).unwrap();
    assert_eq!(monos["items"][0]["full_name"], "bea/mono");
    assert!(with_token(&["monorepo", "view", "bea/mono"]).contains("services/api"));
    assert!(with_token(&["monorepo", "rename", "bea/mono", "mono2"]).contains("bea/mono2"));
    let made: Value = serde_json::from_str(&with_token(&[
        "credential",
        "create",
        "ci",
        "--sandbox",
        "--json",
    ]))
    .unwrap();
    assert_eq!(made["kind"], "sandbox");
    assert!(with_token(&["credential", "list"]).contains("\tsandbox\tci\t"));
    with_token(&["credential", "revoke", made["id"].as_str().unwrap()]);
    let out = m
        .svc(&["monorepo", "delete", "bea/mono2", "--confirm", "bea/other"])
        .env("SVC_TOKEN", &bea)
        .env("SVC_SERVER", &app.base)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    with_token(&["monorepo", "delete", "bea/mono2", "--confirm", "bea/mono2"]);
    let r = app
        .as_user(Method::GET, "/v1/monorepos", &bea)
        .send()
        .await
        .unwrap();
    let left: Value = expect_json(r, reqwest::StatusCode::OK).await;
    assert!(left["items"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn clone_lays_out_monorepos_and_plain_repos() {
    let app = TestApp::start().await;
    let cy = app
        .bootstrap(json!({"email": "cy@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&cy, json!({"name": "mono"})).await;
    let seed = Git::new(&cy);
    for path in ["services/api", "services/api/plugins", "web"] {
        let url = app.repo(&cy, "cy/mono", path).await["clone_url"]
            .as_str()
            .unwrap()
            .to_owned();
        let dir = path.replace('/', "_");
        seed.ok(seed.home.path(), &["clone", "-q", &url, &dir]);
        seed.commit(&seed.path(&dir), "c", &[(&format!("{dir}.txt"), b"x")]);
        seed.ok(&seed.path(&dir), &["push", "-q", "origin", "main"]);
    }
    let meta_url = app.url("/cy/mono/meta.git");
    seed.ok(seed.home.path(), &["clone", "-q", &meta_url, "meta"]);
    seed.commit(
        &seed.path("meta"),
        "m",
        &[
            (".svc/svc.toml", b"[repos]\n"),
            (".svc/notes/a.md", b"notes\n"),
        ],
    );
    seed.ok(&seed.path("meta"), &["push", "-q", "origin", "main"]);

    let m = Machine::new();
    let clone = |args: &[&str]| {
        m.svc(args)
            .env("SVC_TOKEN", &cy)
            .env("SVC_SERVER", &app.base)
            .output()
            .unwrap()
    };
    let out = clone(&["clone", "cy/mono"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let root = m.home.path().join("mono");
    for (path, file) in [
        ("services/api", "services_api.txt"),
        ("services/api/plugins", "services_api_plugins.txt"),
        ("web", "web.txt"),
    ] {
        assert!(root.join(path).join(file).exists(), "{path}");
        let remote = m.git(&root.join(path), &["remote", "get-url", "origin"]);
        assert_eq!(
            remote.trim(),
            app.url(&format!("/cy/mono/{}.git", path.replace('/', "-")))
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".svc/notes/a.md")).unwrap(),
        "notes\n"
    );
    let status = m.git(&root.join("services/api"), &["status", "--porcelain"]);
    assert!(
        status.is_empty(),
        "the nested repo is not untracked noise: {status}"
    );
    let registry = std::fs::read_to_string(m.config_dir().join("clones.toml")).unwrap();
    assert!(registry.contains("cy/mono"));

    // A plain repo is cloned at DIR itself.
    app.monorepo(&cy, json!({"name": "tool", "kind": "repo"}))
        .await;
    seed.ok(
        seed.home.path(),
        &["clone", "-q", &app.url("/cy/tool.git"), "tool"],
    );
    seed.commit(&seed.path("tool"), "t", &[("t.txt", b"t")]);
    seed.ok(&seed.path("tool"), &["push", "-q", "origin", "main"]);
    let out = clone(&["clone", "cy/tool", "here"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(m.home.path().join("here/t.txt").exists());

    // Failures leave nothing half-made.
    let out = clone(&["clone", "cy/nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!m.home.path().join("nope").exists());
    let out = clone(&["clone", "cy/tool", "here"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists and is not empty"));
    let leftovers: Vec<_> = std::fs::read_dir(m.home.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("svc-clone"))
        .collect();
    assert!(leftovers.is_empty());
}

#[tokio::test]
async fn errors_are_one_clear_line() {
    let app = TestApp::start().await;
    let dee = app.bootstrap(json!({"email": "dee@example.com"})).await;
    let m = Machine::new();
    let out = m.run(&["monorepo", "list", "--server", "http://127.0.0.1:1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "not signed in is a user error: {err}"
    );
    let out = m
        .svc(&["monorepo", "list", "--server", "http://127.0.0.1:1"])
        .env("SVC_TOKEN", "svc_x")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.starts_with("svc: cannot reach http://127.0.0.1:1") && err.lines().count() == 1,
        "{err}"
    );

    // A revoked credential says to log in again.
    let token = dee.credential.token.clone();
    let r = app
        .as_user(
            Method::DELETE,
            &format!("/v1/user/credentials/{}", dee.credential.id),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let out = m
        .svc(&["monorepo", "list", "--server", &app.base])
        .env("SVC_TOKEN", &token)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("refused") && err.contains("run svc login") && err.lines().count() == 1,
        "{err}"
    );
    let out = m.run(&["monorepo", "view", "not-a-label"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn help_matches_its_snapshot() {
    let m = Machine::new();
    let help = m.ok(&["--help"]);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/svc-help.txt");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &help).unwrap();
    }
    let snapshot = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        help, snapshot,
        "svc --help changed: rerun with UPDATE_SNAPSHOTS=1 and review the diff"
    );
}
