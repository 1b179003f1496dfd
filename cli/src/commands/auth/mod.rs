//! `svc auth ...`: this machine's sign-in.

pub mod setup_git;
pub mod status;
pub mod token;

use super::Global;
use crate::error::Result;

/// See and use this machine's sign-in
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Status(status::Args),
    Token(token::Args),
    SetupGit(setup_git::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Status(args) => status::run(global, &args),
        Command::Token(args) => token::run(global, &args),
        Command::SetupGit(args) => setup_git::run(global, &args),
    }
}
