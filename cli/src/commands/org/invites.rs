//! `svc org invites`.

use svc_protocol::monorepo::InviteList;

use crate::client::Session;
use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::terminal::when;

/// List an organization's pending invites (withdraw one with svc org uninvite)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The org's login
    pub org: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let list: InviteList = session.get(&super::path(&args.org, "/invites"))?;
    print_list(global, &list, || {
        if list.items.is_empty() {
            return Listing::empty(format!("No pending invites to {}", args.org));
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
