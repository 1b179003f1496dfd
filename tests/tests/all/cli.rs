//! The `svc` CLI end to end: a sealed machine, a real server, real git.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use reqwest::Method;
use serde_json::{Value, json};
use svc_tests::git::{Git, all_output};
use svc_tests::machine::Machine;
use svc_tests::{TestApp, expect_json, snapshot};

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

/// An RFC 3339 time of the API as the CLI prints it off a terminal: UTC, to the second.
fn to_second(t: &Value) -> String {
    let t = t.as_str().unwrap();
    assert!(t.ends_with('Z'), "{t}");
    format!("{}Z", &t[..19])
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

    // Lists have a header and aligned columns; times are RFC 3339 when not on a terminal.
    let (id, created) = (
        &monos["items"][0]["id"],
        to_second(&monos["items"][0]["created_at"]),
    );
    assert_eq!(
        with_token(&["monorepo", "list"]),
        format!(
            "MONOREPO  KIND      ROLE   CREATED               ID\n\
             bea/mono  monorepo  owner  {created}  {}\n",
            id.as_str().unwrap()
        )
    );
    let url = list["items"][0]["clone_url"].as_str().unwrap();
    let repos = format!(
        "PATH          NAME          CLONE URL\n\
         services/api  services-api  {url}\n"
    );
    assert_eq!(with_token(&["repo", "list", "bea/mono"]), repos);
    assert_eq!(
        with_token(&["monorepo", "view", "bea/mono"]),
        format!("bea/mono (monorepo; you are owner; created {created})\n\n{repos}")
    );
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
    let credentials = with_token(&["credential", "list"]);
    let mut lines = credentials.lines();
    assert_eq!(
        lines.next().unwrap().split_whitespace().collect::<Vec<_>>(),
        [
            "ID",
            "KIND",
            "NAME",
            "PERMISSIONS",
            "CREATED",
            "LAST",
            "USED",
            "EXPIRES"
        ]
    );
    let ci = lines
        .find(|l| l.starts_with(made["id"].as_str().unwrap()))
        .unwrap_or_else(|| panic!("{credentials}"));
    assert_eq!(
        ci.split_whitespace().collect::<Vec<_>>(),
        [
            made["id"].as_str().unwrap(),
            "sandbox",
            "ci",
            "-",
            &to_second(&made["created_at"]),
            "never",
            "never"
        ]
    );
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
    assert!(
        !m.home.path().join("here/.svc").exists(),
        "a plain repo has no meta layer"
    );

    // A monorepo whose meta layer is still empty gets its .svc/ all the same, synced,
    // so `svc sync` and the daemon go on from it.
    app.monorepo(&cy, json!({"name": "fresh"})).await;
    let out = clone(&["clone", "cy/fresh"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let svc_dir = m.home.path().join("fresh/.svc");
    assert!(svc_dir.is_dir(), "{}", all_output(&out));
    assert!(svc_dir.join(".sync-state").is_file());

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
    let out = m.run(&["monorepo", "list", "--server", &app.base]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "not signed in is a user error: {err}"
    );
    let out = m.run(&["monorepo", "list", "--server", "http://127.0.0.1:1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(3),
        "not signed in to a server that cannot be reached says so: {err}"
    );
    let out = m
        .svc(&["monorepo", "list", "--server", "http://127.0.0.1:1"])
        .env("SVC_TOKEN", "svc_x")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.starts_with("svc: cannot reach http://127.0.0.1:1\ncaused by: ")
            && err.lines().last().is_some_and(|l| l.starts_with("hint: ")),
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
        err.lines().next().is_some_and(|l| l.contains("refused"))
            && err
                .lines()
                .skip(1)
                .eq([format!("hint: run svc login --server {}", app.base)]),
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
    snapshot::assert_text("tests/snapshots/svc-help.txt", &help);
}

/// Runs `cmd` with `input` on standard input.
fn with_stdin(mut cmd: std::process::Command, input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// A headless machine signs in with a token on stdin (checked first), or uses
/// `SVC_TOKEN` with `SVC_SERVER` without any stored sign-in.
#[tokio::test]
async fn login_with_token_and_svc_token_alone() {
    let app = TestApp::start().await;
    let eve = app
        .bootstrap(json!({"email": "eve@example.com"}))
        .await
        .credential
        .token;
    let m = Machine::new();

    let out = with_stdin(
        m.svc(&["login", "--server", &app.base, "--with-token"]),
        "svc_not_a_real_token\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("refused that token"), "{err}");
    assert!(
        !m.config_dir().join("hosts.toml").exists(),
        "nothing stored"
    );

    let out = with_stdin(
        m.svc(&["login", "--server", &app.base, "--with-token"]),
        &format!("{eve}\n"),
    );
    assert!(out.status.success(), "{}", all_output(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("Logged in to {} as eve", app.base)),
        "{said}"
    );
    // The stored sign-in is the default server from now on.
    assert!(
        m.ok(&["monorepo", "create", "web"])
            .contains("Created eve/web")
    );
    let status = m.ok(&["auth", "status"]);
    assert!(
        status.contains("as eve") && status.contains("--with-token"),
        "{status}"
    );
    assert_eq!(m.ok(&["auth", "token"]).trim(), eve);
    // Logout forgets it here; it was not known by id, so it still works elsewhere.
    assert!(m.ok(&["logout"]).contains("not revoked"));
    let out = m.run(&["auth", "token", "--server", &app.base]);
    assert_eq!(out.status.code(), Some(1));
    let r = app
        .as_user(Method::GET, "/v1/user", &eve)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);

    // A fresh machine with only SVC_TOKEN and SVC_SERVER: every command, status included.
    let fresh = Machine::new();
    let env = |args: &[&str]| {
        fresh
            .svc(args)
            .env("SVC_TOKEN", &eve)
            .env("SVC_SERVER", &app.base)
            .output()
            .unwrap()
    };
    for args in [
        &["auth", "status"][..],
        &["auth", "token"],
        &["monorepo", "list"],
        &["repo", "create", "eve/web", "api"],
        &["credential", "list"],
        &["api", "user"],
    ] {
        let out = env(args);
        assert!(out.status.success(), "{args:?}: {}", all_output(&out));
    }
    let status = String::from_utf8_lossy(&env(&["auth", "status"]).stdout).into_owned();
    assert!(
        status.contains("as eve") && status.contains("SVC_TOKEN"),
        "{status}"
    );
    let status: Value = serde_json::from_slice(&env(&["auth", "status", "--json"]).stdout).unwrap();
    assert_eq!(status["stored_in"], "the SVC_TOKEN environment variable");
    let out = env(&["clone", "eve/web"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(!fresh.config_dir().join("hosts.toml").exists());
}

/// A `--server` next to the right one says whether it cannot be reached (exit 3) or
/// whether this machine is signed in elsewhere.
#[tokio::test]
async fn a_wrong_server_says_why() {
    let app = TestApp::start().await;
    let other = TestApp::start().await;
    let fay = app
        .bootstrap(json!({"email": "fay@example.com"}))
        .await
        .credential
        .token;
    let m = Machine::new();
    let out = with_stdin(
        m.svc(&["login", "--server", &app.base, "--with-token"]),
        &fay,
    );
    assert!(out.status.success(), "{}", all_output(&out));

    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let out = m.run(&["monorepo", "list", "--server", &closed]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.starts_with(&format!("svc: cannot reach {closed}")),
        "{err}"
    );

    for args in [&["monorepo", "list"][..], &["auth", "status"]] {
        let out = m
            .svc(args)
            .args(["--server", &other.base])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(
            err.trim(),
            format!(
                "svc: not signed in to {0}\nhint: you are signed in to {1}\nhint: run svc login --server {0}",
                other.base, app.base
            )
        );
    }
}

/// With `--json`, every failure is `{"error": {code, message, hints, exit_code}}` on
/// stderr, with the same exit code as without.
#[tokio::test]
async fn json_errors_are_json() {
    let app = TestApp::start().await;
    let gus = app
        .bootstrap(json!({"email": "gus@example.com"}))
        .await
        .credential
        .token;
    let m = Machine::new();
    let run = |args: &[&str]| {
        let out = m
            .svc(args)
            .env("SVC_TOKEN", &gus)
            .env("SVC_SERVER", &app.base)
            .output()
            .unwrap();
        let err: Value = serde_json::from_slice(&out.stderr)
            .unwrap_or_else(|_| panic!("{args:?}: {}", all_output(&out)));
        assert_eq!(
            Some(i32::from(err["error"]["exit_code"].as_u64().unwrap() as u8)),
            out.status.code()
        );
        (out.status.code(), err["error"].clone())
    };
    let (code, err) = run(&["monorepo", "view", "gus/nope", "--json"]);
    assert_eq!(code, Some(1));
    assert_eq!(err["code"], "not_found");
    assert!(err["message"].as_str().unwrap().contains("not found"));
    let (code, err) = run(&["--json", "monorepo", "view", "not-a-label"]);
    assert_eq!((code, err["code"].as_str()), (Some(1), Some("user_error")));
    let (code, err) = run(&[
        "--json",
        "monorepo",
        "list",
        "--server",
        "http://127.0.0.1:1",
    ]);
    assert_eq!((code, err["code"].as_str()), (Some(3), Some("unreachable")));
    let (code, err) = run(&["--json", "monorepo", "frobnicate"]);
    assert_eq!((code, err["code"].as_str()), (Some(2), Some("usage")));
    let (code, err) = run(&["api", "monorepos/gus/nope", "--json"]);
    assert_eq!((code, err["code"].as_str()), (Some(1), Some("not_found")));
    // Help is no error, JSON or not.
    let out = m.run(&["monorepo", "--help", "--json"]);
    assert!(out.status.success() && out.stderr.is_empty());
}

/// A server that fails (5xx) is an internal error: exit 70, as documented.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_failures_exit_70() {
    let failing = axum::Router::new().fallback(|| async {
        (
            reqwest::StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(json!({"error": {"code": "internal", "message": "internal error"}})),
        )
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, failing).await });
    let m = Machine::new();
    for args in [
        &["monorepo", "list"][..],
        &["api", "user"],
        &["auth", "status"],
    ] {
        let out = m
            .svc(args)
            .env("SVC_TOKEN", "svc_x")
            .env("SVC_SERVER", &base)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(70), "{args:?}: {err}");
        assert!(err.contains("internal error"), "{err}");
    }
}

/// `svc api` as `gh api`: any route, fields, raw bodies, headers, pages, refusals.
#[tokio::test]
async fn svc_api_calls_any_route() {
    let app = TestApp::start().await;
    let hal = app
        .bootstrap(json!({"email": "hal@example.com"}))
        .await
        .credential
        .token;
    let m = Machine::new();
    let api = |args: &[&str], input: Option<&str>| {
        let mut cmd = m.svc(&[&["api"][..], args].concat());
        cmd.env("SVC_TOKEN", &hal).env("SVC_SERVER", &app.base);
        match input {
            Some(input) => with_stdin(cmd, input),
            None => cmd.output().unwrap(),
        }
    };
    let json = |args: &[&str], input: Option<&str>| -> Value {
        let out = api(args, input);
        assert!(out.status.success(), "{args:?}: {}", all_output(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    for path in ["/v1/user", "v1/user", "user", "/user"] {
        assert_eq!(json(&[path], None)["login"], "hal", "{path}");
    }
    // -f: a string field makes a POST with a JSON body.
    let made = json(&["monorepos", "-f", "name=web"], None);
    assert_eq!(made["full_name"], "hal/web");
    // -F: typed values; null clears.
    let user = json(&["-X", "PATCH", "user", "-F", "name=Hal"], None);
    assert_eq!(user["name"], "Hal");
    let user = json(&["-X", "patch", "user", "-F", "name=null"], None);
    assert_eq!(user["name"], Value::Null);
    // --input: a raw body from stdin.
    for path in ["api", "web", "docs"] {
        let repo = json(
            &["-X", "POST", "monorepos/hal/web/repos", "--input", "-"],
            Some(&format!(r#"{{"path": "{path}"}}"#)),
        );
        assert_eq!(repo["path"], path);
    }
    // -H: a header replaces the one svc would send.
    let out = api(&["user", "-H", "Authorization: Bearer svc_wrong"], None);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused"));
    // GET fields go into the query; --paginate follows next_cursor to the end.
    let seed = Git::new(&hal);
    let url = app.url("/hal/web/api.git");
    seed.ok(seed.home.path(), &["clone", "-q", &url, "api"]);
    seed.commit(&seed.path("api"), "c", &[("a", b"a")]);
    seed.ok(&seed.path("api"), &["push", "-q", "origin", "main"]);
    let branches = "monorepos/hal/web/repos/api/branches";
    for name in ["b1", "b2", "b3"] {
        json(&[branches, "-f", &format!("name={name}")], None);
    }
    let page = json(&[branches, "-X", "GET", "-F", "limit=1"], None);
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert!(page["next_cursor"].is_string(), "{page}");
    let all = json(&[&format!("{branches}?limit=1"), "--paginate"], None);
    let mut names: Vec<&str> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["b1", "b2", "b3"]);
    assert_eq!(all["next_cursor"], Value::Null);
    assert_eq!(
        all["default_branch"], "main",
        "the first page's other fields"
    );
    // A refusal: its body on stdout, one line on stderr, exit 1.
    let out = api(&["-X", "DELETE", "monorepos/hal/web"], None);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(body["error"]["code"].is_string(), "{body}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("svc: ") && err.contains("(HTTP 4"), "{err}");
    let out = api(&["user", "-f", "nokey"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("KEY=VALUE"));
}
