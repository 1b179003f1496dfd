//! `svc repo list`.

use svc_protocol::monorepo::RepoList;

use crate::client::{Session, split_full_name};
use crate::commands::{Global, Listing, print_list};
use crate::error::Result;

/// List a monorepo's repos
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>
    pub monorepo: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (owner, name) = split_full_name(&args.monorepo)?;
    let session = Session::open(global.server.as_deref())?;
    let list: RepoList = session.get(&format!("/v1/monorepos/{owner}/{name}/repos"))?;
    print_list(global, &list, || match list.items.is_empty() {
        true => Listing::empty(format!(
            "No repos in {owner}/{name} yet (svc repo create {owner}/{name} <path>)"
        )),
        false => Listing::of(super::table(&list.items)),
    })
}
