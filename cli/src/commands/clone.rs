//! `svc clone`: lays a monorepo out on disk.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;

use svc_protocol::monorepo::{Monorepo, MonorepoKind, Repo, RepoList};
use svc_protocol::user::User;

use super::Global;
use super::auth::setup_git;
use crate::client::{Session, split_full_name};
use crate::config::{self, Clones};
use crate::error::{CommandError, Result};
use crate::terminal::outln;

/// Clone a monorepo: each repo's main at its path, the meta layer's files in .svc/
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>, or just <monorepo> for one of your own
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub monorepo: String,
    /// Where to put it [default: the monorepo's name]
    pub dir: Option<PathBuf>,
}

/// A folder being filled; removed unless the clone finishes, so a failure leaves nothing.
struct Staging {
    path: PathBuf,
    done: bool,
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let full = match args.monorepo.contains('/') {
        true => args.monorepo.clone(),
        false => {
            let me: User = session.get("/v1/user")?;
            format!("{}/{}", me.login, args.monorepo)
        }
    };
    let (owner, name) = split_full_name(&full)?;
    let m = format!("/v1/monorepos/{owner}/{name}");
    let monorepo: Monorepo = session.get(&m)?;
    let repos: RepoList = session.get(&format!("{m}/repos"))?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&monorepo.name));
    if dir.exists() && std::fs::read_dir(&dir).map_or(true, |mut d| d.next().is_some()) {
        return Err(
            CommandError::user(format!("{} exists and is not empty", dir.display()))
                .hint("pick another folder"),
        );
    }
    let dir = std::path::absolute(&dir)?;
    let parent = dir
        .parent()
        .ok_or_else(|| CommandError::user("cannot clone into /"))?;
    std::fs::create_dir_all(parent)?;
    let file_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut staging = Staging {
        path: parent.join(format!(".{file_name}.svc-clone-{}", std::process::id())),
        done: false,
    };
    std::fs::create_dir(&staging.path)?;

    let mut ordered = repos.items.clone();
    ordered.sort_by(|a, b| a.path.cmp(&b.path));
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(ordered.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
            bar.set_style(style);
        }
        bar
    });
    for repo in &ordered {
        if let Some(bar) = &bar {
            bar.set_message(repo.path.clone());
        }
        let target = if monorepo.kind == MonorepoKind::Repo || repo.path == "." {
            staging.path.clone()
        } else {
            staging.path.join(&repo.path)
        };
        clone_repo(&session, repo, &target)?;
        if let Some(enclosing) = ordered
            .iter()
            .rfind(|o| repo.path.starts_with(&format!("{}/", o.path)))
        {
            let rel = &repo.path[enclosing.path.len() + 1..];
            exclude(&staging.path.join(&enclosing.path), rel)?;
        }
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if monorepo.kind == MonorepoKind::Monorepo {
        // The first sync: `.svc/` with the meta layer's files and the sync state the
        // daemon and `svc sync` go on from, even while the layer is empty.
        super::sync::sync_clone(&session.server, &monorepo.full_name, &staging.path)?;
    }
    std::fs::rename(&staging.path, &dir).map_err(|e| {
        CommandError::internal(format!("cannot move the clone into {}", dir.display())).because(&e)
    })?;
    staging.done = true;

    let config_dir = config::config_dir()?;
    let mut clones = Clones::load(&config_dir)?;
    clones.clones.insert(
        dir.display().to_string(),
        config::Clone {
            server: session.server.clone(),
            monorepo: monorepo.full_name.clone(),
            monorepo_id: monorepo.id.clone(),
        },
    );
    clones.save(&config_dir)?;
    super::daemon::nudge();
    outln!(
        "Cloned {} into {} ({} repos)",
        monorepo.full_name,
        dir.display(),
        ordered.len()
    )?;
    Ok(())
}

/// `git clone` of one repo's main, authenticating through `svc git-credential` and
/// keeping that set up in the clone; no token goes into any URL.
fn clone_repo(session: &Session, repo: &Repo, target: &Path) -> Result<()> {
    let helper = setup_git::helper()?;
    std::fs::create_dir_all(target)?;
    let out = Command::new("git")
        .args(["-c", "credential.helper=", "-c"])
        .arg(format!("credential.helper={helper}"))
        .args(["clone", "--quiet", &repo.clone_url])
        .arg(target)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| {
            CommandError::user("cannot run git")
                .because(&e)
                .hint("install git")
        })?;
    if !out.status.success() {
        return Err(CommandError::user(format!(
            "git could not clone {}: {}",
            repo.path,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    setup_git::configure(
        &mut || {
            let mut git = Command::new("git");
            git.arg("-C").arg(target);
            git
        },
        &session.server,
        "--local",
    )
}

/// Keeps a nested repo out of the enclosing repo's status.
fn exclude(enclosing: &Path, rel: &str) -> Result<()> {
    use std::io::Write;
    let path = enclosing.join(".git/info/exclude");
    std::fs::create_dir_all(path.parent().unwrap_or(enclosing))?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    writeln!(file, "/{rel}/")?;
    Ok(())
}
