//! `svc org list`.

use svc_protocol::org::OrgList;

use crate::client::Session;
use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::terminal::when;

/// List the organizations you are in, with your role in each
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let list: OrgList = session.get("/v1/user/orgs")?;
    print_list(global, &list, || {
        if list.items.is_empty() {
            return Listing::empty(
                "You are in no organization (make one with svc org create <login>)",
            );
        }
        let mut table = Table::new(&["ORG", "NAME", "ROLE", "MEMBERS", "CREATED"]);
        for org in &list.items {
            table.row(vec![
                org.login.clone(),
                org.name.clone().unwrap_or_default(),
                org.role.map(|r| r.as_str().to_owned()).unwrap_or_default(),
                org.members.map(|n| n.to_string()).unwrap_or_default(),
                when(org.created_at),
            ]);
        }
        Listing::of(table)
    })
}
