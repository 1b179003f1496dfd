//! `svc issue reopen`.

use svc_protocol::issue::{IssueState, UpdateIssue};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Reopen a closed issue
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The issue's number
    pub number: u32,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let body = UpdateIssue {
        state: Some(IssueState::Open),
        ..UpdateIssue::default()
    };
    let issue = super::update(&target, args.number, &body)?;
    print(global, &issue, || {
        format!("Reopened {}", super::headline(&issue.row))
    })
}
