//! `svc release ...`: a repo's releases and their files.

pub mod create;
pub mod delete;
pub mod download;
pub mod edit;
pub mod list;
pub mod notes;
pub mod publish;
pub mod upload;
pub mod view;

use std::io::{IsTerminal, Read};
use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use sha2::{Digest, Sha256};
use svc_protocol::ErrorCode;
use svc_protocol::release::{LATEST, Release, ReleaseList};

use super::Global;
use crate::client::{Refusal, Session};
use crate::commands::checks;
use crate::error::{CommandError, Result};
use crate::target::{Target, encode};
use crate::workdir;

/// Make, list, view, edit, publish and delete releases; upload and download their files
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    List(list::Args),
    Create(create::Args),
    View(view::Args),
    Edit(edit::Args),
    Publish(publish::Args),
    Delete(delete::Args),
    Notes(notes::Args),
    Upload(upload::Args),
    Download(download::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::List(args) => list::run(global, &args),
        Command::Create(args) => create::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Edit(args) => edit::run(global, &args),
        Command::Publish(args) => publish::run(global, &args),
        Command::Delete(args) => delete::run(global, &args),
        Command::Notes(args) => notes::run(global, &args),
        Command::Upload(args) => upload::run(global, &args),
        Command::Download(args) => download::run(global, &args),
    }
}

/// How long one file upload or download may take, in place of the client's minute.
pub const TRANSFER_TIMEOUT: Duration = Duration::from_secs(2 * 3600);

/// `{r}/releases/{tag}` with the tag as one path segment.
pub fn path(target: &Target, tag: &str) -> String {
    format!("{}/releases/{}", target.path(), encode(tag))
}

/// `{r}/releases/{tag}/files/{name}`.
pub fn file_path(target: &Target, tag: &str, name: &str) -> String {
    format!("{}/files/{}", path(target, tag), encode(name))
}

/// `draft` or `published`.
pub fn state(release: &Release) -> &'static str {
    if release.draft { "draft" } else { "published" }
}

/// The release `tag` names; `latest` is the newest published one.
pub fn fetch(target: &Target, tag: &str) -> Result<Release> {
    if tag != LATEST {
        return target.session.get(&path(target, tag));
    }
    // The list runs newest first, a release counting from its publication; the first
    // published one is the latest.
    let mut cursor: Option<String> = None;
    loop {
        let mut page = format!("{}/releases", target.path());
        if let Some(cursor) = &cursor {
            page.push_str(&format!("?cursor={}", encode(cursor)));
        }
        let list: ReleaseList = target.session.get(&page)?;
        if let Some(release) = list.items.into_iter().find(|r| !r.draft) {
            return Ok(release);
        }
        match list.next_cursor {
            Some(next) => cursor = Some(next),
            None => {
                return Err(CommandError::user(format!(
                    "{} has no published release",
                    target.label()
                ))
                .code(ErrorCode::NotFound.as_str())
                .hint("svc release list shows its drafts; svc release publish publishes one"));
            }
        }
    }
}

/// The notes from `--notes`, else from `--notes-file` (`-` for standard input).
pub fn read_notes(notes: Option<&str>, file: Option<&str>) -> Result<Option<String>> {
    Ok(match (notes, file) {
        (Some(notes), _) => Some(notes.to_owned()),
        (None, Some("-")) => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            Some(text)
        }
        (None, Some(file)) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| CommandError::user(format!("cannot read {file}")).because(&e))?,
        ),
        (None, None) => None,
    })
}

/// A release commit as the server takes it: `HEAD` and short shas become full shas by
/// git here; a full sha or a branch name goes as given.
pub fn target_rev(rev: &str) -> Result<String> {
    let short_sha = (4..40).contains(&rev.len()) && rev.bytes().all(|b| b.is_ascii_hexdigit());
    if short_sha || rev == "HEAD" || rev.starts_with("HEAD~") || rev.starts_with("HEAD^") {
        workdir::commit_sha(rev)
    } else {
        Ok(rev.to_owned())
    }
}

/// The refusals of the release gate in words: `what` says what did not happen (`v1.0 is
/// not published`), `again` is the command that would, given `--force`.
pub fn explain(what: &str, again: &str, refusal: Refusal, session: &Session) -> CommandError {
    let Some(error) = refusal.error.as_ref() else {
        return session.refusal(refusal);
    };
    match ErrorCode::parse(&error.code) {
        Some(ErrorCode::ChecksNotGreen) => {
            let (why, sha) = match &error.checks {
                Some(c) => (checks::not_green(c), c.sha.clone()),
                None => (error.message.clone(), None),
            };
            let error = CommandError::user(format!("{what}: checks are not green ({why})"))
                .code(&error.code);
            let error = match sha {
                Some(sha) => error.hint(format!("svc checks {sha} shows them")),
                None => error,
            };
            error.hint(format!(
                "fix them, or release anyway with {again} --force"
            ))
        }
        Some(ErrorCode::ChecksUnknown) => CommandError::user(format!(
            "{what}: the required checks cannot be read ({})",
            error.message
        ))
        .code(&error.code)
        .hint(format!(
            "fix the required checks in .svc/svc.toml on main, or release anyway with {again} --force"
        )),
        _ => session.refusal(refusal),
    }
}

/// A bar for `len` bytes on stderr when it is a terminal; a hidden one otherwise.
pub fn progress(len: u64, message: String) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len).with_message(message);
    if let Ok(style) =
        ProgressStyle::with_template("{msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
    {
        bar.set_style(style);
    }
    bar
}

/// The SHA-256 of the file at `path` in lower-case hex, read in chunks, moving `bar`.
pub fn sha256_file(path: &Path, bar: &ProgressBar) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut chunk = vec![0u8; 256 * 1024];
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        hasher.update(&chunk[..n]);
        bar.inc(n as u64);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// A file name the server gave or a user chose: one path segment.
pub fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || matches!(name, "." | "..") || name.contains(['/', '\\', '\0']) {
        return Err(
            CommandError::user(format!("{name:?} cannot be a release file's name"))
                .hint("a name is one path segment: no / or \\, not . or .."),
        );
    }
    Ok(())
}
