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
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: String,
    /// Delete without asking (needed where there is no terminal to ask on)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    crate::confirm::delete(
        &format!("the branch {} of {}", args.branch, target.label()),
        args.yes,
    )?;
    let session = &target.session;
    session.send(session.request(Method::DELETE, &target.branch_path(&args.branch))?)?;
    outln!("Deleted branch {}", args.branch)?;
    Ok(())
}
