//! `svc artifact delete`.

use reqwest::Method;

use super::BranchArgs;
use crate::commands::{Global, print};
use crate::error::Result;

/// Delete an artifact from a branch: every version, its files and its comment threads
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub on: BranchArgs,
    /// The artifact's name, like design.md (svc artifact list shows them)
    pub name: String,
    /// Delete without asking (needed where there is no terminal to ask on)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (target, branch) = args.on.resolve(global)?;
    crate::confirm::delete(
        &format!("{} on {branch} of {}", args.name, target.label()),
        args.yes,
    )?;
    let path = super::path(&target, &branch, &args.name);
    super::send(&target, target.session.request(Method::DELETE, &path)?)?;
    let value = serde_json::json!({
        "repo": target.label(),
        "branch": branch,
        "deleted": args.name,
    });
    print(global, &value, || {
        format!(
            "Deleted {} from {branch}, with every version and comment",
            args.name
        )
    })
}
