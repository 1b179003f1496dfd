//! `svc repo ...`.

pub mod create;
pub mod edit;
pub mod list;
pub mod view;

use svc_protocol::monorepo::Repo;

use super::Global;
use crate::error::Result;
use crate::table::Table;

/// Make, list, view and edit the repos of a monorepo
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Create(create::Args),
    List(list::Args),
    View(view::Args),
    Edit(edit::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Create(args) => create::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Edit(args) => edit::run(global, &args),
    }
}

/// The repos, one a row: path, name (what `-R` and the API take) and clone URL.
pub fn table(repos: &[Repo]) -> Table {
    let mut table = Table::new(&["PATH", "NAME", "CLONE URL"]);
    for r in repos {
        table.row(vec![r.path.clone(), r.name.clone(), r.clone_url.clone()]);
    }
    table
}
