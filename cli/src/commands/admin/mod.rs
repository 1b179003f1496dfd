//! `svc admin ...`: the server's people, for its site admins.

pub mod user;

use super::Global;
use crate::error::Result;

/// Manage the server's people (site admins only)
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    #[command(subcommand)]
    User(user::Command),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::User(cmd) => user::run(global, cmd),
    }
}
