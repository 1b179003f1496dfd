//! `svc monorepo delete`.

use reqwest::Method;

use crate::client::{Session, split_full_name};
use crate::commands::Global;
use crate::error::{CommandError, Result};
use crate::terminal::outln;

/// Delete a monorepo with all its repos and records, for good
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>
    pub monorepo: String,
    /// The same <owner>/<monorepo> again, to confirm
    #[arg(long, value_name = "OWNER/MONOREPO")]
    pub confirm: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (owner, name) = split_full_name(&args.monorepo)?;
    if !args.confirm.eq_ignore_ascii_case(&args.monorepo) {
        return Err(CommandError::user(
            "--confirm must repeat the monorepo's <owner>/<name>",
        ));
    }
    let session = Session::open(global.server.as_deref())?;
    let path = format!(
        "/v1/monorepos/{owner}/{name}?confirm={}",
        args.confirm.to_ascii_lowercase()
    );
    session.send(session.request(Method::DELETE, &path)?)?;
    outln!("Deleted {}", args.monorepo)?;
    Ok(())
}
