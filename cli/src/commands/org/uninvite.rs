//! `svc org uninvite`.

use reqwest::Method;

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::encode;

/// Withdraw a pending invite to an organization (owners only)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The org's login
    pub org: String,
    /// The invited email (see svc org invites)
    pub email: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let path = super::path(&args.org, &format!("/invites/{}", encode(&args.email)));
    session.send(session.request(Method::DELETE, &path)?)?;
    let value = serde_json::json!({"org": args.org, "withdrawn": args.email});
    print(global, &value, || {
        format!("Withdrew the invite of {} to {}", args.email, args.org)
    })
}
