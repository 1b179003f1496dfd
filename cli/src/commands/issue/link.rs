//! `svc issue link`.

use svc_protocol::issue::{IssueLink, SetChange, UpdateIssue};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Link a branch to an issue, so that merging it closes the issue
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The issue's number
    pub number: u32,
    /// The branch, as <repo>:<branch>
    pub branch: String,
    /// Unlink it instead
    #[arg(long)]
    pub remove: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let Some((repo, branch)) = args.branch.split_once(':') else {
        return Err(crate::error::CommandError::user(format!(
            "{} is not <repo>:<branch>",
            args.branch
        )));
    };
    let link = vec![IssueLink {
        repo: repo.to_owned(),
        branch: branch.to_owned(),
    }];
    let links = match args.remove {
        true => SetChange {
            add: Vec::new(),
            remove: link,
        },
        false => SetChange {
            add: link,
            remove: Vec::new(),
        },
    };
    let body = UpdateIssue {
        links: Some(links),
        ..UpdateIssue::default()
    };
    let issue = super::update(&target, args.number, &body)?;
    print(global, &issue, || {
        let verb = if args.remove { "Unlinked" } else { "Linked" };
        format!("{verb} {} and #{}", args.branch, issue.row.number)
    })
}
