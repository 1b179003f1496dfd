//! `svc release download`.

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use indicatif::HumanBytes;
use reqwest::header::{CONTENT_RANGE, RANGE};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use svc_protocol::ErrorCode;
use svc_protocol::release::{Release, ReleaseFile};

use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs, Target};

/// Download a release's files, resuming where an earlier download stopped
///
/// Each file is written to <file>.part, which a later run goes on from, then checked
/// against the SHA-256 the server gives for it and renamed into place. A file that does
/// not match is kept as <file>.part and reported (exit 1).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The release's tag, or latest for the newest published release
    pub tag: String,
    /// The files to download [default: all the release's files]
    pub names: Vec<String>,
    /// The folder to download into [default: the current one]
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub dir: Option<PathBuf>,
    /// Write the one file to FILE
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// One downloaded file, as --json prints it.
#[derive(Debug, Serialize)]
struct Downloaded {
    name: String,
    path: String,
    size: u64,
    sha256: String,
    /// The bytes an earlier download had left in the .part file.
    resumed_at: u64,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let release = super::fetch(&target, &args.tag)?;
    let files = pick(&release, &args.names)?;
    if args.output.is_some() && files.len() != 1 {
        return Err(CommandError::user(format!(
            "-o writes one file, and {} has {}",
            release.tag,
            files.len()
        ))
        .hint("name the file: svc release download <tag> <name> -o FILE"));
    }
    if let Some(output) = args.output.as_ref().filter(|o| o.is_dir()) {
        return Err(
            CommandError::user(format!("-o {} is a folder", output.display()))
                .hint("-o names the file to write; --dir names a folder to download into"),
        );
    }
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    if args.output.is_none() {
        std::fs::create_dir_all(&dir).map_err(|e| {
            CommandError::user(format!("cannot make the folder {}", dir.display())).because(&e)
        })?;
    }
    let mut done = Vec::new();
    let mut mismatched = Vec::new();
    for file in files {
        super::check_name(&file.name)?;
        let dest = match &args.output {
            Some(output) => output.clone(),
            None => dir.join(&file.name),
        };
        match download(&target, &release.tag, file, &dest)? {
            Ok(downloaded) => done.push(downloaded),
            Err(mismatch) => mismatched.push(mismatch),
        }
    }
    print(global, &done, || {
        let mut text = String::new();
        for d in &done {
            text.push_str(&format!(
                "Downloaded {} ({}) to {}",
                d.name,
                HumanBytes(d.size),
                d.path
            ));
            if d.resumed_at > 0 {
                text.push_str(&format!(", resumed at {}", HumanBytes(d.resumed_at)));
            }
            text.push('\n');
        }
        text
    })?;
    match mismatched.len() {
        0 => Ok(()),
        1 => Err(mismatched.remove(0)),
        n => {
            let names: Vec<String> = mismatched.iter().map(|m| m.message.clone()).collect();
            Err(CommandError::user(format!(
                "{n} downloads do not match their SHA-256:\n  {}",
                names.join("\n  ")
            ))
            .code(ErrorCode::Sha256Mismatch.as_str())
            .hint("each is kept as its .part file; delete one to download it again"))
        }
    }
}

/// The release's files that `names` name, all of them when none are named.
fn pick<'a>(release: &'a Release, names: &[String]) -> Result<Vec<&'a ReleaseFile>> {
    if names.is_empty() {
        if release.files.is_empty() {
            return Err(CommandError::user(format!("{} has no files", release.tag))
                .hint("svc release upload adds some"));
        }
        return Ok(release.files.iter().collect());
    }
    let mut picked: Vec<&ReleaseFile> = Vec::new();
    for name in names {
        let file = release
            .files
            .iter()
            .find(|f| f.name == *name)
            .ok_or_else(|| {
                let held: Vec<&str> = release.files.iter().map(|f| f.name.as_str()).collect();
                let error = CommandError::user(format!("{} has no file {name}", release.tag))
                    .code(ErrorCode::NotFound.as_str());
                match held.as_slice() {
                    [] => error.hint("it has no files"),
                    held => error.hint(format!("its files: {}", held.join(", "))),
                }
            })?;
        if !picked.iter().any(|p| p.name == file.name) {
            picked.push(file);
        }
    }
    Ok(picked)
}

