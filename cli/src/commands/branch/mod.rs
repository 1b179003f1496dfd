//! `svc branch ...`.

pub mod checkout;
pub mod create;
pub mod delete;
pub mod diff;
pub mod edit;
pub mod list;
pub mod merge;
mod patch;
mod stat;
pub mod view;
pub mod write;

use svc_protocol::branch::{Branch, Mergeable};

use super::Global;
use crate::error::Result;

/// List, make, view, check out, diff, edit, write to, merge and delete the branches of a repo
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    List(list::Args),
    Create(create::Args),
    View(view::Args),
    Checkout(checkout::Args),
    Diff(diff::Args),
    Edit(edit::Args),
    Write(write::Args),
    Merge(merge::Args),
    Delete(delete::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::List(args) => list::run(global, &args),
        Command::Create(args) => create::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Checkout(args) => checkout::run(global, &args),
        Command::Diff(args) => diff::run(global, &args),
        Command::Edit(args) => edit::run(global, &args),
        Command::Write(args) => write::run(global, &args),
        Command::Merge(args) => merge::run(global, &args),
        Command::Delete(args) => delete::run(global, &args),
    }
}

/// The first 7 characters of a sha, as git abbreviates.
pub fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// Whether the branch merges cleanly, in words.
pub fn mergeable(b: &Branch) -> String {
    match (b.mergeable, b.last_mergeable) {
        (Mergeable::Conflicts, _) => format!("conflicts in {}", b.conflicts.join(", ")),
        (Mergeable::Pending, Some(last)) => format!("pending (was {})", last.as_str()),
        (m, _) => m.as_str().to_owned(),
    }
}

/// `ahead 1, behind 0` (commits against main), `?` before the first computation.
pub fn ahead_behind(b: &Branch) -> String {
    let n = |v: Option<u32>| v.map_or_else(|| "?".to_owned(), |v| v.to_string());
    format!("ahead {}, behind {}", n(b.ahead), n(b.behind))
}
