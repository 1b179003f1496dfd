//! `svc credential ...`: your credentials on the server.

pub mod create;
pub mod list;
pub mod revoke;

use super::Global;
use crate::error::Result;

/// List, make and revoke your credentials
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    List(list::Args),
    Create(create::Args),
    Revoke(revoke::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::List(args) => list::run(global, &args),
        Command::Create(args) => create::run(global, &args),
        Command::Revoke(args) => revoke::run(global, &args),
    }
}
