//! `svc org create`.

use reqwest::Method;
use svc_protocol::org::{CreateOrg, Org};

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;

/// Make an organization, with you as its first owner
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Its login: a namespace shared with people's logins, so monorepos are <org>/<name>
    pub login: String,
    /// Its display name
    #[arg(long)]
    pub name: Option<String>,
    /// A line about it
    #[arg(long)]
    pub description: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let body = CreateOrg {
        login: args.login.clone(),
        name: args.name.clone(),
        description: args.description.clone(),
    };
    let org: Org = session.call(session.request(Method::POST, "/v1/orgs")?.json(&body))?;
    print(global, &org, || {
        format!(
            "Created org {login}; you are its owner\n\
             Add people with svc org add {login} <login> or svc org invite {login} <email>; \
             make monorepos in it with svc monorepo create <name> --owner {login}",
            login = org.login
        )
    })
}
