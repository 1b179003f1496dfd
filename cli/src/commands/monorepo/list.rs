//! `svc monorepo list`.

use svc_protocol::monorepo::MonorepoList;

use crate::client::Session;
use crate::commands::{Global, Listing, print_list};
use crate::error::Result;

/// List your monorepos: your own first, then by owner and name
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only this owner's
    #[arg(long)]
    pub owner: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let path = match &args.owner {
        Some(owner) => format!(
            "/v1/monorepos?owner={}",
            url::form_urlencoded::byte_serialize(owner.as_bytes()).collect::<String>()
        ),
        None => "/v1/monorepos".to_owned(),
    };
    let list: MonorepoList = session.get(&path)?;
    print_list(global, &list, || match list.items.is_empty() {
        true => Listing::empty("No monorepos yet (make one with svc monorepo create <name>)"),
        false => Listing::of(super::table(&list.items)),
    })
}
