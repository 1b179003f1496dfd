//! `svc agent chat`.

use reqwest::Method;
use svc_protocol::agent::{NewChat, Session, SessionList};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};
use crate::terminal::{ColorWhen, outln};

/// Ask the repository assistant in a new chat; or --list your chats
///
/// The assistant answers from what it reads in the monorepo (or in the repo --project
/// names); it changes nothing. The answer is the new chat's session: svc agent send <ID>
/// <MESSAGE> asks the next question in the same chat, svc agent log <ID> shows the
/// conversation. With --follow, the answer is printed as it comes, until the assistant
/// is done (with --json, the session and then each message as a JSON line). Chats are
/// their person's own: --list lists yours.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// Your question (- reads it from standard input)
    #[arg(required_unless_present = "list")]
    pub message: Option<String>,
    /// The repo the chat is about (its name) [default: the whole monorepo]
    #[arg(long, value_name = "REPO")]
    pub project: Option<String>,
    #[arg(long, value_name = "MODEL", help = super::MODEL_HELP)]
    pub model: Option<String>,
    /// Print the answer as it comes, until the assistant is done
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// When to colour (with --follow)
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// List your chats in the monorepo, newest first
    #[arg(long, conflicts_with_all = ["message", "project", "model", "follow"])]
    pub list: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let message = args
        .message
        .as_deref()
        .map(|m| super::text(m, "message"))
        .transpose()?;
    let target = target::monorepo(global, &args.monorepo)?;
    let path = format!("{}/chats", target.path());
    let Some(message) = message else {
        let list: SessionList = target.session.get(&path)?;
        return print(global, &list, || match list.items.is_empty() {
            true => format!("You have no chats in {}", target.label()),
            false => super::table(&list.items).render(),
        });
    };
    let body = NewChat {
        message,
        repo: args.project.clone(),
        model: args.model.clone(),
    };
    let session: Session = target
        .session
        .call(target.session.request(Method::POST, &path)?.json(&body))?;
    if !args.follow {
        return print(global, &session, || {
            format!(
                "Started chat {}\n{}\nsvc agent send -R {} {} <MESSAGE> asks the next question",
                super::headline(&session),
                super::follow_hint(&target, &session),
                target.label(),
                session.id
            )
        });
    }
    if global.json {
        super::log::json_line(&session)?;
    } else {
        outln!("Started chat {}\n", super::headline(&session))?;
    }
    let mut printer = super::log::Printer::new(global.json, args.color.enabled(), 0);
    super::log::follow(&target, &session.id, &mut printer)
}
