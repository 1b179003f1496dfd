//! `svc worktree add`.

use std::path::{Path, PathBuf};

use reqwest::Method;
use serde::Serialize;
use svc_daemon::registry::Worktree;
use svc_protocol::monorepo::{Monorepo, MonorepoKind, RepoList};
use svc_protocol::presence::PutWorktree;

use super::git;
use crate::client::Session;
use crate::commands::Global;
use crate::config::{Clones, config_dir};
use crate::error::{CommandError, Result};
use crate::terminal::errln;

/// Make a worktree for a branch of a repo (the branch is made from main when new)
///
/// The repo is named first (its name or its path in the clone you are in, else in the
/// only clone), or with -R <owner>/<monorepo>/<repo> (a clone of that monorepo on this
/// machine); then the branch: `svc worktree add services-api docs`, `svc worktree add -R
/// you/web/services/api docs`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The repo (its name or path) and the branch; only the branch with -R
    #[arg(value_name = "REPO] [BRANCH", num_args = 1..=2, required = true)]
    pub names: Vec<String>,
    /// <owner>/<monorepo>/<repo>: the repo, in this machine's clone of that monorepo
    #[arg(short = 'R', long = "repo", value_name = "OWNER/MONOREPO/REPO")]
    pub repo: Option<String>,
    /// Where [default: <clone>.worktrees/<repo>/<branch>]
    #[arg(long)]
    pub path: Option<PathBuf>,
}

#[derive(Serialize)]
struct Made<'a> {
    id: &'a str,
    #[serde(flatten)]
    worktree: &'a Worktree,
}

/// The commit-msg hook: trailers naming the worktree, the machine and the agent, for
/// commits made in a worktree `svc worktree add` configured (the main checkout has none).
const HOOK: &str = r#"#!/bin/sh
# svc: commit trailers for branch worktrees (svc worktree add)
id=$(git config --get svc.worktree) || exit 0
git interpret-trailers --in-place --if-exists addIfDifferent --trailer "Svc-Worktree: $id" "$1" || exit 1
machine=$(git config --get svc.machine) && { git interpret-trailers --in-place --if-exists addIfDifferent --trailer "Svc-Machine: $machine" "$1" || exit 1; }
if [ -n "$SVC_AGENT" ]; then
  git interpret-trailers --in-place --if-exists addIfDifferent --trailer "Svc-Agent: $SVC_AGENT" "$1" || exit 1
fi
exit 0
"#;

/// The repo and the branch the arguments name, and the clone of the monorepo `-R` names
/// (else the one holding the current directory, else the only one).
fn named(args: &Args, clones: &Clones) -> Result<(String, String, PathBuf, crate::config::Clone)> {
    let usage = || {
        CommandError::user(
            "name the repo and the branch, or -R <owner>/<monorepo>/<repo> and the branch",
        )
        .hint(
            "svc worktree add services-api docs, or svc worktree add -R you/web/services/api docs",
        )
    };
    match (&args.repo, args.names.as_slice()) {
        (None, [repo, branch]) => {
            let (root, clone) = clone_here(clones)?;
            Ok((repo.clone(), branch.clone(), root, clone))
        }
        (Some(full), [branch]) => {
            let mut parts = full.splitn(3, '/');
            let (Some(owner), Some(monorepo), Some(repo)) =
                (parts.next(), parts.next(), parts.next())
            else {
                return Err(CommandError::user(format!(
                    "-R {full} is not <owner>/<monorepo>/<repo>"
                )));
            };
            let want = format!("{owner}/{monorepo}");
            let here = std::env::current_dir()?;
            let (path, clone) = clones
                .clones
                .iter()
                .filter(|(_, c)| c.monorepo == want)
                .max_by_key(|(path, _)| here.starts_with(path))
                .ok_or_else(|| {
                    CommandError::user(format!("{want} is not cloned on this machine"))
                        .hint(format!("run svc clone {want}"))
                })?;
            Ok((
                repo.trim_end_matches('/').to_owned(),
                branch.clone(),
                PathBuf::from(path),
                clone.clone(),
            ))
        }
        _ => Err(usage()),
    }
}

/// The clone holding the current directory, else the only clone.
fn clone_here(clones: &Clones) -> Result<(PathBuf, crate::config::Clone)> {
    let here = std::env::current_dir()?;
    if let Some((path, clone)) = clones
        .clones
        .iter()
        .filter(|(path, _)| here.starts_with(path))
        .max_by_key(|(path, _)| path.len())
    {
        return Ok((PathBuf::from(path), clone.clone()));
    }
    match clones.clones.iter().collect::<Vec<_>>().as_slice() {
        [(path, clone)] => Ok((PathBuf::from(path), (*clone).clone())),
        [] => {
            Err(CommandError::user("no monorepo is cloned on this machine").hint("run svc clone"))
        }
        _ => Err(
            CommandError::user("which monorepo? several are cloned here")
                .hint("run it inside the clone"),
        ),
    }
}

