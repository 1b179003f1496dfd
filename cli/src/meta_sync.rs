//! Syncing a clone's `.svc/` with the monorepo's meta layer, for `svc sync` and the
//! daemon.
//!
//! The last synced state (the server's version and each file's SHA-256, with size and
//! mtime so unchanged files are not hashed again) is kept in `.svc/.sync-state`, which
//! is never synced. A file changed on one side only follows that side; a file changed
//! on both is saved against the last synced version, and when the server answers
//! `edited` the server's copy stays in place and the local one is kept next to it as
//! `<name>.conflict-<machine>-<date><ext>`: nothing is lost.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use reqwest::{Method, StatusCode};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use svc_protocol::ErrorCode;
use svc_protocol::meta::{BlobQuery, MetaChange, MetaFiles, MissingBlobs, SaveRequest, SaveResult};

use crate::client::Session;
use crate::config::write_atomic;
use crate::error::{CommandError, Result};

/// The state file, inside `.svc/`; names starting with `.sync-` are never synced.
const STATE_FILE: &str = ".sync-state";
const PRIVATE_PREFIX: &str = ".sync-";
/// Passes one sync makes at most (each save is followed by a check pass).
const PASSES: usize = 4;

/// What one sync did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Report {
    /// The meta layer's version now in `.svc/`.
    pub version: Option<String>,
    /// Local changes saved to the server (deletions included).
    pub saved: Vec<String>,
    /// Contents sent (the server lacked them).
    pub uploaded: usize,
    /// Files written from the server.
    pub downloaded: Vec<String>,
    /// Files removed because the server removed them.
    pub deleted: Vec<String>,
    /// Files already the same on both sides.
    pub unchanged: usize,
    /// Concurrent edits: the server's copy is at `path`, the local one at `copy`.
    pub conflicts: Vec<Conflict>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Conflict {
    pub path: String,
    /// The local edit, kept beside it (null when the local edit was a deletion).
    pub copy: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// The version `files` agree with.
    version: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, Known>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Known {
    sha256: String,
    size: u64,
    mtime_ns: u128,
}

/// Syncs `svc_dir` (a clone's `.svc/`) with the meta layer of `monorepo`
/// (`<owner>/<name>`) through `session`, saving as `machine`.
pub fn sync(session: &Session, monorepo: &str, svc_dir: &Path, machine: &str) -> Result<Report> {
    std::fs::create_dir_all(svc_dir)?;
    let m = format!("/v1/monorepos/{monorepo}");
    let state_path = svc_dir.join(STATE_FILE);
    let mut state: State = load_state(&state_path)?;
    let mut report = Report::default();
    let mut conflicted: BTreeSet<String> = BTreeSet::new();
    for _ in 0..PASSES {
        let remote: MetaFiles = session.get(&format!("{m}/meta/files"))?;
        let local = scan(svc_dir, &state)?;
        let remote_by: BTreeMap<&str, &str> = remote
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.sha256.as_str()))
            .collect();
        let paths: BTreeSet<String> = local
            .keys()
            .cloned()
            .chain(remote_by.keys().map(|p| (*p).to_owned()))
            .chain(state.files.keys().cloned())
            .collect();
        let mut changes: Vec<MetaChange> = Vec::new();
        let mut unchanged = 0;
        for path in &paths {
            let l = local.get(path).map(|k| k.sha256.as_str());
            let b = state.files.get(path).map(|k| k.sha256.as_str());
            let r = remote_by.get(path.as_str()).copied();
            if l == r {
                match local.get(path) {
                    Some(k) => state.files.insert(path.clone(), k.clone()),
                    None => state.files.remove(path),
                };
                unchanged += 1;
            } else if l == b {
                // Changed on the server only: follow it.
                match r {
                    Some(_) => {
                        let known = download(session, &m, &remote, svc_dir, path)?;
                        state.files.insert(path.clone(), known);
                        report.downloaded.push(path.clone());
                    }
                    None => {
                        remove_file(svc_dir, path)?;
                        state.files.remove(path);
                        report.deleted.push(path.clone());
                    }
                }
            } else {
                changes.push(MetaChange {
                    path: path.clone(),
                    sha256: l.map(str::to_owned),
                });
            }
        }
        report.unchanged = unchanged;
        if changes.is_empty() {
            state.version = remote.version.clone();
            report.version = remote.version;
            save_state(&state_path, &state)?;
            break;
        }
        report.uploaded += upload(session, &m, svc_dir, &changes)?;
        let request = SaveRequest {
            base: state.version.clone(),
            machine: Some(machine.to_owned()),
            changes: changes.clone(),
        };
        let answer = session.answer(
            session
                .request(Method::POST, &format!("{m}/meta/saves"))?
                .json(&request),
        )?;
        match answer {
            Ok(response) => {
                let saved: SaveResult = response.json().map_err(|e| session.garbled(&e))?;
                for change in &changes {
                    match local.get(&change.path) {
                        Some(k) => state.files.insert(change.path.clone(), k.clone()),
                        None => state.files.remove(&change.path),
                    };
                }
                report.saved.extend(saved.saved);
                save_state(&state_path, &state)?;
            }
            Err(refusal)
                if refusal.status == StatusCode::CONFLICT
                    && refusal
                        .error
                        .as_ref()
                        .is_some_and(|e| e.code == ErrorCode::Edited) =>
            {
                let paths = refusal.error.and_then(|e| e.paths).unwrap_or_default();
                let fresh: MetaFiles = session.get(&format!("{m}/meta/files"))?;
                for path in paths {
                    if !conflicted.insert(path.clone()) {
                        continue;
                    }
                    let copy = keep_local(svc_dir, &path, machine)?;
                    if fresh.files.iter().any(|f| f.path == path) {
                        let known = download(session, &m, &fresh, svc_dir, &path)?;
                        state.files.insert(path.clone(), known);
                    } else {
                        state.files.remove(&path);
                    }
                    report.conflicts.push(Conflict { path, copy });
                }
                save_state(&state_path, &state)?;
            }
            Err(refusal) => return Err(session.refusal(refusal)),
        }
    }
    Ok(report)
}

