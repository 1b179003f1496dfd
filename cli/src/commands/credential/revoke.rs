//! `svc credential revoke`.

use reqwest::Method;

use crate::client::Session;
use crate::commands::Global;
use crate::error::Result;
use crate::terminal::outln;

/// Revoke a credential; it stops working at once
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The credential's id (see svc credential list)
    pub id: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    session.send(session.request(Method::DELETE, &format!("/v1/user/credentials/{}", args.id))?)?;
    outln!("Revoked {}", args.id)?;
    Ok(())
}
