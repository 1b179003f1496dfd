//! `svc issue ...`: a monorepo's issues.

pub mod agent;
pub mod close;
pub mod comment;
pub mod create;
pub mod edit;
pub mod link;
pub mod list;
pub mod react;
pub mod reopen;
pub mod view;

use reqwest::Method;
use svc_protocol::issue::{Issue, IssueRow, UpdateIssue};

use super::Global;
use crate::error::Result;
use crate::target::MonorepoTarget;
use crate::terminal::when;

/// List, open, view, edit, close, reopen and comment on a monorepo's issues; hand one to an agent
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    List(list::Args),
    Create(create::Args),
    View(view::Args),
    Edit(edit::Args),
    Close(close::Args),
    Reopen(reopen::Args),
    Comment(comment::Args),
    React(react::Args),
    Link(link::Args),
    Agent(agent::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::List(args) => list::run(global, &args),
        Command::Create(args) => create::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Edit(args) => edit::run(global, &args),
        Command::Close(args) => close::run(global, &args),
        Command::Reopen(args) => reopen::run(global, &args),
        Command::Comment(args) => comment::run(global, &args),
        Command::React(args) => react::run(global, &args),
        Command::Link(args) => link::run(global, &args),
        Command::Agent(args) => agent::run(global, &args),
    }
}

/// `PATCH {m}/issues/{number}` with `body`; answers the issue.
pub fn update(target: &MonorepoTarget, number: u32, body: &UpdateIssue) -> Result<Issue> {
    let path = format!("{}/issues/{number}", target.path());
    target
        .session
        .call(target.session.request(Method::PATCH, &path)?.json(body))
}

/// `#12 open: Title` with its labels, for one-line answers.
pub fn headline(row: &IssueRow) -> String {
    let mut line = format!("#{} {}: {}", row.number, row.state.as_str(), row.title);
    if !row.labels.is_empty() {
        line.push_str(&format!(" [{}]", row.labels.join(", ")));
    }
    line
}

/// `opened by bob 3 minutes ago`, with the closing when closed.
pub fn byline(row: &IssueRow) -> String {
    let mut line = format!("opened by {} {}", row.author, when(row.created_at));
    if let Some(closed) = row.closed_at {
        let reason = row
            .state_reason
            .map(|r| r.as_str().replace('_', " "))
            .unwrap_or_default();
        line.push_str(&format!("; closed {} ({reason})", when(closed)));
    }
    line
}
