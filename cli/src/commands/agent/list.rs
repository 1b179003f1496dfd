//! `svc agent list`.

use svc_protocol::agent::SessionList;

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// List the monorepo's agent sessions, newest first
///
/// Each with its kind (task, review or chat), state (launching, running, idle, stopped or
/// failed), repo and branch, the person it acts for and when it last changed. svc agent
/// chat --list lists your chats.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let list: SessionList = target.session.get(&format!("{}/agents", target.path()))?;
    print_list(global, &list, || match list.items.is_empty() {
        true => Listing::empty(format!("{} has no agent sessions", target.label())),
        false => Listing::of(super::table(&list.items)),
    })
}
