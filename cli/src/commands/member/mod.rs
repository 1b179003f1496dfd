//! `svc member ...`: a monorepo's people and its invites.

pub mod add;
pub mod invite;
pub mod invites;
pub mod list;
pub mod remove;
pub mod uninvite;

use svc_protocol::monorepo::Role;

use super::Global;
use crate::error::Result;

/// List, add, invite and remove a monorepo's people
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    List(list::Args),
    Add(add::Args),
    Remove(remove::Args),
    Invite(invite::Args),
    Invites(invites::Args),
    Uninvite(uninvite::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::List(args) => list::run(global, &args),
        Command::Add(args) => add::run(global, &args),
        Command::Remove(args) => remove::run(global, &args),
        Command::Invite(args) => invite::run(global, &args),
        Command::Invites(args) => invites::run(global, &args),
        Command::Uninvite(args) => uninvite::run(global, &args),
    }
}

/// A role in a monorepo, as `--role` takes it.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum RoleArg {
    Owner,
    Member,
}

impl From<RoleArg> for Role {
    fn from(role: RoleArg) -> Role {
        match role {
            RoleArg::Owner => Role::Owner,
            RoleArg::Member => Role::Member,
        }
    }
}
