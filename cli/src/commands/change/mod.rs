//! `svc change ...`: the branches of one name across the repos of a monorepo.

pub mod merge;
pub mod view;

use super::Global;
use crate::error::Result;

/// View and land a change: the branches of one name in several repos of a monorepo
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    View(view::Args),
    Merge(merge::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::View(args) => view::run(global, &args),
        Command::Merge(args) => merge::run(global, &args),
    }
}
