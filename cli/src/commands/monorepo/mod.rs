//! `svc monorepo ...`.

pub mod create;
pub mod delete;
pub mod list;
pub mod rename;
pub mod transfer;
pub mod view;

use svc_protocol::monorepo::Monorepo;

use super::Global;
use crate::error::Result;
use crate::table::Table;
use crate::terminal::when;

/// Make, list, view, rename, transfer and delete monorepos
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Create(create::Args),
    List(list::Args),
    View(view::Args),
    Rename(rename::Args),
    Transfer(transfer::Args),
    Delete(delete::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Create(args) => create::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Rename(args) => rename::run(global, &args),
        Command::Transfer(args) => transfer::run(global, &args),
        Command::Delete(args) => delete::run(global, &args),
    }
}

/// The monorepos, one a row, with the caller's role in each.
pub fn table(monorepos: &[Monorepo]) -> Table {
    let mut table = Table::new(&["MONOREPO", "KIND", "ROLE", "CREATED", "ID"]);
    for m in monorepos {
        table.row(vec![
            m.full_name.clone(),
            m.kind.as_str().to_owned(),
            m.role.as_str().to_owned(),
            when(m.created_at),
            m.id.clone(),
        ]);
    }
    table
}
