//! `svc daemon status`.

use std::fmt::Write;

use serde::Serialize;
use svc_protocol::daemon::{Connection, DAEMON_PROTOCOL, Reply, Request, Status};

use crate::commands::Global;
use crate::error::{CommandError, Result};

/// Is the daemon running, and how is each followed monorepo doing
#[derive(Debug, clap::Args)]
pub struct Args {}

#[derive(Serialize)]
struct Report {
    running: bool,
    #[serde(flatten)]
    status: Option<Status>,
}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let status = match super::ask(&Request::Status {
        protocol: DAEMON_PROTOCOL,
    })? {
        Some(Reply::Status(status)) => Some(status),
        Some(other) => {
            return Err(CommandError::internal(format!(
                "the daemon answered {other:?}"
            )));
        }
        None => None,
    };
    let report = Report {
        running: status.is_some(),
        status,
    };
    crate::commands::print(global, &report, || human(report.status.as_ref()))
}

fn human(status: Option<&Status>) -> String {
    let Some(status) = status else {
        return "The svc daemon is not running (start it with svc daemon start)".to_owned();
    };
    let mut out = format!(
        "The svc daemon is running: pid {}, machine {}, up {}\n",
        status.pid,
        status.machine,
        uptime(status.uptime_secs)
    );
    if status.monorepos.is_empty() {
        out.push_str("No monorepo cloned on this machine yet (svc clone)\n");
    }
    for m in &status.monorepos {
        let state = match m.connection {
            Connection::Connecting => "connecting",
            Connection::Connected => "connected",
            Connection::Retrying => "reconnecting",
            Connection::Stopped => "not followed",
        };
        let _ = writeln!(out, "{}  {state}  {}", m.monorepo, m.server);
        if let Some(error) = &m.error {
            let _ = writeln!(out, "  {error}");
        }
        if let Some(moved) = &m.last_main_move {
            let short: String = moved.head.chars().take(12).collect();
            let _ = writeln!(out, "  last main move: {} to {short}", moved.repo);
        }
        for held in &m.held {
            let _ = writeln!(out, "  left alone: {} ({})", held.path, held.reason);
        }
    }
    out
}

fn uptime(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s => format!("{}h{}m", s / 3600, s % 3600 / 60),
    }
}
