//! `svc-server` as a child process of the test, for the tests that kill it: started from
//! a settings file written from the same [`Config`] an in-process server would get, and
//! with `SVC_CRASH_AT` naming the crash point (server/src/crash.rs) it should die at.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use svc_server::config::Config;

use crate::{KillOnDrop, workspace_bin};

/// Writes `config` as the server's TOML settings file in `dir`; `agents` is `[agents]`
/// as [`crate::TestAppBuilder::agents`] took it. Answers the file's path.
pub(crate) fn write_settings(dir: &Path, config: &Config, agents: &str) -> PathBuf {
    let agents: toml::Table = toml::from_str(agents).expect("[agents] settings");
    let rates = &config.rate_limits;
    let connections = &config.connections;
    let mut file = json!({
        "listen": config.listen.to_string(),
        "base_url": config.base_url.as_str(),
        "data_dir": config.data_dir,
        "database_url": config.database_url,
        "log_format": "json",
        "event_stream": config.event_stream,
        "login": {
            "device_expires_in": config.login.device_expires_in,
            "device_interval": config.login.device_interval,
        },
        "hooks": {
            "allowed_hosts": config.hooks.allowed_hosts,
            "retry_delays": config.hooks.retry_delays,
        },
        "agents": agents,
        "rate_limits": {
            "sign_in_per_minute": rates.sign_in_per_minute,
            "device_poll_per_minute": rates.device_poll_per_minute,
            "writes_per_minute": rates.writes_per_minute,
            "forwarded_for": rates.forwarded_for,
        },
        "signup": { "open": config.signup.open },
        "git": { "max_push_bytes": config.git.max_push_bytes },
        "facts": { "list_budget_ms": config.facts.list_budget_ms },
        "merge_queue": { "timeout_secs": config.merge_queue.timeout_secs },
        "connections": {
            "header_timeout_secs": connections.header_timeout_secs,
            "body_idle_secs": connections.body_idle_secs,
            "per_address": connections.per_address,
        },
    });
    let extra = [
        (
            "bootstrap_secret",
            config.bootstrap_secret.clone().map(Value::from),
        ),
        (
            "status_secret",
            config.status_secret.clone().map(Value::from),
        ),
        (
            "oidc",
            config.oidc.as_ref().map(|o| {
                json!({"issuer": o.issuer.as_str(), "client_id": o.client_id,
                    "client_secret": o.client_secret})
            }),
        ),
        (
            "ci",
            config.buildkite.as_ref().map(|b| {
                let mut buildkite = json!({"api_url": b.api_url.as_str()});
                if let Some(token) = &b.token {
                    buildkite["token"] = token.as_str().into();
                }
                json!({ "buildkite": buildkite })
            }),
        ),
    ];
    for (key, value) in extra {
        if let Some(value) = value {
            file[key] = value;
        }
    }
    let path = dir.join("svc-server.toml");
    std::fs::write(&path, toml::to_string(&file).expect("settings as TOML")).expect("settings");
    path
}

/// Where a server run as a child process logs: beside its settings file.
pub(crate) fn log_file(settings_file: &Path) -> PathBuf {
    settings_file.with_file_name("svc-server.log")
}

/// Starts `svc-server --config file`, armed to die at `crash_at` when given; its log
/// (standard error) is appended to [`log_file`].
pub(crate) fn spawn(file: &Path, crash_at: Option<&str>) -> KillOnDrop {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_file(file))
        .expect("server log file");
    let mut cmd = Command::new(workspace_bin("svc-server"));
    cmd.arg("--config")
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    for (key, _) in std::env::vars() {
        if key.starts_with("SVC_") {
            cmd.env_remove(key);
        }
    }
    if let Some(point) = crash_at {
        cmd.env("SVC_CRASH_AT", point);
    }
    KillOnDrop(cmd.spawn().expect("svc-server starts"))
}

/// Stops the server with SIGTERM, as a service manager does, and waits for it.
pub(crate) fn stop(child: &mut KillOnDrop) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status();
    let _ = child.0.wait();
}

/// Waits for the server to die at its crash point; panics unless SIGKILL ended it.
pub(crate) async fn killed(child: &mut KillOnDrop, point: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.0.try_wait().expect("wait") {
            assert_eq!(
                status.signal(),
                Some(9),
                "svc-server ended with {status}, not SIGKILL at {point}"
            );
            return;
        }
        assert!(
            Instant::now() < deadline,
            "svc-server never reached {point}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