fn new_id() -> Result<String> {
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes).map_err(|e| CommandError::internal("no randomness").because(&e))?;
    Ok(format!("wt-{}", hex(&bytes)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let clones = Clones::load(&config_dir()?)?;
    let (wanted, branch, root, clone) = named(args, &clones)?;
    let session = Session::open(Some(&clone.server))?;
    let m = format!("/v1/monorepos/{}", clone.monorepo);
    let monorepo: Monorepo = session.get(&m)?;
    let repos: RepoList = session.get(&format!("{m}/repos"))?;
    let repo = repos
        .items
        .into_iter()
        .find(|r| r.name == wanted || r.path == wanted)
        .ok_or_else(|| {
            CommandError::user(format!("{} has no repo {wanted}", clone.monorepo))
                .hint("see them with svc repo list")
        })?;
    let main = if monorepo.kind == MonorepoKind::Repo || repo.path == "." {
        root.clone()
    } else {
        root.join(&repo.path)
    };
    let path = match &args.path {
        Some(p) => std::path::absolute(p)?,
        None => {
            let mut base = root.clone().into_os_string();
            base.push(".worktrees");
            PathBuf::from(base)
                .join(&repo.name)
                .join(branch.replace('/', "-"))
        }
    };
    if path.exists() {
        return Err(
            CommandError::user(format!("{} exists", path.display())).hint("pick another --path")
        );
    }
    let branch = branch.as_str();
    git(&main, &["check-ref-format", "--branch", branch])?;
    git(&main, &["fetch", "--quiet", "origin"])?;
    let has = |r: &str| git(&main, &["rev-parse", "--verify", "--quiet", r]).is_ok();
    let path_arg = path.display().to_string();
    if has(&format!("refs/heads/{branch}")) {
        if let Some(at) = checked_out_at(&main, branch)? {
            return Err(CommandError::user(format!(
                "{branch} is checked out in {at}, and git keeps a branch in one checkout"
            ))
            .hint(format!(
                "work on it there, or free it first: git -C {at} switch {}",
                repo.default_branch
            )));
        }
        git(&main, &["worktree", "add", "--quiet", &path_arg, branch])?;
    } else if has(&format!("refs/remotes/origin/{branch}")) {
        git(
            &main,
            &[
                "worktree",
                "add",
                "--quiet",
                "--track",
                "-b",
                branch,
                &path_arg,
                &format!("origin/{branch}"),
            ],
        )?;
    } else {
        let from = format!("origin/{}", repo.default_branch);
        let start = if has(&from) {
            from
        } else {
            repo.default_branch.clone()
        };
        git(
            &main,
            &[
                "worktree",
                "add",
                "--quiet",
                "--no-track",
                "-b",
                branch,
                &path_arg,
                &start,
            ],
        )?;
        // `git push` from the worktree goes to the same branch on the server.
        git(
            &main,
            &["config", &format!("branch.{branch}.remote"), "origin"],
        )?;
        git(
            &main,
            &[
                "config",
                &format!("branch.{branch}.merge"),
                &format!("refs/heads/{branch}"),
            ],
        )?;
    }
    let id = new_id()?;
    let machine = crate::commands::daemon::machine_name()?;
    configure_trailers(&main, &path, &id, &machine)?;

    let put = PutWorktree {
        repo: repo.name.clone(),
        branch: branch.to_owned(),
        machine: machine.clone(),
        path: Some(path_arg.clone()),
    };
    session.send(
        session
            .request(Method::PUT, &format!("{m}/worktrees/{id}"))?
            .json(&put),
    )?;
    let worktree = Worktree {
        server: clone.server.clone(),
        monorepo: clone.monorepo.clone(),
        monorepo_id: clone.monorepo_id.clone(),
        repo: repo.name.clone(),
        branch: branch.to_owned(),
        path: path_arg.clone(),
        main: main.display().to_string(),
        machine,
    };
    let mut registry = super::load()?;
    registry.worktrees.insert(id.clone(), worktree.clone());
    super::save(&registry)?;
    crate::commands::daemon::nudge();
    crate::commands::print(
        global,
        &Made {
            id: &id,
            worktree: &worktree,
        },
        || format!("Worktree {id}: {} {branch} at {path_arg}", repo.name),
    )
}

/// Per-worktree settings the hook reads, and the hook itself (kept if it is someone
/// else's, with a warning).
fn configure_trailers(main: &Path, path: &Path, id: &str, machine: &str) -> Result<()> {
    git(main, &["config", "extensions.worktreeConfig", "true"])?;
    git(path, &["config", "--worktree", "svc.worktree", id])?;
    git(path, &["config", "--worktree", "svc.machine", machine])?;
    let common = git(
        main,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )?;
    let hook = PathBuf::from(common).join("hooks/commit-msg");
    match std::fs::read_to_string(&hook) {
        Ok(text) if text.contains("svc: commit trailers") => return Ok(()),
        Ok(_) => {
            errln!(
                "svc: {} exists and is not svc's: commits will not get Svc-Worktree trailers",
                hook.display()
            );
            return Ok(());
        }
        Err(_) => {}
    }
    std::fs::create_dir_all(hook.parent().unwrap_or(main))?;
    std::fs::write(&hook, HOOK)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// The checkout (the clone's own, or a worktree) that has `branch` checked out, if any.
fn checked_out_at(main: &Path, branch: &str) -> Result<Option<String>> {
    let list = git(main, &["worktree", "list", "--porcelain"])?;
    let want = format!("branch refs/heads/{branch}");
    let mut path = None;
    for line in list.lines() {
        if let Some(p) = line.strip_prefix("worktree ") {
            path = Some(p.to_owned());
        } else if line == want {
            return Ok(path);
        }
    }
    Ok(None)
}
