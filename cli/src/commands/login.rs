//! `svc login`: the device flow.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;
use svc_protocol::ApiErrorBody;
use svc_protocol::login::{DeviceCode, poll_error};
use svc_protocol::user::UserWithCredential;

use super::Global;
use crate::client::{http, normalize_server};
use crate::config::{Host, Hosts, config_dir};
use crate::credstore;
use crate::error::{CommandError, Result};

/// Sign this machine in with the device flow (a code you approve in a browser)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Don't open a browser; just print the URL and code
    #[arg(long)]
    pub no_browser: bool,
    /// Name of this machine's credential [default: the host name]
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let default = Hosts::load(&config_dir()?)?.default;
    let server = match global.server.as_ref().or(default.as_ref()) {
        Some(s) => normalize_server(s)?,
        None => return Err(CommandError::user("which server?").hint("run svc login --server URL")),
    };
    let machine = args.machine.clone().unwrap_or_else(host_name);
    let http = http()?;
    let unreachable = |e: reqwest::Error| {
        CommandError::network(format!("cannot reach {server} ({e})"))
            .hint("check --server, or that svc-server is running")
    };
    let start = http
        .post(format!("{server}/v1/login/device"))
        .json(&json!({"machine": machine}))
        .send()
        .map_err(unreachable)?;
    if !start.status().is_success() {
        return Err(CommandError::network(format!(
            "{server} did not start a sign-in ({})",
            start.status()
        )));
    }
    let code: DeviceCode = start
        .json()
        .map_err(|e| CommandError::network(format!("{server} answered badly: {e}")))?;
    println!("First copy your one-time code: {}", code.user_code);
    println!("Then open {} and approve it.", code.verification_uri);
    if !args.no_browser && !headless() {
        open_browser(&code.verification_uri_complete);
    }
    let spinner = std::io::stderr().is_terminal().then(|| {
        let s = indicatif::ProgressBar::new_spinner().with_message("Waiting for approval...");
        s.enable_steady_tick(Duration::from_millis(120));
        s
    });
    let deadline = Instant::now() + Duration::from_secs(code.expires_in);
    let mut interval = Duration::from_secs(code.interval.max(1));
    let signed_in = loop {
        std::thread::sleep(interval);
        if Instant::now() >= deadline {
            return Err(
                CommandError::user("the code expired before it was approved")
                    .hint("run svc login again"),
            );
        }
        let r = http
            .post(format!("{server}/v1/login/token"))
            .json(&json!({"device_code": code.device_code}))
            .send()
            .map_err(unreachable)?;
        if r.status().is_success() {
            break r
                .json::<UserWithCredential>()
                .map_err(|e| CommandError::network(format!("{server} answered badly: {e}")))?;
        }
        let status = r.status();
        let err = r
            .json::<ApiErrorBody>()
            .map(|b| b.error.code)
            .unwrap_or_default();
        match (status, err.as_str()) {
            (StatusCode::BAD_REQUEST, poll_error::AUTHORIZATION_PENDING) => {}
            (StatusCode::BAD_REQUEST, poll_error::SLOW_DOWN) => interval += Duration::from_secs(5),
            (StatusCode::BAD_REQUEST, poll_error::ACCESS_DENIED) => {
                return Err(CommandError::user("the sign-in was denied in the browser"));
            }
            (StatusCode::BAD_REQUEST, poll_error::EXPIRED_TOKEN) => {
                return Err(
                    CommandError::user("the code expired before it was approved")
                        .hint("run svc login again"),
                );
            }
            _ => {
                return Err(CommandError::network(format!(
                    "{server} answered {status} {err} while waiting"
                )));
            }
        }
    };
    if let Some(s) = spinner {
        s.finish_and_clear();
    }
    // Only now is anything written: an interrupted login leaves nothing behind.
    let dir = config_dir()?;
    let store = credstore::save(&dir, &server, &signed_in.credential.token)?;
    let mut hosts = Hosts::load(&dir)?;
    hosts.servers.insert(
        server.clone(),
        Host {
            login: signed_in.user.login.clone(),
            credential_id: signed_in.credential.id.clone(),
            credential_name: signed_in.credential.name.clone(),
            store: store.into(),
        },
    );
    hosts.default = Some(server.clone());
    hosts.save(&dir)?;
    if store == credstore::FILE {
        eprintln!(
            "No OS keyring answered; the credential is in {}.",
            credstore::describe(&dir, store)
        );
    }
    println!("Logged in to {server} as {}", signed_in.user.login);
    Ok(())
}

pub fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "machine".into())
}

/// No display to open a browser on.
fn headless() -> bool {
    cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none()
        && std::env::var_os("WAYLAND_DISPLAY").is_none()
}

fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}
