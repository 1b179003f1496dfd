//! `svc credential list`.

use svc_protocol::user::CredentialList;

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;

/// List your credentials (never their tokens)
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let list: CredentialList = session.get("/v1/user/credentials")?;
    print(global, &list, || {
        list.items
            .iter()
            .map(|c| {
                let used = c
                    .last_used_at
                    .map_or_else(|| "never used".into(), |t| format!("last used {t}"));
                format!("{}\t{}\t{}\t{used}\n", c.id, c.kind.as_str(), c.name)
            })
            .collect()
    })
}
