//! The door's ref advertisements answered in process, byte for byte what git sends: the
//! v0 advertisement of `upload-pack` and `receive-pack` (`GET info/refs`), protocol v2's
//! capability advertisement, and v2's `command=ls-refs`. Spawning git for these costs
//! more than everything else of a `git ls-remote`.
//!
//! The capability lists are not written here: they are learned once from the installed
//! git (run against a probe repository with the door's own `-c` settings), so the answer
//! follows git when it is upgraded. The refs are read with gix, and listed as git lists
//! them: sorted by name, dangling symbolic refs left out, annotated tags peeled.
//!
//! Only a repository whose configuration is the one the server writes at creation is
//! answered here: any other setting (`transfer.hideRefs`, say) could change what git
//! says, so such a repository, one with alternates and a shallow one go to git.

use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::objs::Kind;
use tokio::process::Command;

use super::pkt;

/// What git advertises, learned from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Learned {
    /// `upload-pack`'s v0 capabilities before and after the ` symref=HEAD:<target>` git
    /// puts among them when `HEAD` names a branch that exists.
    upload_before: BString,
    upload_after: BString,
    /// `receive-pack`'s v0 capabilities.
    receive: BString,
    /// The whole v2 capability advertisement, flush included.
    v2: Vec<u8>,
    /// Whether `ls-refs` takes `unborn` (git's `lsrefs.unborn`).
    unborn: bool,
    /// The configuration file of a new repository.
    config: Vec<u8>,
}

/// Where the probe's `HEAD` points: it must be unlike any capability text.
const PROBE_BRANCH: &str = "refs/heads/svc-door-probe";

static LEARNED: tokio::sync::OnceCell<Option<Learned>> = tokio::sync::OnceCell::const_new();

/// What git advertises, learned on first use; None when it could not be learned (logged),
/// and then the door asks git every time.
///
/// `git` makes the door's command for a service (`receive` or not) over a repository,
/// with an optional `GIT_PROTOCOL`.
pub async fn learned(
    scratch: &Path,
    git: impl Fn(bool, &Path, Option<&str>) -> Command,
) -> Option<&'static Learned> {
    LEARNED
        .get_or_init(|| async {
            match learn(scratch, git).await {
                Ok(learned) => Some(learned),
                Err(e) => {
                    tracing::error!(error = %e, "cannot learn git's advertisement; the door asks git");
                    None
                }
            }
        })
        .await
        .as_ref()
}

async fn learn(
    scratch: &Path,
    git: impl Fn(bool, &Path, Option<&str>) -> Command,
) -> Result<Learned, String> {
    let probe = scratch.join(format!(
        "door-probe-{}-{}.git",
        std::process::id(),
        crate::token::new_id("")
    ));
    let made = {
        let probe = probe.clone();
        tokio::task::spawn_blocking(move || make_probe(&probe))
            .await
            .map_err(|e| e.to_string())?
    };
    let learned = match made {
        Ok(config) => learn_from(&probe, config, git).await,
        Err(e) => Err(e),
    };
    let _ = tokio::fs::remove_dir_all(&probe).await;
    learned
}

/// A new repository whose `HEAD` names a branch that exists (on a blob: git checks
/// only that the object exists); answers its configuration.
fn make_probe(dir: &Path) -> Result<Vec<u8>, String> {
    if let Some(scratch) = dir.parent() {
        std::fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
    }
    let repo = super::read::Repo::init_bare(dir).map_err(|e| e.to_string())?;
    let id = repo
        .0
        .to_thread_local()
        .write_blob(b"svc door probe\n")
        .map_err(|e| e.to_string())?
        .detach();
    let write = |path: &str, text: String| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap_or(dir))?;
        std::fs::write(path, text)
    };
    write(PROBE_BRANCH, format!("{id}\n")).map_err(|e| e.to_string())?;
    write("HEAD", format!("ref: {PROBE_BRANCH}\n")).map_err(|e| e.to_string())?;
    std::fs::read(dir.join("config")).map_err(|e| e.to_string())
}

