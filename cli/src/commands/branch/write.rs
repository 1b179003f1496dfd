//! `svc branch write`.

use std::path::Path;

use base64::Engine;
use reqwest::Method;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{CommitFiles, ContentEncoding, FileChange};
use svc_protocol::code::Commit;

use crate::client::{self, Refusal, Session};
use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs};
use crate::workdir;

/// Write local files to a branch on the server as one commit, without a checkout or a
/// push
///
/// Each FILE is a local file whose path from the root of its git checkout is its path on
/// the branch (`svc branch write fix src/a.rs` from the checkout writes `src/a.rs`), or
/// `<path on the branch>=<local file>` for any file anywhere. Text goes as text, other
/// bytes as base64. A branch that does not exist is made from main's head; main itself
/// moves only by merges. The commit is authored as you, recorded as a push (events,
/// hooks, CI), and printed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch to commit to
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: String,
    /// The commit message
    #[arg(long, short = 'm')]
    pub message: String,
    /// Write only if the branch's head is this commit (a sha, or HEAD and the like as git
    /// here reads them); if it moved, nothing is written
    #[arg(long, value_name = "COMMIT")]
    pub expect: Option<String>,
    /// Files to write: a local file in a git checkout, or <path on the branch>=<local file>
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// A path on the branch, from the repo's root, to delete (repeat for more)
    #[arg(long, value_name = "PATH")]
    pub delete: Vec<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    if args.files.is_empty() && args.delete.is_empty() {
        return Err(CommandError::user("nothing to write")
            .hint("name files to write, or --delete <path> for files to delete"));
    }
    let mut files = Vec::with_capacity(args.files.len() + args.delete.len());
    for arg in &args.files {
        files.push(file(arg)?);
    }
    files.extend(args.delete.iter().map(|path| FileChange {
        path: path.trim_start_matches("./").to_owned(),
        delete: true,
        ..FileChange::default()
    }));
    let expected_head = args
        .expect
        .as_deref()
        .map(workdir::commit_sha)
        .transpose()?;
    let body = CommitFiles {
        message: args.message.clone(),
        expected_head,
        files,
    };
    let target = target::resolve(global, &args.repo)?;
    let path = format!("{}/commits", target.branch_path(&args.branch));
    let request = target.session.request(Method::POST, &path)?.json(&body);
    let commit: Commit = match target.session.answer(request)? {
        Ok(response) => response.json().map_err(|e| target.session.garbled(&e))?,
        Err(refusal) => return Err(explain(&args.branch, refusal, &target.session)),
    };
    let count = body.files.len();
    print(global, &commit, || {
        let files = if count == 1 { "file" } else { "files" };
        format!(
            "Committed {count} {files} to {} as {}: {}",
            args.branch, commit.sha, commit.title
        )
    })
}

/// One FILE argument as the change it asks for.
fn file(arg: &str) -> Result<FileChange> {
    let (path, local) = match arg.split_once('=') {
        Some((path, local)) => (path.trim_start_matches("./").to_owned(), Path::new(local)),
        None => (workdir::path_in_checkout(Path::new(arg))?, Path::new(arg)),
    };
    let bytes = std::fs::read(local)
        .map_err(|e| CommandError::user(format!("cannot read {}", local.display())).because(&e))?;
    let (content, encoding) = match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => (
            base64::engine::general_purpose::STANDARD.encode(e.into_bytes()),
            Some(ContentEncoding::Base64),
        ),
    };
    Ok(FileChange {
        path,
        content: Some(content),
        encoding,
        delete: false,
    })
}

/// The refusals that concern the files, in words; the rest as any refusal.
fn explain(branch: &str, refusal: Refusal, session: &Session) -> CommandError {
    let Some(error) = refusal.error.as_ref() else {
        return session.refusal(refusal);
    };
    let why = match ErrorCode::parse(&error.code) {
        Some(ErrorCode::HeadMoved) => match &error.current {
            Some(head) => format!("it is at {head} now, not at the commit --expect names"),
            None => "it does not exist, and --expect names a commit".to_owned(),
        },
        Some(ErrorCode::TooManyFiles) => {
            return CommandError::user(format!(
                "nothing was written to {branch}: {}",
                error.message
            ))
            .code(&error.code)
            .hint("write them in several commits");
        }
        Some(ErrorCode::NoSuchPath | ErrorCode::BadPath) => error.message.clone(),
        _ => return session.refusal(refusal),
    };
    client::refused(
        format!("nothing was written to {branch}: {why}"),
        &error.code,
    )
}
