//! `svc branch edit`.

use reqwest::Method;
use svc_protocol::branch::{Branch, UpdateBranch};

use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs};
use crate::workdir;

/// Set a branch's title or description, which become its merge commit's message
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch [default: the one checked out here]
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: Option<String>,
    /// The new title; "" clears it
    #[arg(long)]
    pub title: Option<String>,
    /// The new description; "" clears it
    #[arg(long)]
    pub description: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    if args.title.is_none() && args.description.is_none() {
        return Err(CommandError::user("nothing to change").hint("pass --title or --description"));
    }
    let target = target::resolve(global, &args.repo)?;
    let name = workdir::branch_or_current(args.branch.as_deref())?;
    let set = |v: &Option<String>| v.clone().map(|v| Some(v).filter(|v| !v.is_empty()));
    let body = UpdateBranch {
        title: set(&args.title),
        description: set(&args.description),
    };
    let request = target
        .session
        .request(Method::PATCH, &target.branch_path(&name))?
        .json(&body);
    let branch: Branch = target.session.call(request)?;
    print(global, &branch, || {
        format!(
            "Updated {}: {}",
            branch.name,
            branch.title.as_deref().unwrap_or("(no title)")
        )
    })
}
