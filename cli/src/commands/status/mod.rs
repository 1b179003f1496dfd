//! `svc status ...`.

pub mod post;

use super::Global;
use crate::error::Result;

/// Post commit statuses, the checks that gate merges
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Post(post::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Post(args) => post::run(global, &args),
    }
}