/// Downloads `file` to `dest` through `dest.part`; a finished download that does not
/// match its SHA-256 comes back as the inner error, its .part kept.
fn download(
    target: &Target,
    tag: &str,
    file: &ReleaseFile,
    dest: &Path,
) -> Result<Result<Downloaded, CommandError>> {
    let part = part_path(dest);
    let mut offset = match std::fs::metadata(&part) {
        Ok(meta) if meta.is_file() => meta.len(),
        Ok(_) => {
            return Err(CommandError::user(format!(
                "{} is in the way and not a file",
                part.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => return Err(e.into()),
    };
    if offset > file.size {
        offset = 0;
    }
    let mut resumed_at = offset;
    let mut server_sha = None;
    let partial = std::fs::metadata(&part).is_ok();
    // A .part as long as the file is a finished download an earlier run did not rename
    // (or found not to match): check it again rather than fetch it again.
    if !(partial && offset == file.size) {
        (resumed_at, server_sha) = stream(target, tag, file, &part, offset)?;
    }
    let bar = super::progress(file.size, format!("checking {}", file.name));
    let got = super::sha256_file(&part, &bar)?;
    bar.finish_and_clear();
    let mut expected = vec![file.sha256.to_ascii_lowercase()];
    if let Some(sha) = server_sha.filter(|s| !expected.contains(s)) {
        expected.push(sha);
    }
    if expected.iter().any(|e| *e != got) {
        let wanted = match expected.as_slice() {
            [listed, sent] => format!("not {listed} as listed nor {sent} as the server sent"),
            _ => format!("not {}", file.sha256),
        };
        return Ok(Err(CommandError::user(format!(
            "{}: the download's SHA-256 is {got}, {wanted}",
            file.name
        ))
        .code(ErrorCode::Sha256Mismatch.as_str())
        .hint(format!(
            "{} is kept; delete it to download the file again",
            part.display()
        ))));
    }
    std::fs::rename(&part, dest).map_err(|e| {
        CommandError::internal(format!(
            "cannot move {} to {}",
            part.display(),
            dest.display()
        ))
        .because(&e)
    })?;
    Ok(Ok(Downloaded {
        name: file.name.clone(),
        path: dest.display().to_string(),
        size: file.size,
        sha256: got,
        resumed_at,
    }))
}

/// Streams the file into `part` from `offset` on (`Range: bytes=<offset>-`, answered 206;
/// a 200 starts over); answers where it went on from and the server's `X-Svc-Sha256`.
fn stream(
    target: &Target,
    tag: &str,
    file: &ReleaseFile,
    part: &Path,
    mut offset: u64,
) -> Result<(u64, Option<String>)> {
    let session = &target.session;
    let path = super::file_path(target, tag, &file.name);
    let mut response = loop {
        let mut request = session
            .request(Method::GET, &path)?
            .timeout(super::TRANSFER_TIMEOUT);
        if offset > 0 {
            request = request.header(RANGE, format!("bytes={offset}-"));
        }
        match session.answer(request)? {
            Ok(response) => break response,
            // The .part is longer than what the server holds now: start over.
            Err(refusal) if refusal.status == StatusCode::RANGE_NOT_SATISFIABLE && offset > 0 => {
                offset = 0;
            }
            Err(refusal) => {
                let mut error = session.refusal(refusal);
                error.message = format!("{} was not downloaded: {}", file.name, error.message);
                return Err(error);
            }
        }
    };
    if response.status() == StatusCode::PARTIAL_CONTENT {
        let range = response
            .headers()
            .get(CONTENT_RANGE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if !range.starts_with(&format!("bytes {offset}-")) {
            return Err(CommandError::network(format!(
                "{} answered the range {range:?} to a request for bytes {offset}-",
                session.server
            )));
        }
    } else {
        offset = 0;
    }
    let server_sha = response
        .headers()
        .get("X-Svc-Sha256")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase());
    let mut out = OpenOptions::new()
        .create(true)
        .write(true)
        .append(offset > 0)
        .truncate(offset == 0)
        .open(part)
        .map_err(|e| CommandError::user(format!("cannot write {}", part.display())).because(&e))?;
    let bar = super::progress(file.size, file.name.clone());
    bar.set_position(offset);
    let mut chunk = vec![0u8; 256 * 1024];
    loop {
        let n = match response.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                bar.abandon();
                return Err(CommandError::network(format!(
                    "the download of {} broke off",
                    file.name
                ))
                .because(&e)
                .hint(format!(
                    "run the command again: it goes on from {}",
                    part.display()
                )));
            }
        };
        out.write_all(&chunk[..n]).map_err(|e| {
            CommandError::internal(format!("cannot write {}", part.display())).because(&e)
        })?;
        bar.inc(n as u64);
    }
    out.flush()?;
    bar.finish_and_clear();
    Ok((offset, server_sha))
}

/// `<dest>.part`, beside it.
fn part_path(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().map(OsString::from).unwrap_or_default();
    name.push(".part");
    dest.with_file_name(name)
}
