//! `svc org add`.

use reqwest::Method;
use svc_protocol::monorepo::{PutMember, Role};
use svc_protocol::org::OrgMember;

use super::RoleArg;
use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::encode;

/// Add someone to an organization by login, or change their role (owners only)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The org's login
    pub org: String,
    /// The person's login (to add someone by email, use svc org invite)
    pub login: String,
    /// Their role; for someone already in, their new role
    #[arg(long, value_enum, default_value = "member")]
    pub role: RoleArg,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let body = PutMember {
        role: args.role.into(),
    };
    let path = super::path(&args.org, &format!("/members/{}", encode(&args.login)));
    let member: OrgMember = session.call(session.request(Method::PUT, &path)?.json(&body))?;
    print(global, &member, || {
        let role = match member.role {
            Role::Owner => "an owner",
            Role::Member => "a member",
        };
        format!("{} is now {role} of {}", member.login, args.org)
    })
}
