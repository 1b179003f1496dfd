//! `svc daemon status`.

use std::fmt::Write;

use serde::Serialize;
use svc_protocol::daemon::{
    Connection, DAEMON_PROTOCOL, LastSync, Reply, Request, Status, SyncOutcome,
};

use crate::commands::Global;
use crate::error::{CommandError, Result};
use crate::terminal::when;

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
            let _ = writeln!(
                out,
                "  last main move: {} to {short}, {}",
                moved.repo,
                when(moved.at)
            );
        }
        for new in &m.laid_out {
            let _ = writeln!(
                out,
                "  laid out new repo {} at {}, {}",
                new.repo,
                new.path,
                when(new.at)
            );
        }
        for held in &m.held {
            let _ = writeln!(out, "  left alone: {} ({})", held.path, held.reason);
        }
        for sync in &m.syncs {
            let _ = writeln!(out, "  {}", last_sync(sync, m.paths.len() > 1));
            for c in &sync.changes.conflicts {
                let _ = match &c.copy {
                    Some(copy) => writeln!(
                        out,
                        "  conflict: .svc/{} kept the server's version, yours is .svc/{copy}",
                        c.path
                    ),
                    None => writeln!(
                        out,
                        "  conflict: .svc/{} was edited elsewhere after you deleted it",
                        c.path
                    ),
                };
            }
        }
    }
    out
}

/// `last sync 2 minutes ago: 1 saved, 2 downloaded` (naming the clone when there are
/// several).
fn last_sync(sync: &LastSync, name_clone: bool) -> String {
    let mut text = format!("last sync {}", when(sync.at));
    if name_clone {
        let _ = write!(text, " of {}", sync.path);
    }
    let c = &sync.changes;
    let what = match sync.outcome {
        SyncOutcome::Failed => format!(
            "failed: {}",
            sync.error.as_deref().unwrap_or("no reason given")
        ),
        SyncOutcome::Synced | SyncOutcome::Conflicts => {
            let mut parts: Vec<String> = [
                (c.saved.len(), "saved"),
                (c.downloaded.len(), "downloaded"),
                (c.deleted.len(), "deleted"),
                (c.conflicts.len(), "conflict"),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| match (*n, *what) {
                (1, _) => format!("1 {what}"),
                (n, "conflict") => format!("{n} conflicts"),
                (n, what) => format!("{n} {what}"),
            })
            .collect();
            if parts.is_empty() {
                parts.push("up to date".to_owned());
            }
            parts.join(", ")
        }
    };
    let checked = when(sync.checked_at);
    if checked != when(sync.at) {
        let _ = write!(text, ": {what} (checked {checked})");
        return text;
    }
    format!("{text}: {what}")
}

fn uptime(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s => format!("{}h{}m", s / 3600, s % 3600 / 60),
    }
}
