//! `svc worktree list`.

use std::fmt::Write;

use crate::commands::Global;
use crate::error::Result;

/// List this machine's branch worktrees
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let registry = super::load()?;
    crate::commands::print(global, &registry.worktrees, || {
        let mut out = String::new();
        if registry.worktrees.is_empty() {
            out.push_str("No worktrees (make one with svc worktree add <repo> <branch>)");
        }
        for (id, w) in &registry.worktrees {
            let _ = writeln!(
                out,
                "{id}  {} {} {}  {}",
                w.monorepo, w.repo, w.branch, w.path
            );
        }
        out
    })
}
