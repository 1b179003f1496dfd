//! `svc agent send`.

use reqwest::Method;
use svc_protocol::agent::{FollowUp, Session};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};
use crate::terminal::{ColorWhen, outln};

/// Tell an agent session more: a follow-up to a task, or your next message in a chat
///
/// Only the person who launched a session can send it messages. A session that is idle
/// or was stopped runs again to answer. With --follow, what the agent says from your
/// message on is printed as it says it, until its run ends (with --json, the session and
/// then each message as a JSON line).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    #[arg(help = super::ID_HELP)]
    pub id: String,
    /// The message (- reads it from standard input)
    pub message: String,
    /// Print the agent's answer as it comes, until its run ends
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// When to colour (with --follow)
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let message = super::text(&args.message, "message")?;
    let target = target::monorepo(global, &args.monorepo)?;
    // Where the answer will start: what the transcript holds before the message.
    let from = match args.follow {
        true => super::log::transcript(&target, &args.id)?
            .items
            .last()
            .map_or(0, |m| m.index + 1),
        false => 0,
    };
    let path = format!("{}/messages", super::session_path(&target, &args.id));
    let session: Session = target.session.call(
        target
            .session
            .request(Method::POST, &path)?
            .json(&FollowUp { message }),
    )?;
    if !args.follow {
        return print(global, &session, || {
            format!(
                "Sent to {}\n{}",
                super::headline(&session),
                super::follow_hint(&target, &session)
            )
        });
    }
    if global.json {
        super::log::json_line(&session)?;
    } else {
        outln!("Sent to {}\n", super::headline(&session))?;
    }
    let mut printer = super::log::Printer::new(global.json, args.color.enabled(), from);
    super::log::follow(&target, &session.id, &mut printer)
}
