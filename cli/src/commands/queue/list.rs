//! `svc queue list`.

use svc_protocol::branch::Queue;

use crate::commands::branch::short;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, RepoArgs};

/// List a repo's merge queue: the entries in it, front first, then the latest out of it
///
/// Each entry is tested as a speculative merge commit of main, the entries ahead of it
/// and its branch (SPECULATIVE, fetchable as refs/svc/queue/<id>); main moves to exactly
/// that commit once its required checks pass. With --json: the queue as the API answers.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let queue: Queue = target.session.get(&format!("{}/queue", target.path()))?;
    print(global, &queue, || human(&queue))
}

fn human(q: &Queue) -> String {
    if q.entries.is_empty() {
        return "The merge queue is empty".to_owned();
    }
    let mut table = Table::new(&["#", "BRANCH", "STATE", "SPECULATIVE", "BY", "ID"]);
    for e in &q.entries {
        let state = match &e.reason {
            Some(reason) => format!("{} ({reason})", e.state),
            None => e.state.clone(),
        };
        table.row(vec![
            e.position.map_or_else(|| "-".to_owned(), |p| p.to_string()),
            e.branch.clone(),
            state,
            e.speculative_sha
                .as_deref()
                .map_or_else(|| "-".to_owned(), |s| short(s).to_owned()),
            e.enqueued_by.clone(),
            e.id.clone(),
        ]);
    }
    table.render()
}
