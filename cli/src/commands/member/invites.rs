//! `svc member invites`.

use svc_protocol::monorepo::InviteList;

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs};
use crate::terminal::when;

/// List a monorepo's pending invites (owners only; withdraw one with svc member uninvite)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let m = target::monorepo(global, &args.target)?;
    let list: InviteList = m.session.get(&format!("{}/invites", m.path()))?;
    print_list(global, &list, || {
        if list.items.is_empty() {
            return Listing::empty(format!("No pending invites to {}", m.label()));
        }
        let mut table = Table::new(&["EMAIL", "ROLE", "INVITED BY", "SENT"]);
        for i in &list.items {
            table.row(vec![
                i.email.clone(),
                i.role.as_str().to_owned(),
                i.invited_by.clone(),
                when(i.created_at),
            ]);
        }
        Listing::of(table)
    })
}
