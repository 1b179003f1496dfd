//! `svc member list`.

use svc_protocol::monorepo::MemberList;

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs};
use crate::terminal::when;

/// List a monorepo's people, their roles and where their access comes from
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let m = target::monorepo(global, &args.target)?;
    let list: MemberList = m.session.get(&format!("{}/members", m.path()))?;
    print_list(global, &list, || {
        let mut table = Table::new(&["LOGIN", "NAME", "ROLE", "VIA", "ADDED", "ADDED BY"]);
        for p in &list.items {
            table.row(vec![
                p.login.clone(),
                p.name.clone().unwrap_or_default(),
                p.role.as_str().to_owned(),
                p.via.clone(),
                when(p.added_at),
                p.added_by.clone().unwrap_or_default(),
            ]);
        }
        Listing::of(table)
    })
}
