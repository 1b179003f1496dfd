//! `svc worktree list`.

use crate::commands::Global;
use crate::error::Result;
use crate::table::Table;

/// List this machine's branch worktrees
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let registry = super::load()?;
    crate::commands::print(global, &registry.worktrees, || {
        if registry.worktrees.is_empty() {
            return "No worktrees (make one with svc worktree add <repo> <branch>)".to_owned();
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
        table.render()
    })
}
