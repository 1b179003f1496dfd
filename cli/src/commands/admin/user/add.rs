//! `svc admin user add`.

use reqwest::Method;
use svc_protocol::admin::{AdminCreateUser, AdminUserCreated};

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::terminal::exact;

/// Make an account and print a one-time sign-in link (valid 7 days) where the person sets
/// a password
///
/// The email counts as verified: invites waiting for it become memberships at once.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The person's email
    pub email: String,
    /// Their login [default: derived from the email]
    #[arg(long)]
    pub login: Option<String>,
    /// Their name
    #[arg(long)]
    pub name: Option<String>,
    /// Make them a site admin too
    #[arg(long)]
    pub admin: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let body = AdminCreateUser {
        email: args.email.clone(),
        login: args.login.clone(),
        name: args.name.clone(),
        admin: args.admin,
    };
    let made: AdminUserCreated = session.call(
        session
            .request(Method::POST, "/v1/admin/users")?
            .json(&body),
    )?;
    print(global, &made, || {
        let admin = if made.admin { " (site admin)" } else { "" };
        format!(
            "Created user {}{admin} <{}>\n\
             Send them this sign-in link (it works once, until {}) to set a password:\n{}",
            made.user.login,
            made.user.email.as_deref().unwrap_or_default(),
            exact(made.link_expires_at),
            made.sign_in_link
        )
    })
}
