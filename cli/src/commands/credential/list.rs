//! `svc credential list`.

use svc_protocol::user::CredentialList;

use crate::client::Session;
use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::terminal::when;

/// List your credentials (never their tokens)
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let list: CredentialList = session.get("/v1/user/credentials")?;
    print_list(global, &list, || {
        let mut table = Table::new(&[
            "ID",
            "KIND",
            "NAME",
            "PERMISSIONS",
            "CREATED",
            "LAST USED",
            "EXPIRES",
        ]);
        for c in &list.items {
            table.row(vec![
                c.id.clone(),
                c.kind.as_str().to_owned(),
                c.name.clone(),
                if c.permissions.is_empty() {
                    "-".to_owned()
                } else {
                    c.permissions
                        .iter()
                        .map(|p| p.as_str())
                        .collect::<Vec<_>>()
                        .join(",")
                },
                when(c.created_at),
                c.last_used_at.map_or_else(|| "never".to_owned(), when),
                c.expires_at.map_or_else(|| "never".to_owned(), when),
            ]);
        }
        Listing::of(table)
    })
}
