//! `svc agent ...`: coding agent sessions the server runs for you, and their transcripts.

pub mod chat;
pub mod launch;
pub mod list;
pub mod log;
pub mod models;
pub mod review;
pub mod send;
pub mod stop;
pub mod view;

use std::io::Read;

use svc_protocol::agent::Session;

use super::Global;
use crate::error::{CommandError, Result};
use crate::table::Table;
use crate::target::{MonorepoTarget, encode};
use crate::terminal::when;

/// Launch coding agents on branches, follow their work, talk to them, stop them
///
/// A session runs on the server as the person who launched it: a task works on a branch
/// and pushes to it, a review posts one review on a branch, a chat answers questions
/// about the monorepo. svc agent log --follow watches one as it works.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Launch(launch::Args),
    List(list::Args),
    View(view::Args),
    Log(log::Args),
    Send(send::Args),
    Stop(stop::Args),
    Review(review::Args),
    Chat(chat::Args),
    Models(models::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Launch(args) => launch::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Log(args) => log::run(global, &args),
        Command::Send(args) => send::run(global, &args),
        Command::Stop(args) => stop::run(global, &args),
        Command::Review(args) => review::run(global, &args),
        Command::Chat(args) => chat::run(global, &args),
        Command::Models(args) => models::run(global, &args),
    }
}

/// The help line of every session ID argument.
pub const ID_HELP: &str = "The session's ID (svc agent list shows them)";

/// The help line of every --model option.
pub const MODEL_HELP: &str =
    "The model to run, one of svc agent models' IDs [default: the server's default model]";

/// `{m}/agents/{id}` with the id as one path segment.
pub fn session_path(target: &MonorepoTarget, id: &str) -> String {
    format!("{}/agents/{}", target.path(), encode(id))
}

/// The argument, or standard input for `-`, without trailing whitespace; `what` names it
/// when it is empty.
pub fn text(arg: &str, what: &str) -> Result<String> {
    let text = match arg {
        "-" => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            text
        }
        text => text.to_owned(),
    };
    if text.trim().is_empty() {
        return Err(CommandError::user(format!("the {what} is empty")));
    }
    Ok(text.trim_end().to_owned())
}

/// `repo:branch`, the repo or the branch alone, or `-`.
pub fn place(session: &Session) -> String {
    match (&session.repo, &session.branch) {
        (Some(repo), Some(branch)) => format!("{repo}:{branch}"),
        (Some(only), None) | (None, Some(only)) => only.clone(),
        (None, None) => "-".to_owned(),
    }
}

/// `<id> (<kind>, <state>) on <repo:branch>`, for one-line answers.
pub fn headline(session: &Session) -> String {
    let mut line = format!(
        "{} ({}, {})",
        session.id,
        session.kind.as_str(),
        session.state.as_str()
    );
    if session.repo.is_some() || session.branch.is_some() {
        line.push_str(&format!(" on {}", place(session)));
    }
    line
}

/// What to run next to watch the session, for answers that start or wake one.
pub fn follow_hint(target: &MonorepoTarget, session: &Session) -> String {
    format!(
        "svc agent log -R {} {} --follow shows its work",
        target.label(),
        session.id
    )
}

/// The sessions, one a row, newest first as the server lists them.
pub fn table(sessions: &[Session]) -> Table {
    let mut table = Table::new(&[
        "ID", "KIND", "STATE", "REPO", "BRANCH", "LAUNCHER", "UPDATED",
    ]);
    for s in sessions {
        table.row(vec![
            s.id.clone(),
            s.kind.as_str().to_owned(),
            s.state.as_str().to_owned(),
            s.repo.clone().unwrap_or_else(|| "-".to_owned()),
            s.branch.clone().unwrap_or_else(|| "-".to_owned()),
            s.launcher.clone(),
            when(s.updated_at),
        ]);
    }
    table
}
