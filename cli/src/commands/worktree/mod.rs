//! `svc worktree ...`: branch worktrees of this machine's clones, reported to the server
//! and announced by the daemon in its hellos.

pub mod add;
pub mod list;
pub mod remove;

use std::path::{Path, PathBuf};

use svc_daemon::registry::{WORKTREES, Worktrees};

use super::Global;
use crate::config::{config_dir, read_toml, write_toml};
use crate::error::{CommandError, Result};

/// Make, list and remove branch worktrees
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Add(add::Args),
    List(list::Args),
    Remove(remove::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Add(args) => add::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::Remove(args) => remove::run(global, &args),
    }
}

fn registry_path() -> Result<PathBuf> {
    Ok(config_dir()?.join(WORKTREES))
}

pub fn load() -> Result<Worktrees> {
    read_toml(&registry_path()?)
}

pub fn save(worktrees: &Worktrees) -> Result<()> {
    write_toml(&registry_path()?, worktrees, false)
}

/// Runs git in `dir`, insisting on success; answers stdout.
pub fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| {
            CommandError::user("cannot run git")
                .because(&e)
                .hint("install git")
        })?;
    if !out.status.success() {
        return Err(CommandError::user(format!(
            "git {} failed: {}",
            args.first().copied().unwrap_or_default(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}
