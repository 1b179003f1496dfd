//! `svc worktree list`.

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;

/// List this machine's branch worktrees
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let registry = super::load()?;
    print_list(global, &registry.worktrees, || {
        if registry.worktrees.is_empty() {
            return Listing::empty("No worktrees (make one with svc worktree add <repo> <branch>)");
        }
        let mut table = Table::new(&["ID", "MONOREPO", "REPO", "BRANCH", "PATH"]);
        for (id, w) in &registry.worktrees {
            table.row(vec![
                id.clone(),
                w.monorepo.clone(),
                w.repo.clone(),
                w.branch.clone(),
                w.path.clone(),
            ]);
        }
        Listing::of(table)
    })
}
