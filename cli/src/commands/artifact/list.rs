//! `svc artifact list`.

use reqwest::Method;
use svc_protocol::artifact::ArtifactList;

use super::BranchArgs;
use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::terminal::when;

/// List a branch's artifacts, newest first, each with its newest version
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub on: BranchArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (target, branch) = args.on.resolve(global)?;
    let path = super::list_path(&target, &branch);
    let list: ArtifactList = super::call(&target, target.session.request(Method::GET, &path)?)?;
    print_list(global, &list, || {
        if list.items.is_empty() {
            return Listing::empty(format!("{branch} of {} has no artifacts", target.label()));
        }
        let mut table = Table::new(&["NAME", "KIND", "VERSION", "SIZE", "UPDATED", "BY"]);
        for a in &list.items {
            let newest = super::newest(a);
            table.row(vec![
                a.name.clone(),
                a.kind.as_str().to_owned(),
                newest.map_or_else(|| "-".to_owned(), |v| v.n.to_string()),
                newest.map_or_else(|| "-".to_owned(), |v| super::size(v.size)),
                when(a.updated_at),
                newest.map_or_else(|| "-".to_owned(), |v| v.created_by.clone()),
            ]);
        }
        Listing::of(table)
    })
}
