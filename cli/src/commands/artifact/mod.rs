//! `svc artifact ...`: documents and images kept on a branch, versioned.

pub mod add;
pub mod comment;
pub mod delete;
mod images;
pub mod list;
pub mod open;
pub mod resolve;
pub mod view;

use reqwest::blocking::{RequestBuilder, Response};
use serde::de::DeserializeOwned;
use svc_protocol::ErrorCode;
use svc_protocol::artifact::{Artifact, ArtifactVersion};

use super::Global;
use crate::error::Result;
use crate::target::{self, RepoArgs, Target, encode};
use crate::workdir;

/// Documents and images kept on a branch, versioned, with comment threads
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Add(add::Args),
    List(list::Args),
    View(view::Args),
    Comment(comment::Args),
    Resolve(resolve::Args),
    Open(open::Args),
    Delete(delete::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Add(args) => add::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Comment(args) => comment::run(global, &args),
        Command::Resolve(args) => resolve::run(global, &args),
        Command::Open(args) => open::run(global, &args),
        Command::Delete(args) => delete::run(global, &args),
    }
}

/// The repo and branch options of every artifact command.
#[derive(Debug, Clone, clap::Args)]
pub struct BranchArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch [default: the branch checked out here]
    #[arg(long, short = 'b', add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: Option<String>,
}

impl BranchArgs {
    /// The branch (-b, else the one checked out here), then the repo (-R, else the one of
    /// the svc clone you are in).
    pub fn resolve(&self, global: &Global) -> Result<(Target, String)> {
        let branch = workdir::branch_or_current(self.branch.as_deref()).map_err(|mut e| {
            for hint in &mut e.hints {
                if hint == "name the branch" {
                    *hint = "name it with --branch <name>".to_owned();
                }
            }
            e
        })?;
        Ok((target::resolve(global, &self.repo)?, branch))
    }
}

/// `{r}/branches/{branch}/artifacts`.
pub fn list_path(target: &Target, branch: &str) -> String {
    format!("{}/artifacts", target.branch_path(branch))
}

/// `{r}/branches/{branch}/artifacts/{name}` with the name as one path segment.
pub fn path(target: &Target, branch: &str, name: &str) -> String {
    format!("{}/{}", list_path(target, branch), encode(name))
}

/// Sends, insisting on success, with advice that fits artifacts.
pub fn send(target: &Target, request: RequestBuilder) -> Result<Response> {
    let session = &target.session;
    session.answer(request)?.map_err(|refusal| {
        let code = refusal.code();
        let mut error = session.refusal(refusal);
        if code == Some(ErrorCode::TooManyFiles) {
            // The general advice is about release files.
            error.hints = vec![format!(
                "an upload holds the document and at most {} images",
                add::FILES_MAX - 1
            )];
        }
        error
    })
}

/// [`send`], then decodes the JSON answer.
pub fn call<T: DeserializeOwned>(target: &Target, request: RequestBuilder) -> Result<T> {
    send(target, request)?
        .json()
        .map_err(|e| target.session.garbled(&e))
}

/// The newest version (the list carries only that one).
pub fn newest(artifact: &Artifact) -> Option<&ArtifactVersion> {
    artifact.versions.iter().max_by_key(|v| v.n)
}

/// Bytes for people, like `1.20 MiB`.
pub fn size(bytes: i64) -> String {
    indicatif::HumanBytes(u64::try_from(bytes).unwrap_or(0)).to_string()
}

/// `1 file`, `3 files`.
pub fn n_files(n: usize) -> String {
    match n {
        1 => "1 file".to_owned(),
        n => format!("{n} files"),
    }
}
