//! `svc repo list`.

use svc_protocol::monorepo::RepoList;

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// List a monorepo's repos
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>, as -R takes it [default: the monorepo of the svc clone you are in]
    #[arg(value_name = "OWNER/MONOREPO", conflicts_with = "monorepo",
          add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub named: Option<String>,
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(
        global,
        &MonorepoArgs {
            monorepo: args
                .named
                .clone()
                .or_else(|| args.monorepo.monorepo.clone()),
        },
    )?;
    let list: RepoList = target.session.get(&format!("{}/repos", target.path()))?;
    let label = target.label();
    print_list(global, &list, || match list.items.is_empty() {
        true => Listing::empty(format!(
            "No repos in {label} yet (svc repo create {label} <path>)"
        )),
        false => Listing::of(super::table(&list.items)),
    })
}
