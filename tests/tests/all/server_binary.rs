//! The `svc-server` binary itself: flags, config file, JSON logs with request ids,
//! graceful shutdown on SIGTERM, `user set-password`, and `quickstart`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::pg::TempDatabase;
use svc_tests::{BOOTSTRAP_SECRET, KillOnDrop, client, expect_json, workspace_bin};

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn wait_healthy(base: &str, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(r) = client().get(format!("{base}/healthz")).send().await
            && r.status().is_success()
        {
            return;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("svc-server exited early: {status}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("svc-server did not become healthy");
}

fn terminate(child: &mut Child) -> std::process::ExitStatus {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "svc-server ignored SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
async fn serves_from_flags_logs_json_and_stops_on_sigterm() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let pg = TempDatabase::create_if_configured().await;
    let mut cmd = Command::new(workspace_bin("svc-server"));
    cmd.args([
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--log-format",
        "json",
    ])
    .arg("--data-dir")
    .arg(data.path())
    .env("SVC_BOOTSTRAP_SECRET", BOOTSTRAP_SECRET)
    .env_remove("SVC_CONFIG")
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    if let Some(db) = &pg {
        cmd.args(["--database-url", &db.url]);
    }
    let mut child = KillOnDrop(cmd.spawn().unwrap());
    let child = &mut child.0;
    let base = format!("http://127.0.0.1:{port}");
    wait_healthy(&base, child).await;
    let r = client()
        .post(format!("{base}/v1/users"))
        .bearer_auth(BOOTSTRAP_SECRET)
        .json(&json!({"email": "bin@example.com"}))
        .send()
        .await
        .unwrap();
    let made: Value = expect_json(r, StatusCode::CREATED).await;
    let token = made["credential"]["token"].as_str().unwrap().to_owned();

    assert!(terminate(child).success(), "graceful shutdown exits 0");
    let lines: Vec<Value> = BufReader::new(child.stderr.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).expect("every log line is JSON"))
        .collect();
    let with_id = lines.iter().filter(|l| l["span"]["id"].is_string()).count();
    assert!(with_id > 0, "request logs carry the request id: {lines:#?}");
    let all = lines.iter().map(Value::to_string).collect::<String>();
    assert!(
        !all.contains(&token) && !all.contains(BOOTSTRAP_SECRET),
        "no secret is logged"
    );
    if pg.is_none() {
        assert!(
            data.path().join("svc.db").exists(),
            "SQLite lives in the data dir by default"
        );
    }
}

#[tokio::test]
async fn reads_a_config_file_and_sets_passwords() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let pg = TempDatabase::create_if_configured().await;
    let database = pg
        .as_ref()
        .map(|db| format!("database_url = \"{}\"\n", db.url))
        .unwrap_or_default();
    let config = data.path().join("svc.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{port}\"\ndata_dir = \"{}\"\nbootstrap_secret = \"{BOOTSTRAP_SECRET}\"\n{database}",
            data.path().join("d").display()
        ),
    )
    .unwrap();
    let server = || {
        let mut cmd = Command::new(workspace_bin("svc-server"));
        cmd.arg("--config")
            .arg(&config)
            .env_remove("SVC_BOOTSTRAP_SECRET")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd
    };
    let mut child = KillOnDrop(server().spawn().unwrap());
    let child = &mut child.0;
    let base = format!("http://127.0.0.1:{port}");
    wait_healthy(&base, child).await;
    let r = client()
        .post(format!("{base}/v1/users"))
        .bearer_auth(BOOTSTRAP_SECRET)
        .json(&json!({"login": "ops", "email": "ops@example.com"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);

    let mut set = server()
        .args(["user", "set-password", "OPS"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    set.stdin
        .take()
        .unwrap()
        .write_all(b"a long password\n")
        .unwrap();
    assert!(set.wait().unwrap().success());
    let mut unknown = server()
        .args(["user", "set-password", "ghost"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    drop(unknown.stdin.take());
    assert!(
        !unknown.wait().unwrap().success(),
        "an unknown login is an error"
    );

    let r = client()
        .request(Method::POST, format!("{base}/v1/login/password"))
        .header(header::ORIGIN, &base)
        .json(&json!({"login": "ops", "password": "a long password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(terminate(child).success());
}

#[test]
fn refuses_bad_settings_with_one_clear_line() {
    let out = Command::new(workspace_bin("svc-server"))
        .args(["--base-url", "ftp://x", "--data-dir", "/nonexistent-svc"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("svc-server: --base-url must be an http or https URL"),
        "{err}"
    );
    let out = Command::new(workspace_bin("svc-server"))
        .args(["--config", "/nonexistent/svc.toml"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the config file"));
}

/// The commands and working folders of processes inside `dir` but `server` (git
/// children of a server on that data dir).
fn processes_in(dir: &std::path::Path, server: u32) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if entry.file_name().to_str() == Some(&server.to_string()) {
            continue;
        }
        let pid = entry.path();
        let Ok(cmdline) = std::fs::read(pid.join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let cwd = std::fs::read_link(pid.join("cwd")).unwrap_or_default();
        if cmdline.contains(&*dir.to_string_lossy()) || cwd.starts_with(dir) {
            found.push(format!("{cmdline} (in {})", cwd.display()));
        }
    }
    found
}

/// Incompressible bytes, so a push of them is slow enough to be killed in the middle.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Where a push is when the server is killed.
#[derive(Debug, Clone, Copy)]
enum KillPoint {
    After(Duration),
    /// A git child of the server runs (receive-pack taking the pack).
    GitRuns,
    /// Git has the new ref (before or after it is recorded).
    RefLanded,
}

/// `kill -9` of the server at several points of a push: no git child outlives it,
/// nothing lands after it died, its leftover spools are removed at start, and once it is
/// back every git ref is in the API's branch list at the same commit.
#[tokio::test]
async fn a_killed_server_lands_nothing_later_and_agrees_with_git_once_back() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let pg = TempDatabase::create_if_configured().await;
    let base = format!("http://127.0.0.1:{port}");
    let start = || {
        let mut cmd = Command::new(workspace_bin("svc-server"));
        cmd.args(["--listen", &format!("127.0.0.1:{port}")])
            .arg("--data-dir")
            .arg(data.path())
            .env("SVC_BOOTSTRAP_SECRET", BOOTSTRAP_SECRET)
            .env_remove("SVC_CONFIG")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(db) = &pg {
            cmd.args(["--database-url", &db.url]);
        }
        KillOnDrop(cmd.spawn().unwrap())
    };
    let mut server = start();
    wait_healthy(&base, &mut server.0).await;
    let r = client()
        .post(format!("{base}/v1/users"))
        .bearer_auth(BOOTSTRAP_SECRET)
        .json(&json!({"login": "kil", "email": "kil@example.com"}))
        .send()
        .await
        .unwrap();
    let made: Value = expect_json(r, StatusCode::CREATED).await;
    let token = made["credential"]["token"].as_str().unwrap().to_owned();
    let post = |path: &str, body: Value| {
        client()
            .post(format!("{base}{path}"))
            .bearer_auth(&token)
            .json(&body)
            .send()
    };
    let r = post("/v1/monorepos", json!({"name": "mono"}))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = post("/v1/monorepos/kil/mono/repos", json!({"path": "app"}))
        .await
        .unwrap();
    let repo: Value = expect_json(r, StatusCode::CREATED).await;
    let git = svc_tests::git::Git::new(&token);
    let work = git.path("work");
    git.ok(
        git.home.path(),
        &["clone", "-q", repo["clone_url"].as_str().unwrap(), "work"],
    );
    git.commit(&work, "base", &[("a.txt", b"a\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    let bare = std::fs::read_dir(data.path().join("repos"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("refs/heads/main").exists() || p.join("packed-refs").exists())
        .expect("the repo's bare dir");
    let git_refs = || -> std::collections::BTreeMap<String, String> {
        git.ok(
            &bare,
            &[
                "for-each-ref",
                "--format=%(refname:lstrip=2) %(objectname)",
                "refs/heads",
            ],
        )
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(n, s)| (n.to_owned(), s.to_owned()))
        .collect()
    };
    let api_refs = || async {
        let r = client()
            .get(format!(
                "{base}/v1/monorepos/kil/mono/repos/app/branches?limit=100"
            ))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        let list: Value = expect_json(r, StatusCode::OK).await;
        let mut refs: std::collections::BTreeMap<String, String> = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let name = b["name"].as_str().unwrap().to_owned();
                (name, b["head"].as_str().unwrap().to_owned())
            })
            .collect();
        if let Some(main) = list["default_head"].as_str() {
            refs.insert("main".into(), main.to_owned());
        }
        refs
    };

    let points = [
        KillPoint::GitRuns,
        KillPoint::RefLanded,
        KillPoint::After(Duration::from_millis(150)),
        KillPoint::After(Duration::from_millis(700)),
    ];
    for (i, point) in points.into_iter().enumerate() {
        let branch = format!("kill-{i}");
        git.ok(&work, &["checkout", "-q", "-b", &branch, "main"]);
        git.commit(&work, &branch, &[("big.bin", &noise(i as u64, 24 << 20))]);
        let mut push = KillOnDrop(
            git.command(&work)
                .args(["push", "-q", "origin", &branch])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let began = Instant::now();
        let deadline = began + Duration::from_secs(60);
        loop {
            let reached = match point {
                KillPoint::After(d) => began.elapsed() >= d,
                KillPoint::GitRuns => !processes_in(data.path(), server.0.id()).is_empty(),
                KillPoint::RefLanded => git_refs().contains_key(&branch),
            };
            if reached || push.0.try_wait().unwrap().is_some() {
                break;
            }
            assert!(Instant::now() < deadline, "{point:?} never came");
            std::thread::sleep(Duration::from_millis(2));
        }
        let pid = server.0.id();
        server.0.kill().unwrap();
        server.0.wait().unwrap();
        let gone = Instant::now() + Duration::from_secs(2);
        while !processes_in(data.path(), pid).is_empty() {
            assert!(
                Instant::now() < gone,
                "{point:?}: git children outlived the server: {:?}",
                processes_in(data.path(), pid)
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let at_death = git_refs();
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(
            git_refs(),
            at_death,
            "{point:?}: nothing lands after the server died"
        );
        let _ = push.0.kill();
        let _ = push.0.wait();

        server = start();
        wait_healthy(&base, &mut server.0).await;
        // The new server's own spool folder (its lock held) may be there already: the
        // killed push's `git-remote-http` can still ask it something. Only what no live
        // process holds is left over.
        let tmp = data.path().join("tmp");
        let live = |name: &str| {
            let id = name.strip_suffix(".lock").unwrap_or(name);
            id.starts_with("pushes-")
                && std::fs::File::open(tmp.join(format!("{id}.lock")))
                    .is_ok_and(|f| f.try_lock().is_err())
        };
        let leftovers: Vec<String> = std::fs::read_dir(&tmp)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| !live(n))
                    .collect()
            })
            .unwrap_or_default();
        assert!(
            leftovers.is_empty(),
            "{point:?}: spools left: {leftovers:?}"
        );
        let agreed = Instant::now() + Duration::from_secs(15);
        loop {
            let (want, got) = (git_refs(), api_refs().await);
            if want == got {
                break;
            }
            assert!(
                Instant::now() < agreed,
                "{point:?}: git has {want:?}, the API {got:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        git.ok(&work, &["checkout", "-q", "main"]);
    }

    // And pushes work as before.
    git.ok(&work, &["checkout", "-q", "-b", "after", "main"]);
    let head = git.commit(&work, "after", &[("b.txt", b"b\n")]);
    git.ok(&work, &["push", "-q", "origin", "after"]);
    assert_eq!(api_refs().await.get("after"), Some(&head));
}

/// `quickstart`'s lines up to the `svc login` it suggests (the server keeps running).
fn quickstart_says(child: &mut Child, base: &str) -> Vec<String> {
    let next = format!("  svc login --server {base}");
    let mut said = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let done = line == next;
        said.push(line);
        if done {
            return said;
        }
    }
    panic!("quickstart never suggested `svc login`: {said:#?}");
}

#[tokio::test]
async fn quickstart_sets_a_password_and_says_what_to_run_next() {
    let data = tempfile::tempdir().unwrap();
    let pg = TempDatabase::create_if_configured().await;
    // The server's flags come after the command, as people type them.
    let quickstart = |email: &str, port: u16| {
        let mut cmd = Command::new(workspace_bin("svc-server"));
        cmd.args(["quickstart", "--email", email, "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--data-dir")
            .arg(data.path())
            .env_remove("SVC_CONFIG")
            .env_remove("NO_COLOR")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(db) = &pg {
            cmd.args(["--database-url", &db.url]);
        }
        cmd
    };

    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = KillOnDrop(
        quickstart("qs@example.com", port)
            .arg("--password-stdin")
            .stdin(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let child = &mut child.0;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"quick password\n")
        .unwrap();
    let said = quickstart_says(child, &base);
    assert_eq!(
        said[0],
        format!("Created user qs <qs@example.com> on {base}")
    );
    assert!(said[1].starts_with("Credential (shown once; keep it secret): svc_"));
    assert_eq!(said[2], "Browser sign-in: qs and the password you chose.");
    assert_eq!(said[3], "Next, sign this machine in:");
    wait_healthy(&base, child).await;
    let sign_in = |password: &'static str| {
        client()
            .post(format!("{base}/v1/login/password"))
            .header(header::ORIGIN, &base)
            .json(&json!({"login": "qs", "password": password}))
            .send()
    };
    assert_eq!(
        sign_in("quick password").await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(
        sign_in("wrong password").await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert!(terminate(child).success());
    let mut logs = Vec::new();
    std::io::Read::read_to_end(&mut child.stderr.take().unwrap(), &mut logs).unwrap();
    let logs = String::from_utf8(logs).unwrap();
    assert!(logs.contains("INFO"), "text logs: {logs}");
    assert!(
        !logs.contains('\u{1b}'),
        "no colour codes when stderr is not a terminal: {logs:?}"
    );

    // Without a terminal or --password-stdin, no password and no prompt: it says how.
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = KillOnDrop(
        quickstart("plain@example.com", port)
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let said = quickstart_says(&mut child.0, &base);
    assert_eq!(
        said[2],
        "No password set (standard input is not a terminal); for browser sign-in run: \
         svc-server user set-password plain"
    );
}
