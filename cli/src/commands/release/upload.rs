//! `svc release upload`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use indicatif::HumanBytes;
use reqwest::blocking::Body;
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, StatusCode};
use serde::Serialize;
use svc_protocol::ErrorCode;
use svc_protocol::release::{FILE_MAX, FILES_MAX, Release, ReleaseFile};

use crate::client::refused;
use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs, Target};

/// Upload files to a release; a file of the same name is replaced
///
/// Each file is hashed (SHA-256), then streamed to the server, which checks the hash.
/// A release holds at most 20 files of at most 100 MB each.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The release's tag
    pub tag: String,
    /// The files to upload
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The name on the release [default: the file's name] (one file only)
    #[arg(long)]
    pub name: Option<String>,
}

/// One uploaded file, as --json prints it.
#[derive(Debug, Serialize)]
struct Uploaded {
    #[serde(flatten)]
    file: ReleaseFile,
    /// Whether it replaced a file of the same name.
    replaced: bool,
}

/// A file to send: where it is, its name on the release and its size.
struct Planned {
    path: PathBuf,
    name: String,
    size: u64,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    if args.name.is_some() && args.files.len() > 1 {
        return Err(CommandError::user(format!(
            "--name names one file, and {} are given",
            args.files.len()
        ))
        .hint("upload the files one by one to name each"));
    }
    let planned = plan(args)?;
    let target = target::resolve(global, &args.repo)?;
    // The release first: a missing one is told before any byte is sent.
    let release: Release = target.session.get(&super::path(&target, &args.tag))?;
    let held: BTreeSet<&str> = release.files.iter().map(|f| f.name.as_str()).collect();
    let new = planned
        .iter()
        .filter(|p| !held.contains(p.name.as_str()))
        .count();
    if held.len() + new > FILES_MAX {
        return Err(refused(
            format!(
                "{} holds {} files; {new} more would pass the {FILES_MAX} a release may hold",
                release.tag,
                held.len()
            ),
            ErrorCode::TooManyFiles.as_str(),
        ));
    }
    let mut uploaded = Vec::new();
    for p in &planned {
        uploaded.push(upload(&target, &release.tag, p)?);
    }
    print(global, &uploaded, || {
        let mut text = String::new();
        for u in &uploaded {
            let verb = if u.replaced { "Replaced" } else { "Uploaded" };
            text.push_str(&format!(
                "{verb} {} on {} ({}, sha256 {})\n",
                u.file.name,
                release.tag,
                HumanBytes(u.file.size),
                u.file.sha256
            ));
        }
        text
    })
}

/// The files with their names and sizes, each refused here when the server would.
fn plan(args: &Args) -> Result<Vec<Planned>> {
    let mut planned: Vec<Planned> = Vec::new();
    for path in &args.files {
        let shown = path.display();
        let meta = std::fs::metadata(path)
            .map_err(|e| CommandError::user(format!("cannot read {shown}")).because(&e))?;
        if !meta.is_file() {
            return Err(CommandError::user(format!("{shown} is not a file")));
        }
        let name = match &args.name {
            Some(name) => name.clone(),
            None => path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        super::check_name(&name)?;
        if meta.len() > FILE_MAX {
            return Err(refused(
                format!(
                    "{shown} has {} bytes, over the {FILE_MAX} a release file may have",
                    meta.len()
                ),
                ErrorCode::TooLarge.as_str(),
            ));
        }
        if planned.iter().any(|p| p.name == name) {
            return Err(CommandError::user(format!(
                "two of the files would be named {name} on the release"
            ))
            .hint("upload one of them on its own with --name"));
        }
        planned.push(Planned {
            path: path.clone(),
            name,
            size: meta.len(),
        });
    }
    Ok(planned)
}

/// Hashes the file, then streams it: `PUT {r}/releases/{tag}/files/{name}`.
fn upload(target: &Target, tag: &str, p: &Planned) -> Result<Uploaded> {
    let shown = p.path.display();
    let cannot_read =
        |e: std::io::Error| CommandError::user(format!("cannot read {shown}")).because(&e);
    let bar = super::progress(p.size, format!("hashing {}", p.name));
    let sha256 = super::sha256_file(&p.path, &bar).map_err(cannot_read)?;
    bar.finish_and_clear();
    let file = std::fs::File::open(&p.path).map_err(cannot_read)?;
    let bar = super::progress(p.size, format!("uploading {}", p.name));
    // A sized body sends Content-Length; the bytes are read from the file as they go.
    let body = Body::sized(bar.wrap_read(file), p.size);
    let session = &target.session;
    let request = session
        .request(Method::PUT, &super::file_path(target, tag, &p.name))?
        .timeout(super::TRANSFER_TIMEOUT)
        .header(CONTENT_TYPE, "application/octet-stream")
        .header("X-Svc-Sha256", &sha256)
        .body(body);
    let answer = session.answer(request);
    bar.finish_and_clear();
    let response = match answer? {
        Ok(response) => response,
        Err(refusal) => {
            let mut error = session.refusal(refusal);
            error.message = format!("{} was not uploaded: {}", p.name, error.message);
            if error.code.as_deref() == Some(ErrorCode::Sha256Mismatch.as_str()) {
                error = error.hint(format!("sent sha256 {sha256}"));
            }
            return Err(error);
        }
    };
    let replaced = response.status() == StatusCode::OK;
    let file: ReleaseFile = response.json().map_err(|e| session.garbled(&e))?;
    Ok(Uploaded { file, replaced })
}
