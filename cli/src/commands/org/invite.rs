//! `svc org invite`.

use reqwest::Method;
use svc_protocol::monorepo::CreateInvite;
use svc_protocol::org::OrgInviteAnswer;
use time::OffsetDateTime;

use super::RoleArg;
use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::terminal::exact;

/// Invite someone to an organization by email (owners only)
///
/// Someone who has signed in with that email before is added at once. Otherwise the
/// invite waits for them; on a server without an identity provider it comes with a
/// one-time sign-in link where they make their account (mailed to them when the server
/// has [smtp], else printed for you to pass on).
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
        OrgInviteAnswer::Invited {
            invite,
            sign_in_link,
            link_expires_at,
            mailed,
        } => {
            let head = format!(
                "Invited {} to {} as {}",
                invite.email,
                args.org,
                invite.role.as_str()
            );
            let tail = format!(
                "See pending invites with svc org invites {org}; withdraw this one with \
                 svc org uninvite {org} {email}",
                org = args.org,
                email = invite.email
            );
            invited_text(
                &head,
                &invite.email,
                sign_in_link.as_deref(),
                *link_expires_at,
                *mailed,
                &tail,
            )
        }
    })
}

/// What an invite that waits says: the sign-in link to pass on, or that it was mailed,
/// or (on a server with an identity provider) that they join at their first sign-in.
pub fn invited_text(
    head: &str,
    email: &str,
    link: Option<&str>,
    expires: Option<OffsetDateTime>,
    mailed: bool,
    tail: &str,
) -> String {
    let until = expires.map(exact).unwrap_or_default();
    let middle = match (link, mailed) {
        (_, true) => format!(
            "The server mailed {email} a sign-in link (it works once, until {until}) where \
             they make their account and join"
        ),
        (Some(link), false) => format!(
            "No one has an account with that email yet. Send them this sign-in link (it \
             works once, until {until}) where they make their account and join:\n{link}"
        ),
        (None, false) => {
            "No one has signed in with that email yet, so they join when they first do".to_owned()
        }
    };
    format!("{head}\n{middle}\n{tail}")
}