fn load_state(path: &Path) -> Result<State> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).unwrap_or_default()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State::default()),
        Err(e) => Err(e.into()),
    }
}

fn save_state(path: &Path, state: &State) -> Result<()> {
    let bytes = serde_json::to_vec(state)
        .map_err(|e| CommandError::internal("cannot encode the sync state").because(&e))?;
    write_atomic(path, &bytes, false)
}

/// Every synced file under `dir`, hashed unless size and mtime match the state.
fn scan(dir: &Path, state: &State) -> Result<BTreeMap<String, Known>> {
    let mut found = BTreeMap::new();
    let mut todo = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = todo.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(PRIVATE_PREFIX) || name == ".git" {
                continue;
            }
            let path = format!("{prefix}{name}");
            let kind = entry.file_type()?;
            if kind.is_dir() {
                todo.push((entry.path(), format!("{path}/")));
            } else if kind.is_file() {
                let known = match state.files.get(&path) {
                    Some(k) if stat(&entry.path())? == (k.size, k.mtime_ns) => k.clone(),
                    _ => hash_file(&entry.path())?,
                };
                found.insert(path, known);
            }
        }
    }
    Ok(found)
}

fn stat(path: &Path) -> Result<(u64, u128)> {
    let meta = std::fs::metadata(path)?;
    let mtime = meta
        .modified()?
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Ok((meta.len(), mtime))
}

