//! `svc org leave`.

use reqwest::Method;
use svc_protocol::user::User;

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::encode;

/// Leave an organization; you lose its monorepos, but keep your own rows in them
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The org's login
    pub org: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let me: User = session.get("/v1/user")?;
    let path = super::path(&args.org, &format!("/members/{}", encode(&me.login)));
    session.send(session.request(Method::DELETE, &path)?)?;
    let value = serde_json::json!({"org": args.org, "left": me.login});
    print(global, &value, || {
        format!("You ({}) left {}", me.login, args.org)
    })
}