async fn learn_from(
    probe: &Path,
    config: Vec<u8>,
    git: impl Fn(bool, &Path, Option<&str>) -> Command,
) -> Result<Learned, String> {
    let run = |receive: bool, protocol: Option<&str>| {
        let mut cmd = git(receive, probe, protocol);
        cmd.arg("--http-backend-info-refs")
            .stdin(std::process::Stdio::null());
        async move {
            let out = cmd.output().await.map_err(|e| e.to_string())?;
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
            }
            Ok(out.stdout)
        }
    };
    let capabilities = |out: &[u8]| -> Result<BString, String> {
        let Some(Line::Data(first)) = frames(out).and_then(|f| f.into_iter().next()) else {
            return Err("no ref line".into());
        };
        let (_, caps) = first.split_once_str(b"\0").ok_or("no capabilities")?;
        Ok(chomp(caps).into())
    };
    let upload = capabilities(&run(false, None).await?)?;
    let symref = format!(" symref=HEAD:{PROBE_BRANCH}");
    let (before, after) = upload
        .split_once_str(&symref)
        .ok_or("no symref among upload-pack's capabilities")?;
    let receive = capabilities(&run(true, None).await?)?;
    let v2 = run(false, Some("version=2")).await?;
    let unborn = frames(&v2)
        .ok_or("bad v2 advertisement")?
        .iter()
        .any(|l| match l {
            Line::Data(l) => chomp(l)
                .strip_prefix(b"ls-refs=")
                .is_some_and(|f| f.split_str(" ").any(|f| f == b"unborn")),
            _ => false,
        });
    Ok(Learned {
        upload_before: before.into(),
        upload_after: after.into(),
        receive,
        v2,
        unborn,
        config,
    })
}

/// Which advertisement a `GET info/refs` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advertisement {
    UploadPack,
    ReceivePack,
    /// Protocol v2's capabilities (`upload-pack` only).
    V2,
}

/// The protocol version git serves for a `GIT_PROTOCOL` value: the highest `version=`.
pub fn protocol_version(protocol: Option<&str>) -> u8 {
    protocol
        .into_iter()
        .flat_map(|p| p.split(':'))
        .filter_map(|kv| kv.strip_prefix("version="))
        .filter_map(|v| v.parse::<u8>().ok())
        .filter(|v| *v <= 2)
        .max()
        .unwrap_or(0)
}

/// Whether this repository is answered here: its configuration is the one the server
/// writes, and it has no alternates and is not shallow.
fn plain(dir: &Path, learned: &Learned) -> bool {
    let objects = dir.join("objects").join("info");
    std::fs::read(dir.join("config")).is_ok_and(|c| c == learned.config)
        && !objects.join("alternates").exists()
        && !objects.join("http-alternates").exists()
        && !dir.join("shallow").exists()
}

/// The advertisement git would send (the body of its `--http-backend-info-refs`), or
/// None when git must be asked.
pub fn advertisement(
    repo: &gix::Repository,
    learned: &Learned,
    which: Advertisement,
) -> Option<Vec<u8>> {
    if which == Advertisement::V2 {
        return Some(learned.v2.clone());
    }
    if !plain(repo.git_dir(), learned) {
        return None;
    }
    let receive = which == Advertisement::ReceivePack;
    let mut lines: Vec<(Option<ObjectId>, ObjectId, BString)> = Vec::new();
    let mut symref = None;
    // HEAD first (upload-pack only), named in the capabilities when it is symbolic.
    if !receive
        && let Some(head) = resolve(repo, "HEAD")
        && let Some(id) = head.id
    {
        symref = head.target;
        lines.push((peel(repo, id), id, "HEAD".into()));
    }
    for r in refs(repo)? {
        lines.push((r.peeled, r.id, r.name));
    }
    let mut body = Vec::new();
    let caps = match (receive, symref) {
        (true, _) => learned.receive.clone(),
        (false, Some(target)) => {
            let mut caps = learned.upload_before.clone();
            caps.extend_from_slice(b" symref=HEAD:");
            caps.extend_from_slice(&target);
            caps.extend_from_slice(&learned.upload_after);
            caps
        }
        (false, None) => {
            let mut caps = learned.upload_before.clone();
            caps.extend_from_slice(&learned.upload_after);
            caps
        }
    };
    if lines.is_empty() {
        let line = format!("{} capabilities^{{}}\0", repo.object_hash().null());
        let mut line = line.into_bytes();
        line.extend_from_slice(&caps);
        line.push(b'\n');
        body.extend(pkt::line(&line));
    }
    for (i, (peeled, id, name)) in lines.into_iter().enumerate() {
        let mut line = format!("{id} ").into_bytes();
        line.extend_from_slice(&name);
        if i == 0 {
            line.push(0);
            line.extend_from_slice(&caps);
        }
        line.push(b'\n');
        body.extend(pkt::line(&line));
        if !receive && let Some(peeled) = peeled {
            let mut line = format!("{peeled} ").into_bytes();
            line.extend_from_slice(&name);
            line.extend_from_slice(b"^{}\n");
            body.extend(pkt::line(&line));
        }
    }
    body.extend_from_slice(pkt::FLUSH);
    Some(body)
}

