//! `svc deploy ...`: the deployments of a repo, as recorded (svc never deploys).

pub mod list;
pub mod record;

use super::Global;
use crate::error::Result;

/// Record and list a repo's deployments (svc records them, it deploys nothing)
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Record(record::Args),
    List(list::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Record(args) => record::run(global, &args),
        Command::List(args) => list::run(global, &args),
    }
}
