//! `svc logout`.

use reqwest::Method;

use super::Global;
use crate::client::Session;
use crate::config::Hosts;
use crate::credstore;
use crate::error::{CommandError, Result};
use crate::terminal::{errln, outln};

/// Revoke this machine's credential on the server, then forget it
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let mut hosts = Hosts::load(&session.config_dir)?;
    let Some(host) = hosts.servers.get(&session.server).cloned() else {
        return Err(CommandError::user(format!(
            "not logged in to {}",
            session.server
        )));
    };
    // A token given with `login --with-token` is not known by id: it is only forgotten.
    if !host.credential_id.is_empty() {
        let revoke = session.request(
            Method::DELETE,
            &format!("/v1/user/credentials/{}", host.credential_id),
        )?;
        match session.send(revoke) {
            Ok(_) => {}
            // Already revoked elsewhere: forgetting it is all that is left to do.
            Err(e) if e.kind == crate::error::Kind::User => {
                errln!(
                    "svc: the server no longer knew this credential ({})",
                    e.message
                )
            }
            Err(e) => return Err(e.hint("nothing was forgotten; try again")),
        }
    }
    credstore::forget(&session.config_dir, &session.server)?;
    hosts.servers.remove(&session.server);
    if hosts.default.as_deref() == Some(session.server.as_str()) {
        hosts.default = hosts.servers.keys().next().cloned();
    }
    hosts.save(&session.config_dir)?;
    if host.credential_id.is_empty() {
        outln!(
            "Logged out of {} (the token given with --with-token is forgotten here but not revoked: svc credential revoke does that)",
            session.server
        )?;
    } else {
        outln!(
            "Logged out of {} ({} revoked)",
            session.server,
            host.credential_name
        )?;
    }
    Ok(())
}