/// [`advertisement`] of the repository at `dir`, off the async threads.
pub async fn advertise(
    dir: PathBuf,
    learned: &'static Learned,
    which: Advertisement,
) -> Option<Vec<u8>> {
    if which == Advertisement::V2 {
        return Some(learned.v2.clone());
    }
    tokio::task::spawn_blocking(move || {
        let repo = super::open_repos::open(&dir)
            .ok()?
            .shared()
            .to_thread_local();
        advertisement(&repo, learned, which)
    })
    .await
    .ok()?
}

/// git's answer to the v2 request `body` when it is an `ls-refs` answered here, off the
/// async threads.
pub async fn ls_refs(dir: PathBuf, learned: &'static Learned, body: &[u8]) -> Option<Vec<u8>> {
    let request = LsRefs::parse(body)?;
    tokio::task::spawn_blocking(move || {
        let repo = super::open_repos::open(&dir)
            .ok()?
            .shared()
            .to_thread_local();
        request.answer(&repo, learned)
    })
    .await
    .ok()?
}

/// A v2 `ls-refs` request's arguments.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LsRefs {
    peel: bool,
    symrefs: bool,
    unborn: bool,
    prefixes: Vec<BString>,
}

/// More `ref-prefix`es than this and git uses none (it lists every ref).
const TOO_MANY_PREFIXES: usize = 65536;

impl LsRefs {
    /// A v2 request body when it is a plain `ls-refs` git would take; None for anything
    /// else (a fetch, an unknown argument or capability), which goes to git.
    pub fn parse(body: &[u8]) -> Option<LsRefs> {
        let mut lines = frames(body)?.into_iter();
        match lines.next()? {
            Line::Data(command) if chomp(&command) == b"command=ls-refs" => {}
            _ => return None,
        }
        let mut request = LsRefs::default();
        loop {
            let line = lines.next()?;
            match line {
                Line::Delim => break,
                Line::Data(cap) => {
                    let cap = chomp(&cap);
                    let known = cap.starts_with(b"agent=")
                        || cap == b"object-format=sha1"
                        || cap.starts_with(b"server-option=");
                    if !known {
                        return None;
                    }
                }
                Line::Flush => return None,
            }
        }
        loop {
            match lines.next()? {
                Line::Flush => break,
                Line::Delim => return None,
                Line::Data(arg) => {
                    let arg = chomp(&arg);
                    match arg {
                        b"peel" => request.peel = true,
                        b"symrefs" => request.symrefs = true,
                        b"unborn" => request.unborn = true,
                        _ => {
                            let prefix = arg.strip_prefix(b"ref-prefix ")?;
                            if request.prefixes.len() < TOO_MANY_PREFIXES {
                                request.prefixes.push(prefix.into());
                            }
                        }
                    }
                }
            }
        }
        if lines.next().is_some() {
            return None;
        }
        if request.prefixes.len() >= TOO_MANY_PREFIXES {
            request.prefixes.clear();
        }
        Some(request)
    }

    /// git's answer, or None when git must be asked.
    pub fn answer(&self, repo: &gix::Repository, learned: &Learned) -> Option<Vec<u8>> {
        if !plain(repo.git_dir(), learned) {
            return None;
        }
        let unborn = self.unborn && learned.unborn;
        let wanted = |name: &[u8]| {
            self.prefixes.is_empty() || self.prefixes.iter().any(|p| name.starts_with(p))
        };
        let mut body = Vec::new();
        let mut line = |id: Option<ObjectId>, name: &[u8], target: Option<&[u8]>| {
            let mut text = match id {
                Some(id) => format!("{id} ").into_bytes(),
                None => b"unborn ".to_vec(),
            };
            text.extend_from_slice(name);
            if self.symrefs
                && let Some(target) = target
            {
                text.extend_from_slice(b" symref-target:");
                text.extend_from_slice(target);
            }
            if self.peel
                && let Some(peeled) = id.and_then(|id| peel(repo, id))
            {
                text.extend_from_slice(format!(" peeled:{peeled}").as_bytes());
            }
            text.push(b'\n');
            body.extend(pkt::line(&text));
        };
        if let Some(head) = resolve(repo, "HEAD")
            && wanted(b"HEAD")
            && (head.id.is_some() || (unborn && self.symrefs && head.target.is_some()))
        {
            line(
                head.id,
                b"HEAD",
                head.target.as_deref().map(|t| t.as_slice()),
            );
        }
        for r in refs(repo)? {
            if wanted(&r.name) {
                line(
                    Some(r.id),
                    &r.name,
                    r.target.as_deref().map(|t| t.as_slice()),
                );
            }
        }
        body.extend_from_slice(pkt::FLUSH);
        Some(body)
    }
}

