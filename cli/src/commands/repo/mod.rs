//! `svc repo ...`.

pub mod create;
pub mod list;
pub mod view;

use svc_protocol::monorepo::Repo;

use super::Global;
use crate::error::Result;

/// Make, list and view the repos of a monorepo
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Create(create::Args),
    List(list::Args),
    View(view::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Create(args) => create::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::View(args) => view::run(global, &args),
    }
}

pub fn line(r: &Repo) -> String {
    format!("{}\t{}\t{}", r.path, r.name, r.clone_url)
}
