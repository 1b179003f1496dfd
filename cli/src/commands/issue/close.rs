//! `svc issue close`.

use svc_protocol::issue::{IssueState, StateReason, UpdateIssue};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Close an issue, as completed unless said otherwise
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The issue's number
    pub number: u32,
    /// Close it as not planned
    #[arg(long)]
    pub not_planned: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let reason = match args.not_planned {
        true => StateReason::NotPlanned,
        false => StateReason::Completed,
    };
    let body = UpdateIssue {
        state: Some(IssueState::Closed),
        state_reason: Some(reason),
        ..UpdateIssue::default()
    };
    let issue = super::update(&target, args.number, &body)?;
    print(global, &issue, || {
        format!("Closed {}", super::headline(&issue.row))
    })
}
