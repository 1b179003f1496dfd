//! `svc org view`.

use svc_protocol::org::Org;

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;

/// Show an organization: its name, description, your role and how many people it has
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The org's login
    pub org: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let org: Org = session.get(&super::path(&args.org, ""))?;
    print(global, &org, || super::describe(&org))
}
