//! `svc queue ...`: a repo's merge queue.

pub mod list;

use super::Global;
use crate::error::Result;

/// See a repo's merge queue: the branches waiting to land, each tested as the commit
/// main will become
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    List(list::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::List(args) => list::run(global, &args),
    }
}
