//! `svc org remove`.

use reqwest::Method;

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::encode;

/// Remove someone from an organization (owners only); their access to its monorepos ends
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The org's login
    pub org: String,
    /// The person's login
    pub login: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let path = super::path(&args.org, &format!("/members/{}", encode(&args.login)));
    session.send(session.request(Method::DELETE, &path)?)?;
    let value = serde_json::json!({"org": args.org, "removed": args.login});
    print(global, &value, || {
        format!("Removed {} from {}", args.login, args.org)
    })
}
