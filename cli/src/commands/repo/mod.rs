//! `svc repo ...`.

pub mod create;
pub mod edit;
pub mod import;
pub mod list;
pub mod view;

use svc_protocol::monorepo::Repo;

use super::Global;
use crate::error::Result;
use crate::table::Table;
use crate::target::RepoArgs;

/// Make, import, list, view and edit the repos of a monorepo
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Create(create::Args),
    Import(import::Args),
    List(list::Args),
    View(view::Args),
    Edit(edit::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Create(args) => create::run(global, &args),
        Command::Import(args) => import::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Edit(args) => edit::run(global, &args),
    }
}

/// Which repo `repo view` and `repo edit` are about: `<owner>/<monorepo> <repo>` as
/// positionals, or `-R <owner>/<monorepo>/<repo>` as every repo command takes it.
#[derive(Debug, Clone, clap::Args)]
pub struct Named {
    /// <owner>/<monorepo> (then the repo's name), or -R instead
    #[arg(value_name = "OWNER/MONOREPO", conflicts_with = "repo", requires = "name",
          add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub monorepo: Option<String>,
    /// The repo's name (its path with / as -)
    #[arg(value_name = "REPO")]
    pub name: Option<String>,
    #[command(flatten)]
    pub repo: RepoArgs,
}

impl Named {
    /// The repo as `-R` names it: the positionals joined, else -R (else the clone's).
    pub fn repo_args(&self) -> RepoArgs {
        match (&self.monorepo, &self.name) {
            (Some(monorepo), Some(name)) => RepoArgs {
                repo: Some(format!("{monorepo}/{name}")),
            },
            _ => self.repo.clone(),
        }
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
