//! `svc daemon run`: the daemon in the foreground.

use std::sync::Arc;

use svc_protocol::daemon::{MetaChanges, MetaConflict};

use crate::config::{Hosts, config_dir};
use crate::credstore;
use crate::error::{CommandError, Result};
use crate::meta_sync::Report;

/// Run the daemon in the foreground (what start and the service unit run)
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_: &Args) -> Result<()> {
    let config_dir = config_dir()?;
    let data_dir = super::data_dir()?;
    let machine = super::machine_name()?;
    svc_daemon::init_logging(&data_dir)
        .map_err(|e| CommandError::internal(e.to_string()).because(&e))?;
    let token_dir = config_dir.clone();
    let token: svc_daemon::TokenSource = Arc::new(move |server: &str| {
        if let Some(token) = std::env::var("SVC_TOKEN").ok().filter(|t| !t.is_empty()) {
            return Some(token);
        }
        let hosts = Hosts::load(&token_dir).ok()?;
        let host = hosts.servers.get(server)?;
        credstore::load(&token_dir, server, &host.store)
            .ok()
            .flatten()
    });
    let meta_sync: svc_daemon::MetaSync = Arc::new(|clone: &svc_daemon::MetaClone| {
        crate::commands::sync::sync_clone(&clone.server, &clone.monorepo, &clone.path)
            .map(changes)
            .map_err(|e| e.to_string())
    });
    svc_daemon::run(svc_daemon::Options {
        config_dir,
        data_dir,
        machine,
        token,
        meta_sync,
    })
    .map_err(|e| match e {
        svc_daemon::DaemonError::AlreadyRunning(..) => {
            CommandError::user(e.to_string()).hint("see it with svc daemon status")
        }
        // The message says the error; `because` adds what lies under it, if anything.
        e => CommandError::internal(e.to_string()).because(&e),
    })
}

fn changes(report: Report) -> MetaChanges {
    MetaChanges {
        version: report.version,
        saved: report.saved,
        downloaded: report.downloaded,
        deleted: report.deleted,
        conflicts: report
            .conflicts
            .into_iter()
            .map(|c| MetaConflict {
                path: c.path,
                copy: c.copy,
            })
            .collect(),
    }
}
