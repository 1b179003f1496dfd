//! `svc admin user list`.

use svc_protocol::admin::AdminUserList;

use crate::client::Session;
use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::encode;
use crate::terminal::when;

/// List every account on the server, by login
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/admin/users?limit=100&cursor={}", encode(c)),
            None => "/v1/admin/users?limit=100".to_owned(),
        };
        let page: AdminUserList = session.get(&path)?;
        items.extend(page.items);
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    let list = AdminUserList {
        items,
        next_cursor: None,
    };
    print_list(global, &list, || {
        let mut table = Table::new(&["LOGIN", "EMAIL", "NAME", "STANDING", "CREATED"]);
        for u in &list.items {
            table.row(vec![
                u.login.clone(),
                u.email.clone().unwrap_or_default(),
                u.name.clone().unwrap_or_default(),
                super::standing(u),
                when(u.created_at),
            ]);
        }
        Listing::of(table)
    })
}
