//! `svc org invite`.

use reqwest::Method;
use svc_protocol::monorepo::CreateInvite;
use svc_protocol::org::OrgInviteAnswer;

use super::RoleArg;
use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;

/// Invite someone to an organization by email (owners only)
///
/// Someone who has signed in with that email before is added at once; otherwise the
/// invite waits, and they join when that email first signs in.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The org's login
    pub org: String,
    /// The person's email
    pub email: String,
    /// Their role [default: member]
    #[arg(long, value_enum)]
    pub role: Option<RoleArg>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let body = CreateInvite {
        email: args.email.clone(),
        role: args.role.map(Into::into),
    };
    let answer: OrgInviteAnswer = session.call(
        session
            .request(Method::POST, &super::path(&args.org, "/invites"))?
            .json(&body),
    )?;
    print(global, &answer, || match &answer {
        OrgInviteAnswer::Added { member } => format!(
            "Added {} ({}) to {} as {} at once: that email has signed in before",
            member.login,
            args.email,
            args.org,
            member.role.as_str()
        ),
        OrgInviteAnswer::Invited { invite } => format!(
            "Invited {email} to {org} as {role}: no one has signed in with that email yet, \
             so they join when they first do\n\
             See pending invites with svc org invites {org}; withdraw this one with \
             svc org uninvite {org} {email}",
            email = invite.email,
            org = args.org,
            role = invite.role.as_str()
        ),
    })
}
