//! `svc org ...`: organizations, their people and their invites.

pub mod add;
pub mod create;
pub mod edit;
pub mod invite;
pub mod invites;
pub mod leave;
pub mod list;
pub mod members;
pub mod remove;
pub mod uninvite;
pub mod view;

use svc_protocol::monorepo::Role;
use svc_protocol::org::Org;

use super::Global;
use crate::error::Result;
use crate::target::encode;
use crate::terminal::when;

/// Make, view and edit organizations; add, invite and remove their people
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Create(create::Args),
    List(list::Args),
    View(view::Args),
    Edit(edit::Args),
    #[command(alias = "member")]
    Members(members::Args),
    Add(add::Args),
    Remove(remove::Args),
    Invite(invite::Args),
    Invites(invites::Args),
    Uninvite(uninvite::Args),
    Leave(leave::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Create(args) => create::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Edit(args) => edit::run(global, &args),
        Command::Members(args) => members::run(global, &args),
        Command::Add(args) => add::run(global, &args),
        Command::Remove(args) => remove::run(global, &args),
        Command::Invite(args) => invite::run(global, &args),
        Command::Invites(args) => invites::run(global, &args),
        Command::Uninvite(args) => uninvite::run(global, &args),
        Command::Leave(args) => leave::run(global, &args),
    }
}

/// A role in an org, as `--role` takes it.
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

/// The API path of `org`, or of something under it (`rest` starts with `/` or is empty).
pub fn path(org: &str, rest: &str) -> String {
    format!("/v1/orgs/{}{rest}", encode(org))
}

/// The org header for people: its login and name, its description, then the caller's
/// standing in it (an outsider sees neither role nor member count).
pub fn describe(org: &Org) -> String {
    let mut text = match &org.name {
        Some(name) => format!("{} ({name})\n", org.login),
        None => format!("{}\n", org.login),
    };
    if let Some(description) = &org.description {
        text.push_str(&format!("{description}\n"));
    }
    if let Some(picture) = &org.picture_url {
        text.push_str(&format!("Picture: {picture}\n"));
    }
    let standing = match org.role {
        Some(role) => format!("you are {}", role.as_str()),
        None => "you are not in it".to_owned(),
    };
    let members = match org.members {
        Some(1) => "; 1 member".to_owned(),
        Some(n) => format!("; {n} members"),
        None => String::new(),
    };
    text.push_str(&format!(
        "{standing}{members}; created {}\n",
        when(org.created_at)
    ));
    text
}
