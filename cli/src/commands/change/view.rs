//! `svc change view`.

use svc_protocol::branch::Change;

use crate::commands::branch::{ahead_behind, mergeable, short};
use crate::commands::{Global, checks, print};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs, encode};
use crate::workdir;

/// Show a change: its branch in each repo, with state, head, mergeability and checks
///
/// A change is the branches of one name in the repos of a monorepo. One line per repo
/// that has the branch (open or merged). With --json: the change as the API answers it.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The branch name [default: the one checked out here]
    pub branch: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let name = workdir::branch_or_current(args.branch.as_deref())?;
    let path = format!("{}/changes/{}", target.path(), encode(&name));
    let change: Change = target.session.get(&path)?;
    print(global, &change, || human(&change))
}

fn human(c: &Change) -> String {
    let mut table = Table::new(&["REPO", "STATE", "HEAD", "COMMITS", "MERGEABLE", "CHECKS"]);
    for b in &c.branches {
        let open = b.state == "open";
        table.row(vec![
            b.repo.clone(),
            b.state.clone(),
            short(&b.head).to_owned(),
            if open {
                ahead_behind(b)
            } else {
                "-".to_owned()
            },
            if open { mergeable(b) } else { "-".to_owned() },
            checks::state(b.checks.state).to_owned(),
        ]);
    }
    format!(
        "Change {} in {} repo(s)\n{}",
        c.branch,
        c.branches.len(),
        table.render()
    )
}
