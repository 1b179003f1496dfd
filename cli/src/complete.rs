//! Completions that know the server's names: monorepos, repos and branches, asked of
//! the server you are signed in to while you press Tab (clap_complete's dynamic
//! completion). The shell's script (`svc completions <shell>`) calls `svc` back with
//! `COMPLETE=<shell>`; [`CompleteEnv`] answers that call before anything else runs.
//!
//! A completer never fails aloud: no server, no credential or no network completes
//! nothing, and the shell goes on.

use std::ffi::OsStr;

use clap::CommandFactory;
use clap_complete::CompleteEnv;
use clap_complete::engine::CompletionCandidate;
use svc_protocol::branch::BranchList;
use svc_protocol::monorepo::{MonorepoKind, MonorepoList, RepoList};

use crate::client::Session;
use crate::commands::{Cli, Global};
use crate::target::{self, RepoArgs};

/// The variable the shell scripts set when they ask for completions.
pub const VAR: &str = "COMPLETE";

/// Answers a completion request (`COMPLETE=<shell> svc -- svc ...`) and exits; a
/// regular run returns at once.
pub fn answer() {
    CompleteEnv::with_factory(Cli::command)
        .var(VAR)
        .completer("svc")
        .complete();
}

/// Monorepos you can see, as `<owner>/<monorepo>`.
pub fn monorepos(current: &OsStr) -> Vec<CompletionCandidate> {
    let current = current.to_string_lossy();
    list_monorepos()
        .into_iter()
        .map(|(full, _)| full)
        .filter(|full| full.starts_with(current.as_ref()))
        .map(CompletionCandidate::new)
        .collect()
}

/// Repos as `-R` takes them: `<owner>/<monorepo>/<repo>` once a monorepo is typed,
/// else the monorepos (`<owner>/<monorepo>/` to go on, a plain repo's `<owner>/<repo>`).
pub fn repos(current: &OsStr) -> Vec<CompletionCandidate> {
    let current = current.to_string_lossy();
    let mut parts = current.splitn(3, '/');
    let names = match (parts.next(), parts.next(), parts.next()) {
        (Some(owner), Some(monorepo), Some(_)) => repos_of(owner, monorepo),
        _ => list_monorepos()
            .into_iter()
            .map(|(full, kind)| match kind {
                MonorepoKind::Repo => full,
                MonorepoKind::Monorepo => format!("{full}/"),
            })
            .collect(),
    };
    names
        .into_iter()
        .filter(|n| n.starts_with(current.as_ref()))
        .map(CompletionCandidate::new)
        .collect()
}

/// Branches of the repo the command line's `-R` names, else of the clone you are in.
pub fn branches(current: &OsStr) -> Vec<CompletionCandidate> {
    let current = current.to_string_lossy();
    let args = RepoArgs {
        repo: repo_on_command_line(),
    };
    let Ok(target) = target::resolve(&global(), &args) else {
        return Vec::new();
    };
    let path = format!("{}/branches", target.path());
    let Ok(list) = target
        .session
        .get_list::<BranchList>(&path, Some(100), None)
    else {
        return Vec::new();
    };
    std::iter::once(list.default_branch)
        .chain(list.items.into_iter().map(|b| b.name))
        .filter(|n| n.starts_with(current.as_ref()))
        .map(CompletionCandidate::new)
        .collect()
}

/// The options every command takes, as the environment gives them.
fn global() -> Global {
    Global {
        server: std::env::var("SVC_SERVER").ok().filter(|s| !s.is_empty()),
        json: false,
        jq: None,
    }
}

/// `-R X`, `--repo X` or `--repo=X` on the command line being completed.
fn repo_on_command_line() -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let line = match args.iter().position(|a| a == "--") {
        Some(i) => &args[i + 1..],
        None => &args[..],
    };
    line.iter().enumerate().rev().find_map(|(i, a)| {
        if let Some(value) = a.strip_prefix("--repo=") {
            return Some(value.to_owned());
        }
        (a == "-R" || a == "--repo")
            .then(|| line.get(i + 1).cloned())
            .flatten()
    })
}

fn list_monorepos() -> Vec<(String, MonorepoKind)> {
    let Ok(session) = Session::open(global().server.as_deref()) else {
        return Vec::new();
    };
    session
        .get::<MonorepoList>("/v1/monorepos")
        .map(|list| {
            list.items
                .into_iter()
                .map(|m| (m.full_name, m.kind))
                .collect()
        })
        .unwrap_or_default()
}

fn repos_of(owner: &str, monorepo: &str) -> Vec<String> {
    let Ok(session) = Session::open(global().server.as_deref()) else {
        return Vec::new();
    };
    session
        .get::<RepoList>(&format!(
            "/v1/monorepos/{}/{}/repos",
            target::encode(owner),
            target::encode(monorepo)
        ))
        .map(|list| {
            list.items
                .into_iter()
                .map(|r| format!("{owner}/{monorepo}/{}", r.name))
                .collect()
        })
        .unwrap_or_default()
}
