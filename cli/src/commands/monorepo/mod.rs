//! `svc monorepo ...`.

pub mod create;
pub mod delete;
pub mod list;
pub mod rename;
pub mod view;

use svc_protocol::monorepo::Monorepo;

use super::Global;
use crate::error::Result;

/// Make, list, view, rename and delete monorepos
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Create(create::Args),
    List(list::Args),
    View(view::Args),
    Rename(rename::Args),
    Delete(delete::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Create(args) => create::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Rename(args) => rename::run(global, &args),
        Command::Delete(args) => delete::run(global, &args),
    }
}

/// One line about a monorepo.
pub fn line(m: &Monorepo) -> String {
    format!(
        "{}\t{}\t{}\t{}",
        m.full_name,
        m.kind.as_str(),
        m.role.as_str(),
        m.id
    )
}
