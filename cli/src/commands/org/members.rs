//! `svc org members`.

use svc_protocol::org::OrgMemberList;

use crate::client::Session;
use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::terminal::when;

/// List an organization's people and their roles (its people only)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The org's login
    pub org: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let list: OrgMemberList = session.get(&super::path(&args.org, "/members"))?;
    print_list(global, &list, || {
        let mut table = Table::new(&["LOGIN", "NAME", "ROLE", "ADDED", "ADDED BY", "LAST ACTIVE"]);
        for m in &list.items {
            table.row(vec![
                m.login.clone(),
                m.name.clone().unwrap_or_default(),
                m.role.as_str().to_owned(),
                when(m.added_at),
                m.added_by.clone().unwrap_or_default(),
                m.last_active_at.map_or_else(|| "never".to_owned(), when),
            ]);
        }
        Listing::of(table)
    })
}
