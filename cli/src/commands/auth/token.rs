//! `svc auth token`.

use crate::client::Session;
use crate::commands::Global;
use crate::error::Result;
use crate::terminal::outln;

/// Print this machine's credential for the server (for scripts)
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    outln!("{}", session.token()?)?;
    Ok(())
}