fn hash_file(path: &Path) -> Result<Known> {
    let (size, mtime_ns) = stat(path)?;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut chunk = vec![0u8; 256 * 1024];
    loop {
        let n = std::io::Read::read(&mut file, &mut chunk)?;
        if n == 0 {
            break;
        }
        hasher.update(&chunk[..n]);
    }
    Ok(Known {
        sha256: hex(&hasher.finalize()),
        size,
        mtime_ns,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn local_path(dir: &Path, path: &str) -> Result<PathBuf> {
    if path
        .split('/')
        .any(|p| matches!(p, "" | "." | "..") || p.starts_with(PRIVATE_PREFIX))
    {
        return Err(CommandError::user(format!(
            "the server named a meta file {path:?} that cannot be written safely"
        )));
    }
    Ok(dir.join(path))
}

/// Sends the contents of `changes` the server lacks; answers how many were sent.
fn upload(session: &Session, m: &str, dir: &Path, changes: &[MetaChange]) -> Result<usize> {
    let wanted: Vec<String> = changes
        .iter()
        .filter_map(|c| c.sha256.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if wanted.is_empty() {
        return Ok(0);
    }
    let missing: MissingBlobs = session.call(
        session
            .request(Method::POST, &format!("{m}/meta/blobs/missing"))?
            .json(&BlobQuery { sha256: wanted }),
    )?;
    for sha in &missing.missing {
        let Some(change) = changes
            .iter()
            .find(|c| c.sha256.as_deref() == Some(sha.as_str()))
        else {
            continue;
        };
        let path = local_path(dir, &change.path)?;
        let file = std::fs::File::open(&path)?;
        let size = file.metadata()?.len();
        session.send(
            session
                .request(Method::PUT, &format!("{m}/meta/blobs/{sha}"))?
                .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
                .body(reqwest::blocking::Body::sized(file, size)),
        )?;
    }
    Ok(missing.missing.len())
}

/// Writes the server's `path` at `listing`'s version over the local one.
fn download(
    session: &Session,
    m: &str,
    listing: &MetaFiles,
    dir: &Path,
    path: &str,
) -> Result<Known> {
    let target = local_path(dir, path)?;
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let encoded: String =
        url::form_urlencoded::byte_serialize(format!(".svc/{path}").as_bytes()).collect();
    let at = listing
        .version
        .as_deref()
        .map(|v| format!("&ref={v}"))
        .unwrap_or_default();
    let mut response = session.send(session.request(
        Method::GET,
        &format!("{m}/repos/meta/file?path={encoded}{at}"),
    )?)?;
    let tmp = target.with_file_name(format!("{PRIVATE_PREFIX}tmp-{}", std::process::id()));
    {
        let mut file = std::fs::File::create(&tmp)?;
        response
            .copy_to(&mut file)
            .map_err(|e| session.unreachable(&e))?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, &target)?;
    hash_file(&target)
}

fn remove_file(dir: &Path, path: &str) -> Result<()> {
    let target = local_path(dir, path)?;
    match std::fs::remove_file(&target) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e.into()),
    }
    // Folders the deletion left empty go too, as git does.
    let mut folder = target.parent();
    while let Some(f) = folder.filter(|f| *f != dir) {
        if std::fs::remove_dir(f).is_err() {
            break;
        }
        folder = f.parent();
    }
    Ok(())
}

/// Moves the local `path` aside as `<stem>.conflict-<machine>-<date><ext>`.
fn keep_local(dir: &Path, path: &str, machine: &str) -> Result<Option<String>> {
    let target = local_path(dir, path)?;
    if !target.exists() {
        return Ok(None);
    }
    let (folder, name) = path.rsplit_once('/').map_or(("", path), |(f, n)| (f, n));
    let (stem, ext) = match name.rfind('.') {
        Some(i) if i > 0 => (&name[..i], &name[i..]),
        _ => (name, ""),
    };
    let machine: String = machine
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let date = time::OffsetDateTime::now_utc();
    let date = format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        date.year(),
        u8::from(date.month()),
        date.day(),
        date.hour(),
        date.minute(),
        date.second()
    );
    let mut copy_name = format!("{stem}.conflict-{machine}-{date}{ext}");
    let mut n = 2;
    let join = |n: &str| {
        if folder.is_empty() {
            n.to_owned()
        } else {
            format!("{folder}/{n}")
        }
    };
    while dir.join(join(&copy_name)).exists() {
        copy_name = format!("{stem}.conflict-{machine}-{date}-{n}{ext}");
        n += 1;
    }
    let copy = join(&copy_name);
    std::fs::rename(&target, dir.join(&copy))?;
    Ok(Some(copy))
}
