//! `svc login`: the device flow, or a token given on standard input.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;
use svc_protocol::login::DeviceCode;
use svc_protocol::user::{User, UserWithCredential};
use svc_protocol::{ApiErrorBody, ErrorCode};

use super::Global;
use crate::client::{Session, http, normalize_server};
use crate::config::{Host, Hosts, config_dir};
use crate::credstore;
use crate::error::{CommandError, Result};
use crate::terminal::{errln, outln};

/// Sign this machine in with the device flow (a code you approve in a browser)
///
/// On a machine without a browser, make a credential elsewhere (svc credential create)
/// and pipe its token in: svc login --server URL --with-token < token.txt
///
/// Already signed in to that server? svc says as whom and asks before replacing that
/// sign-in; where it cannot ask (no terminal), --force replaces it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Replace this server's sign-in without asking
    #[arg(long)]
    pub force: bool,
    /// Don't open a browser; just print the URL and code
    #[arg(long)]
    pub no_browser: bool,
    /// Name of this machine's credential [default: the host name]
    #[arg(long, value_name = "NAME", conflicts_with = "with_token")]
    pub machine: Option<String>,
    /// Read a credential's token from standard input, check it and store it
    #[arg(long, conflicts_with = "no_browser")]
    pub with_token: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let default = Hosts::load(&config_dir()?)?.default;
    let server = match global.server.as_ref().or(default.as_ref()) {
        Some(s) => normalize_server(s)?,
        None => return Err(CommandError::user("which server?").hint("run svc login --server URL")),
    };
    if !args.force {
        keep_or_replace(&server)?;
    }
    if args.with_token {
        return with_token(&server);
    }
    let machine = args.machine.clone().unwrap_or_else(host_name);
    let http = http()?;
    let unreachable = |e: reqwest::Error| {
        CommandError::network(format!("cannot reach {server}"))
            .because(&e)
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
    let code: DeviceCode = start.json().map_err(|e| answered_badly(&server, &e))?;
    outln!("First copy your one-time code: {}", code.user_code)?;
    outln!("Then open {} and approve it.", code.verification_uri)?;
    if !args.no_browser && !headless() {
        let _ = open_browser(&code.verification_uri_complete);
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
                .map_err(|e| answered_badly(&server, &e))?;
        }
        let status = r.status();
        let err = r
            .json::<ApiErrorBody>()
            .ok()
            .and_then(|b| ErrorCode::parse(&b.error.code));
        match (status, err) {
            (StatusCode::BAD_REQUEST, Some(ErrorCode::AuthorizationPending)) => {}
            (StatusCode::BAD_REQUEST, Some(ErrorCode::SlowDown)) => {
                interval += Duration::from_secs(5)
            }
            (StatusCode::BAD_REQUEST, Some(ErrorCode::AccessDenied)) => {
                return Err(CommandError::user("the sign-in was denied in the browser"));
            }
            (StatusCode::BAD_REQUEST, Some(ErrorCode::ExpiredToken)) => {
                return Err(
                    CommandError::user("the code expired before it was approved")
                        .hint("run svc login again"),
                );
            }
            _ => {
                let code = err.map(ErrorCode::as_str).unwrap_or_default();
                return Err(CommandError::network(format!(
                    "{server} answered {status} {code} while waiting"
                )));
            }
        }
    };
    if let Some(s) = spinner {
        s.finish_and_clear();
    }
    // Only now is anything written: an interrupted login leaves nothing behind.
    remember(
        &server,
        &signed_in.credential.token,
        Host {
            login: signed_in.user.login.clone(),
            credential_id: signed_in.credential.id.clone(),
            credential_name: signed_in.credential.name.clone(),
            store: String::new(),
        },
    )
}

/// A second login to a server: says who is signed in there and asks before going on;
/// without a terminal to ask on, it refuses (`--force` replaces).
fn keep_or_replace(server: &str) -> Result<()> {
    let hosts = Hosts::load(&config_dir()?)?;
    let Some(host) = hosts.servers.get(server) else {
        return Ok(());
    };
    let who = format!("signed in to {server} as {}", host.login);
    if !crate::confirm::can_ask() {
        return Err(CommandError::user(format!("already {who}"))
            .hint("pass --force to replace that sign-in, or svc logout first"));
    }
    errln!("You are {who}.");
    if crate::confirm::ask("Sign in again and replace it?")? {
        return Ok(());
    }
    Err(CommandError::user(format!("still {who}; nothing changed")))
}

/// `--with-token`: the first line of standard input, checked against the server (as
/// `GET /v1/user`) before it is stored. Which credential it is cannot be asked, so
/// logout forgets it without revoking it.
fn with_token(server: &str) -> Result<()> {
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let token = line.trim();
    if token.is_empty() {
        return Err(
            CommandError::user("no token on standard input").hint(format!(
                "run: svc login --server {server} --with-token < token.txt"
            )),
        );
    }
    let session = Session::with_token(server, token)?;
    let user: User = match session.answer(session.request(Method::GET, "/v1/user")?)? {
        Ok(answer) => answer.json().map_err(|e| session.garbled(&e))?,
        Err(refusal) if refusal.status == StatusCode::UNAUTHORIZED => {
            return Err(CommandError::user(format!(
                "{server} refused that token (revoked, expired or mistyped)"
            ))
            .hint("nothing was stored")
            .code(ErrorCode::Unauthorized.as_str()));
        }
        Err(refusal) => return Err(session.refusal(refusal)),
    };
    remember(
        server,
        token,
        Host {
            login: user.login,
            credential_id: String::new(),
            credential_name: String::new(),
            store: String::new(),
        },
    )
}

/// Stores the token for `server` and makes it the default server.
fn remember(server: &str, token: &str, mut host: Host) -> Result<()> {
    let dir = config_dir()?;
    let store = credstore::save(&dir, server, token)?;
    host.store = store.into();
    let login = host.login.clone();
    let mut hosts = Hosts::load(&dir)?;
    hosts.servers.insert(server.to_owned(), host);
    hosts.default = Some(server.to_owned());
    hosts.save(&dir)?;
    if store == credstore::FILE {
        errln!(
            "No OS keyring answered; the credential is in {}.",
            credstore::describe(&dir, store)
        );
    }
    outln!("Logged in to {server} as {login}")?;
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
pub fn headless() -> bool {
    cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none()
        && std::env::var_os("WAYLAND_DISPLAY").is_none()
}

/// Starts the platform's opener on `target`, a URL or a file: `open` on macOS, `start`
/// on Windows, `xdg-open` elsewhere. It opens a browser, or the file's viewer, and most
/// often exits at once.
pub fn open_browser(target: &str) -> std::io::Result<std::process::Child> {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        // `start` is cmd's; its first quoted argument is a window title.
        let mut command = std::process::Command::new("cmd");
        command.args(["/C", "start", ""]);
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(target)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
}

/// A device-flow answer that is not what the flow promises.
fn answered_badly(server: &str, e: &reqwest::Error) -> CommandError {
    CommandError::network(format!("{server} answered badly")).because(e)
}
