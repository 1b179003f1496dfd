//! `svc member add`.

use reqwest::Method;
use svc_protocol::monorepo::{Member, PutMember, Role};

use super::RoleArg;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs, encode};

/// Add someone to a monorepo by login, or change their role (owners only)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The person's login (to add someone by email, use svc member invite)
    pub login: String,
    /// Their role; for someone already in, their new role
    #[arg(long, value_enum, default_value = "member")]
    pub role: RoleArg,
    #[command(flatten)]
    pub target: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let m = target::monorepo(global, &args.target)?;
    let body = PutMember {
        role: args.role.into(),
    };
    let path = format!("{}/members/{}", m.path(), encode(&args.login));
    let member: Member = m
        .session
        .call(m.session.request(Method::PUT, &path)?.json(&body))?;
    print(global, &member, || {
        let role = match member.role {
            Role::Owner => "an owner",
            Role::Member => "a member",
        };
        format!("{} is now {role} of {}", member.login, m.label())
    })
}
