//! `svc repo import`: bring an existing project's whole history into a repo.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use reqwest::Method;
use svc_protocol::import::{CreateImport, Import, ImportState};
use svc_protocol::monorepo::{Monorepo, MonorepoKind};

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, MonorepoArgs, MonorepoTarget};

/// Import a project's whole history (every branch and tag, main at its head) into a
/// new or empty repo; owners only
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project: a local git repository's folder, or an http(s) git URL the server
    /// fetches
    pub source: String,
    /// The repo's folder in the monorepo [default: the project's folder name; `.` in a
    /// plain repo]
    #[arg(long)]
    pub path: Option<String>,
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let path = match &args.path {
        Some(path) => path.clone(),
        None => {
            let monorepo: Monorepo = target.session.get(&target.path())?;
            match monorepo.kind {
                MonorepoKind::Repo => ".".into(),
                MonorepoKind::Monorepo => folder_name(&args.source)?,
            }
        }
    };
    let done = import(&target, &path, &args.source)?;
    print(global, &done, || match &done.repo {
        Some(repo) => format!(
            "Imported {} into {} at {}\nClone: {}",
            args.source, repo.name, repo.path, repo.clone_url
        ),
        None => format!("Imported {} at {}", args.source, done.path),
    })
}

/// The last folder of a path or URL, without `.git`.
fn folder_name(source: &str) -> Result<String> {
    let trimmed = source.trim_end_matches('/');
    let last = trimmed.rsplit(['/', '\\']).next().unwrap_or(trimmed);
    let name = last.strip_suffix(".git").unwrap_or(last);
    if name.is_empty() || name == "." || name == ".." {
        return Err(
            CommandError::user(format!("cannot tell a repo path from {source:?}"))
                .hint("name it with --path <folder>"),
        );
    }
    Ok(name.to_owned())
}

fn is_url(source: &str) -> bool {
    source.contains("://")
}

/// Imports `source` into the repo at `path` and answers the finished import: a URL is
/// fetched by the server (followed until it ends), a local repository is sent as a
/// bundle of every ref, streamed from `git bundle` as it is made.
pub fn import(target: &MonorepoTarget, path: &str, source: &str) -> Result<Import> {
    let session = &target.session;
    let imports = format!("{}/imports", target.path());
    let body = CreateImport {
        path: path.to_owned(),
        url: is_url(source).then(|| source.to_owned()),
    };
    let started: Import = session.call(session.request(Method::POST, &imports)?.json(&body))?;
    let done = if is_url(source) {
        follow(session, &format!("{imports}/{}", started.id))?
    } else {
        send_bundle(session, &format!("{imports}/{}/bundle", started.id), source)?
    };
    match done.state {
        ImportState::Done => Ok(done),
        _ => Err(CommandError::user(format!(
            "the import of {source} failed: {}",
            done.error.as_deref().unwrap_or("no reason given")
        ))),
    }
}

/// Polls a URL import until it ends.
fn follow(session: &Session, path: &str) -> Result<Import> {
    loop {
        let import: Import = session.get(path)?;
        if matches!(import.state, ImportState::Done | ImportState::Failed) {
            return Ok(import);
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Streams `git bundle create - --all` of the repository at `folder` to the import.
fn send_bundle(session: &Session, path: &str, folder: &str) -> Result<Import> {
    if !Path::new(folder).is_dir() {
        return Err(CommandError::user(format!(
            "{folder} is neither a folder nor an http(s) URL"
        )));
    }
    let mut git = Command::new("git")
        .arg("-C")
        .arg(folder)
        .args(["bundle", "create", "--quiet", "-", "--all"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| CommandError::user("cannot run git").because(&e))?;
    let stdout = git
        .stdout
        .take()
        .ok_or_else(|| CommandError::internal("no pipe from git bundle"))?;
    // The upload and the server's checks take as long as the history is big.
    let request = session
        .request(Method::PUT, path)?
        .header("Content-Type", "application/octet-stream")
        .timeout(Duration::from_secs(24 * 60 * 60))
        .body(reqwest::blocking::Body::new(stdout));
    let answer = session.call(request);
    let status = git
        .wait()
        .map_err(|e| CommandError::user("git bundle failed").because(&e))?;
    if !status.success() {
        return Err(CommandError::user(format!(
            "git bundle create failed in {folder} ({status}); is it a git repository with commits?"
        )));
    }
    answer
}
