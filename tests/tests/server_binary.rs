//! The `svc-server` binary itself: flags, config file, JSON logs with request ids,
//! graceful shutdown on SIGTERM, and `user set-password`.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

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
