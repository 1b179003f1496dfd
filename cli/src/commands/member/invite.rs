//! `svc member invite`.

use reqwest::Method;
use svc_protocol::monorepo::{CreateInvite, InviteAnswer};

use super::RoleArg;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Invite someone to a monorepo by email (owners only)
///
/// Someone who has signed in with that email before is added at once. Otherwise the
/// invite waits for them; on a server without an identity provider it comes with a
/// one-time sign-in link where they make their account (mailed to them when the server
/// has [smtp], else printed for you to pass on).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The person's email
    pub email: String,
    /// Their role [default: member]
    #[arg(long, value_enum)]
    pub role: Option<RoleArg>,
    #[command(flatten)]
    pub target: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let m = target::monorepo(global, &args.target)?;
    let body = CreateInvite {
        email: args.email.clone(),
        role: args.role.map(Into::into),
    };
    let answer: InviteAnswer = m.session.call(
        m.session
            .request(Method::POST, &format!("{}/invites", m.path()))?
            .json(&body),
    )?;
    let label = m.label();
    print(global, &answer, || match &answer {
        InviteAnswer::Added { member } => format!(
            "Added {} ({}) to {label} as {} at once: that email has signed in before",
            member.login,
            args.email,
            member.role.as_str()
        ),
        InviteAnswer::Invited {
            invite,
            sign_in_link,
            link_expires_at,
            mailed,
        } => {
            let head = format!(
                "Invited {} to {label} as {}",
                invite.email,
                invite.role.as_str()
            );
            let tail = format!(
                "See pending invites with svc member invites -R {label}; withdraw this one \
                 with svc member uninvite {} -R {label}",
                invite.email
            );
            crate::commands::org::invite::invited_text(
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
