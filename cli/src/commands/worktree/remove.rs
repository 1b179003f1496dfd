//! `svc worktree remove`.

use reqwest::Method;
use reqwest::StatusCode;

use super::git;
use crate::client::Session;
use crate::commands::Global;
use crate::error::{CommandError, Result};
use crate::terminal::outln;

/// Remove a worktree (by id or path) and its report on the server
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The worktree's id (wt-...) or path
    pub worktree: String,
    /// Remove it even with local changes
    #[arg(long)]
    pub force: bool,
}

pub fn run(_: &Global, args: &Args) -> Result<()> {
    let mut registry = super::load()?;
    let wanted = std::path::absolute(&args.worktree)
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let id = registry
        .worktrees
        .iter()
        .find(|(id, w)| **id == args.worktree || w.path == wanted)
        .map(|(id, _)| id.clone())
        .ok_or_else(|| {
            CommandError::user(format!("no worktree {}", args.worktree))
                .hint("see them with svc worktree list")
        })?;
    let Some(worktree) = registry.worktrees.get(&id).cloned() else {
        return Ok(());
    };
    if std::path::Path::new(&worktree.path).exists() {
        let mut git_args = vec!["worktree", "remove"];
        if args.force {
            git_args.push("--force");
        }
        git_args.push(&worktree.path);
        git(std::path::Path::new(&worktree.main), &git_args)
            .map_err(|e| e.hint("commit or discard its changes, or pass --force"))?;
    }
    let session = Session::open(Some(&worktree.server))?;
    let request = session.request(
        Method::DELETE,
        &format!("/v1/monorepos/{}/worktrees/{id}", worktree.monorepo),
    )?;
    match session.answer(request)? {
        Ok(_) => {}
        Err(r) if r.status == StatusCode::NOT_FOUND => {}
        Err(r) => return Err(session.refusal(r)),
    }
    registry.worktrees.remove(&id);
    super::save(&registry)?;
    crate::commands::daemon::nudge();
    outln!("Removed worktree {id} ({})", worktree.path)?;
    Ok(())
}