/// A ref as git lists it.
struct Ref {
    name: BString,
    id: ObjectId,
    /// The final target of a symbolic ref.
    target: Option<BString>,
    /// What an annotated tag peels to.
    peeled: Option<ObjectId>,
}

/// Every ref under `refs/`, sorted by name (git's order), symbolic ones resolved (and
/// left out when their target is gone, as git does); None when the refs cannot be read.
fn refs(repo: &gix::Repository) -> Option<Vec<Ref>> {
    let platform = repo.references().ok()?;
    let mut found = Vec::new();
    for reference in platform.all().ok()? {
        // A ref git cannot read (a bad name or content) it skips too.
        let Ok(reference) = reference else {
            continue;
        };
        let inner = reference.inner;
        let name: BString = inner.name.as_bstr().into();
        if !name.starts_with(b"refs/") {
            continue;
        }
        let (id, target, packed_peel) = match inner.target {
            gix::refs::Target::Object(id) => (id, None, inner.peeled),
            gix::refs::Target::Symbolic(_) => {
                let Some(Resolved {
                    id: Some(id),
                    target,
                }) = resolve(repo, name.to_str().ok()?)
                else {
                    continue;
                };
                (id, target, None)
            }
        };
        // A ref whose object is missing is listed all the same (git 2.47 does), unpeeled.
        let peeled = match repo.try_find_header(id) {
            Ok(Some(header)) if header.kind() == Kind::Tag => {
                packed_peel.filter(|p| *p != id).or_else(|| peel(repo, id))
            }
            _ => None,
        };
        found.push(Ref {
            name,
            id,
            target,
            peeled,
        });
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Some(found)
}

/// A ref followed through symbolic refs: its final target's name (when it was symbolic)
/// and id (None when that target does not exist: an unborn branch).
struct Resolved {
    target: Option<BString>,
    id: Option<ObjectId>,
}

/// git's limit on symbolic refs pointing at symbolic refs.
const SYMREF_MAX_DEPTH: usize = 5;

fn resolve(repo: &gix::Repository, name: &str) -> Option<Resolved> {
    let mut current = repo.try_find_reference(name).ok()??.inner;
    let mut target = None;
    for _ in 0..=SYMREF_MAX_DEPTH {
        match current.target {
            gix::refs::Target::Object(id) => {
                return Some(Resolved {
                    target,
                    id: Some(id),
                });
            }
            gix::refs::Target::Symbolic(next) => {
                target = Some(next.as_bstr().to_owned());
                match repo.try_find_reference(next.as_ref()).ok()? {
                    Some(r) => current = r.inner,
                    None => return Some(Resolved { target, id: None }),
                }
            }
        }
    }
    None
}

/// What `id` peels to when it is an annotated tag (through tags of tags); None for any
/// other object, or a tag whose target is missing.
fn peel(repo: &gix::Repository, id: ObjectId) -> Option<ObjectId> {
    let mut current = id;
    let mut peeled = false;
    loop {
        let object = repo.try_find_object(current).ok()??;
        if object.kind != Kind::Tag {
            return peeled.then_some(current);
        }
        current = object.into_tag().target_id().ok()?.detach();
        peeled = true;
    }
}

/// One pkt-line.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    Data(Vec<u8>),
    Flush,
    Delim,
}

/// Every pkt-line of `body`; None when it is not pkt-lines through to the end.
fn frames(mut body: &[u8]) -> Option<Vec<Line>> {
    let mut lines = Vec::new();
    while !body.is_empty() {
        let (len, rest) = body.split_at_checked(4)?;
        let len = usize::from_str_radix(std::str::from_utf8(len).ok()?, 16).ok()?;
        lines.push(match len {
            0 => Line::Flush,
            1 => Line::Delim,
            2..=4 => return None,
            _ => {
                let (data, rest) = rest.split_at_checked(len - 4)?;
                body = rest;
                lines.push(Line::Data(data.to_vec()));
                continue;
            }
        });
        body = rest;
    }
    Some(lines)
}

/// A pkt-line's text without its newline (git reads them so).
fn chomp(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

#[cfg(test)]
mod tests;
