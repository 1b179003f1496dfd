//! `svc admin user enable`.

use reqwest::Method;
use svc_protocol::admin::AdminUser;

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;

/// Let a disabled account sign in again
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The person's login
    pub login: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let path = super::path(&args.login, "/enable");
    let user: AdminUser = session.call(session.request(Method::POST, &path)?)?;
    print(global, &user, || {
        format!("Enabled {}: they may sign in again", user.login)
    })
}
