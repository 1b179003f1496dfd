//! `svc admin user disable`.

use reqwest::Method;
use svc_protocol::admin::AdminUser;

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;

/// Disable an account: its credentials and sessions end at once, and it cannot sign in
/// until enabled again
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The person's login
    pub login: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let path = super::path(&args.login, "/disable");
    let user: AdminUser = session.call(session.request(Method::POST, &path)?)?;
    print(global, &user, || {
        format!(
            "Disabled {}: their credentials and sessions have ended; enable them again with \
             svc admin user enable {}",
            user.login, user.login
        )
    })
}
