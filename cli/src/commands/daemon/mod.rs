//! `svc daemon ...`: the per-machine daemon that follows every cloned monorepo.

pub mod install;
pub mod run;
pub mod start;
pub mod status;
pub mod stop;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

use svc_protocol::daemon::{DAEMON_PROTOCOL, Reply, Request};

use super::Global;
use crate::config::{Hosts, config_dir};
use crate::error::{CommandError, Result};

/// Run, start, stop, inspect or install the svc daemon
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Run(run::Args),
    Start(start::Args),
    Stop(stop::Args),
    Status(status::Args),
    Install(install::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Run(args) => run::run(&args),
        Command::Start(args) => start::run(&args),
        Command::Stop(args) => stop::run(&args),
        Command::Status(args) => status::run(global, &args),
        Command::Install(args) => install::run(&args),
    }
}

/// The daemon's files (lock, control socket, log): `SVC_DAEMON_DIR`, else `daemon/` in
/// the platform's data dir (kept apart from a server's files there).
pub fn data_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("SVC_DAEMON_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "svc")
        .map(|d| d.data_dir().join("daemon"))
        .ok_or_else(|| {
            CommandError::internal("no home directory for the data dir; set SVC_DAEMON_DIR")
        })
}

/// This machine's name in hellos and worktree reports: `SVC_MACHINE`, else the name of
/// the default server's credential, else the host name.
pub fn machine_name() -> Result<String> {
    if let Some(name) = std::env::var("SVC_MACHINE").ok().filter(|m| !m.is_empty()) {
        return Ok(name);
    }
    let hosts = Hosts::load(&config_dir()?)?;
    let name = hosts
        .default
        .as_ref()
        .and_then(|d| hosts.servers.get(d))
        .map(|h| h.credential_name.clone())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(super::login::host_name);
    Ok(name
        .chars()
        .take(svc_protocol::presence::MACHINE_MAX)
        .collect())
}

/// Sends one request to the running daemon; `None` when none runs.
pub fn ask(request: &Request) -> Result<Option<Reply>> {
    let socket = svc_daemon::socket_path(&data_dir()?);
    let Ok(mut stream) = UnixStream::connect(&socket) else {
        return Ok(None);
    };
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut line = serde_json::to_string(request)
        .map_err(|e| CommandError::internal("cannot encode the request").because(&e))?;
    line.push('\n');
    stream.write_all(line.as_bytes())?;
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer)?;
    let reply: Reply = serde_json::from_str(&answer).map_err(|e| {
        CommandError::internal("the daemon answered something unexpected")
            .because(&e)
            .hint("restart it: svc daemon stop; svc daemon start")
    })?;
    match reply {
        Reply::Error { message } => Err(CommandError::user(format!("the daemon says: {message}"))),
        reply => Ok(Some(reply)),
    }
}

/// Tells a running daemon that the registries changed, so it acts at once (it also
/// rescans on its own every few seconds).
pub fn nudge() {
    let _ = ask(&Request::Reload {
        protocol: DAEMON_PROTOCOL,
    });
}
