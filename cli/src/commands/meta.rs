//! `svc meta ...`: the older names of meta-layer commands, still accepted.

use super::{Global, sync};
use crate::error::Result;

/// The meta layer (.svc/): `svc meta sync` is `svc sync`
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Sync(sync::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Sync(args) => sync::run(global, &args),
    }
}
