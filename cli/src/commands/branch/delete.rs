//! `svc branch delete`.

use reqwest::Method;

use crate::commands::Global;
use crate::error::Result;
use crate::target::{self, RepoArgs};
use crate::terminal::outln;

/// Delete a branch on the server (never main)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch, named in full: deleting never defaults to the one checked out
    pub branch: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let session = &target.session;
    session.send(session.request(Method::DELETE, &target.branch_path(&args.branch))?)?;
    outln!("Deleted branch {}", args.branch)?;
    Ok(())
}
