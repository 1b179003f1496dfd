//! `svc branch checkout`.

use std::path::{Path, PathBuf};

use svc_protocol::branch::Branch;
use svc_protocol::monorepo::RepoList;

use crate::commands::worktree::{self, git};
use crate::commands::{Global, print};
use crate::config::{self, Clones};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs, Target};

/// Switch the repo's checkout to a branch, fetched from the server, as `gh pr checkout`
///
/// In the repo's folder of your svc clone (the one you are in, else the clone of the
/// monorepo -R names), svc fetches the branch and switches to it: the local branch when
/// there is one, else a new one tracking origin/<branch>. --worktree leaves the checkout
/// as it is and opens a worktree for the branch instead, as svc worktree add does.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch, named in full
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: String,
    /// Open a worktree for the branch (at <clone>.worktrees/<repo>/<branch>) instead
    #[arg(long)]
    pub worktree: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let branch: Branch = target.session.get(&target.branch_path(&args.branch))?;
    let (root, dir) = checkout(&target)?;
    if args.worktree {
        // `svc worktree add` works in the clone holding the current directory.
        std::env::set_current_dir(&root)?;
        return worktree::add::run(
            global,
            &worktree::add::Args {
                names: vec![target.repo.clone(), branch.name.clone()],
                repo: None,
                path: None,
            },
        );
    }
    let name = branch.name.as_str();
    git(&dir, &["check-ref-format", "--branch", name])?;
    git(
        &dir,
        &[
            "fetch",
            "--quiet",
            "origin",
            &format!("+refs/heads/{name}:refs/remotes/origin/{name}"),
        ],
    )?;
    let local = git(
        &dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{name}"),
        ],
    )
    .is_ok();
    if local {
        git(&dir, &["switch", "--quiet", name])?;
    } else {
        git(
            &dir,
            &[
                "switch",
                "--quiet",
                "--track",
                "-c",
                name,
                &format!("origin/{name}"),
            ],
        )?;
    }
    let head = git(&dir, &["rev-parse", "HEAD"])?;
    let value = serde_json::json!({
        "repo": target.label(),
        "branch": name,
        "path": dir.display().to_string(),
        "head": head,
        "created": !local,
    });
    print(global, &value, || match local {
        true => format!(
            "Switched to {name} in {} (fetched; your local branch as it was)",
            dir.display()
        ),
        false => format!(
            "Switched to {name} in {}, a new branch tracking origin/{name}",
            dir.display()
        ),
    })
}

/// The root of the svc clone of the target's monorepo (the one holding the current
/// directory first) and the repo's folder in it.
fn checkout(target: &Target) -> Result<(PathBuf, PathBuf)> {
    let full = format!("{}/{}", target.owner, target.monorepo);
    let clones = Clones::load(&config::config_dir()?)?;
    let here = std::env::current_dir()?;
    let root = clones
        .clones
        .iter()
        .filter(|(_, c)| {
            c.server == target.session.server && c.monorepo.eq_ignore_ascii_case(&full)
        })
        .max_by_key(|(path, _)| (here.starts_with(Path::new(path.as_str())), path.len()))
        .map(|(path, _)| PathBuf::from(path))
        .ok_or_else(|| {
            CommandError::user(format!("{full} is not cloned on this machine"))
                .hint(format!("run svc clone {full}, then this again"))
        })?;
    let repos: RepoList = target.session.get(&format!(
        "/v1/monorepos/{}/{}/repos",
        target.owner, target.monorepo
    ))?;
    let repo = repos
        .items
        .into_iter()
        .find(|r| r.name == target.repo)
        .ok_or_else(|| CommandError::user(format!("{} has no repo {}", full, target.repo)))?;
    let dir = match repo.path.as_str() {
        "." => root.clone(),
        path => root.join(path),
    };
    if !dir.join(".git").exists() {
        return Err(CommandError::user(format!(
            "{} has no checkout of {} at {}",
            root.display(),
            target.repo,
            dir.display()
        ))
        .hint("the daemon lays out repos added after the clone; or run svc clone again"));
    }
    Ok((root, dir))
}
