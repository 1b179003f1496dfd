//! `svc auth status`.

use serde_json::json;
use svc_protocol::user::User;

use crate::client::Session;
use crate::commands::{Global, print};
use crate::config::Hosts;
use crate::credstore;
use crate::error::Result;

/// Show the server, your login, this machine's credential and where it is stored
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let hosts = Hosts::load(&session.config_dir)?;
    let host = hosts.servers.get(&session.server);
    let from_env = std::env::var("SVC_TOKEN").is_ok_and(|t| !t.is_empty());
    if host.is_none() && !from_env {
        return Err(session.not_signed_in());
    }
    let user: User = session.get("/v1/user")?;
    let stored = if from_env {
        "the SVC_TOKEN environment variable".to_owned()
    } else {
        host.map(|h| credstore::describe(&session.config_dir, &h.store))
            .unwrap_or_default()
    };
    // A token from SVC_TOKEN, or stored by `login --with-token`, has no name here.
    let credential = host
        .filter(|_| !from_env)
        .map(|h| h.credential_name.clone())
        .filter(|n| !n.is_empty());
    let value = json!({"server": session.server, "login": user.login, "credential": credential, "stored_in": stored});
    print(global, &value, || {
        format!(
            "Logged in to {} as {}\nCredential: {}\nStored in: {stored}",
            session.server,
            user.login,
            credential.as_deref().unwrap_or(if from_env {
                "(from SVC_TOKEN)"
            } else {
                "(a token given to svc login --with-token)"
            })
        )
    })
}
