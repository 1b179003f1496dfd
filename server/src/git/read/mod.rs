//! Reading code: trees, files, history, last commits and commits.
//!
//! Pure synchronous reads of a bare repository with gix; call them from
//! `spawn_blocking`. [`Repo`] is cheap to clone and to share between threads: every
//! call takes its own thread-local handle, with its own caches, for its duration.
//!
//! Paths are repo-relative with `/` and no leading slash; `""` and `"."` are the root,
//! and one trailing `/` is allowed. History and last commits follow first parents only:
//! a commit changed a path when the path's entry (kind and id) differs from its first
//! parent's, a root commit changes every path it has, and renames are not followed.

use std::path::Path;
use std::time::{Duration, Instant};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind;
use gix::objs::{CommitRef, CommitRefIter, Find, Kind, TreeRefIter};
use svc_protocol::code;

pub(crate) mod walk;

pub use walk::LastCommitsWalk;

/// Commits a history or last-commit walk looks at from its ref, in total across pages.
pub const WALK_CAP: usize = 10_000;

/// Delta bases kept by one call's handle: the trees of neighbouring commits are deltas
/// of each other, and without it a walk inflates the same bases over and over (twice
/// the time on a 50,000-commit repository). There is no object cache: a walk keeps what
/// it needs and never reads an object twice, so one only added copies (measured).
const PACK_CACHE_BYTES: usize = 8 * 1024 * 1024;

/// Why a read failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An unknown commit or path, or a path of the wrong kind (a file where a folder is
    /// wanted, or the reverse): answer 404.
    #[error("{0} not found")]
    NotFound(String),
    /// A `cursor` or `next` this module did not hand out: answer 400. It does not carry
    /// the cursor, so no message can echo what a caller sent.
    #[error("bad cursor")]
    BadCursor,
    /// The repository could not be read.
    #[error("git: {0}")]
    Git(String),
}

/// Wraps a gix failure with its causes, which gix keeps out of `Display`.
pub(crate) fn git(err: impl std::error::Error) -> Error {
    Error::Git(error_chain(err))
}

/// A failure's message followed by those of its causes, which gix keeps out of `Display`.
pub(crate) fn error_chain(err: impl std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// Bounds the work of one call of a walk, so that a request answers in time and a
/// background task can take the rest in slices.
///
/// A walk looks at one commit at a time (it reads the commit and, when the path's
/// tree differs from the child's, the trees along the path). It stops before the next
/// commit once it has looked at `commits` commits in this call, or once `time` has
/// passed since the call began. It always stops at [`WALK_CAP`] commits from the ref,
/// whatever the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub commits: usize,
    pub time: Option<Duration>,
}

impl Budget {
    /// Walk until done (or the cap).
    pub const UNLIMITED: Budget = Budget {
        commits: usize::MAX,
        time: None,
    };
    /// One `getHistory` call ([`Repo::history`]).
    pub const HISTORY: Budget = Budget {
        commits: 2_000,
        time: Some(Duration::from_millis(100)),
    };
    /// One `getLastCommits` request before it answers `complete: false` (the specification's
    /// "about 40 storage reads"); a background task can then go on with
    /// [`Budget::UNLIMITED`].
    pub const LAST_COMMITS: Budget = Budget {
        commits: 1_000,
        time: Some(Duration::from_millis(50)),
    };

    /// At most `n` commits, no time bound.
    pub const fn commits(n: usize) -> Budget {
        Budget {
            commits: n,
            time: None,
        }
    }

    /// The same, also bounded by `time`.
    pub const fn with_time(self, time: Duration) -> Budget {
        Budget {
            commits: self.commits,
            time: Some(time),
        }
    }

    fn start(self) -> Meter {
        Meter {
            left: self.commits,
            deadline: self.time.and_then(|t| Instant::now().checked_add(t)),
        }
    }
}

/// A budget being spent.
struct Meter {
    left: usize,
    deadline: Option<Instant>,
}

impl Meter {
    /// Takes one commit from the budget; false when it is spent.
    fn take(&mut self) -> bool {
        if self.left == 0 || self.deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        self.left -= 1;
        true
    }
}

/// A bare repository on disk. Clones share the object store (open packs, indexes).
#[derive(Clone)]
pub struct Repo(pub(crate) gix::ThreadSafeRepository);

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Repo").field(&self.0.git_dir()).finish()
    }
}

/// Reads only the repository's own configuration: a server's answers must not depend
/// on the configuration or environment of the account it runs as.
fn open_options() -> gix::open::Options {
    gix::open::Options::isolated().config_overrides(["init.defaultBranch=main"])
}

impl Repo {
    /// Opens the bare repository at `path`.
    pub fn open(path: &Path) -> Result<Repo, Error> {
        gix::ThreadSafeRepository::open_opts(path, open_options())
            .map(Repo)
            .map_err(git)
    }

    /// Creates an empty bare repository at `path` whose `HEAD` is `refs/heads/main`.
    pub fn init_bare(path: &Path) -> Result<Repo, Error> {
        gix::ThreadSafeRepository::init_opts(
            path,
            gix::create::Kind::Bare,
            gix::create::Options::default(),
            open_options(),
        )
        .map(Repo)
        .map_err(git)
    }

    /// The shared repository, for the diff engine's own readers.
    pub(crate) fn shared(&self) -> &gix::ThreadSafeRepository {
        &self.0
    }

    fn reader(&self) -> Reader {
        Reader::new(&self.0)
    }

    /// The commit named by `sha` (40 hex digits, any case); None when `sha` is not
    /// such a string, or names no object, or an object that is not a commit.
    pub fn commit_exists(&self, sha: &str) -> Result<Option<ObjectId>, Error> {
        let Some(id) = parse_sha(sha) else {
            return Ok(None);
        };
        let repo = self.0.to_thread_local();
        let header = repo.try_find_header(id).map_err(git)?;
        Ok(header.filter(|h| h.kind() == Kind::Commit).map(|_| id))
    }

    /// Every `refs/heads/*` with the id it points to, by name. The names lack
    /// `refs/heads/`; a symbolic branch shows its target's id.
    pub fn branch_heads(&self) -> Result<Vec<(String, ObjectId)>, Error> {
        let repo = self.0.to_thread_local();
        let mut heads = Vec::new();
        let mut symbolic = Vec::new();
        let platform = repo.references().map_err(git)?;
        for reference in platform.local_branches().map_err(git)? {
            let reference = reference.map_err(git)?;
            let name = reference.name().shorten().to_str_lossy().into_owned();
            match reference.try_id() {
                Some(id) => heads.push((name, id.detach())),
                // The iterator holds the packed refs; follow these once it is done.
                None => symbolic.push((name, reference.name().to_owned())),
            }
        }
        for (name, full) in symbolic {
            // A symbolic branch whose target is gone has no head: leave it out.
            let target = repo
                .try_find_reference(&full)
                .map_err(git)?
                .and_then(|r| r.into_fully_peeled_id().ok());
            if let Some(id) = target {
                heads.push((name, id.detach()));
            }
        }
        heads.sort();
        Ok(heads)
    }

    /// The first-parent chain from `tip` (main's history as merges made it), newest
    /// first, ending before `stop` or after `cap` commits.
    pub fn first_parents(
        &self,
        tip: ObjectId,
        stop: Option<ObjectId>,
        cap: usize,
    ) -> Result<Vec<ObjectId>, Error> {
        let repo = self.0.to_thread_local();
        let mut chain = Vec::new();
        let mut next = Some(tip);
        while let Some(id) = next {
            if Some(id) == stop || chain.len() >= cap {
                break;
            }
            chain.push(id);
            let commit = repo.find_commit(id).map_err(git)?;
            next = commit.parent_ids().next().map(|p| p.detach());
        }
        Ok(chain)
    }

    /// Every `refs/tags/*` with the commit it names (annotated tags peeled); a tag of
    /// something other than a commit is left out.
    pub fn tags(&self) -> Result<Vec<(String, ObjectId)>, Error> {
        let repo = self.0.to_thread_local();
        let mut found = Vec::new();
        let platform = repo.references().map_err(git)?;
        for reference in platform.tags().map_err(git)? {
            let mut reference = reference.map_err(git)?;
            let name = reference.name().shorten().to_str_lossy().into_owned();
            let Ok(object) = reference.peel_to_id() else {
                continue;
            };
            let Ok(object) = object.object() else {
                continue;
            };
            let Ok(commit) = object.peel_to_kind(gix::object::Kind::Commit) else {
                continue;
            };
            found.push((name, commit.id));
        }
        found.sort();
        Ok(found)
    }

    /// One page of the folder at `path` in `commit`: folders first, then by name,
    /// at most `limit` entries (at least one) after `cursor`.
    pub fn tree(
        &self,
        commit: ObjectId,
        path: &str,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<code::TreePage, Error> {
        let path = RepoPath::parse(path)?;
        let after = cursor.map(parse_tree_cursor).transpose()?;
        let mut reader = self.reader();
        let folder = reader.folder(commit, &path)?;
        let mut entries = reader.entries(folder)?;
        sort_entries(&mut entries);
        let start = match &after {
            Some(after) => entries.partition_point(|e| e.sort_key() <= (after.0, &after.1[..])),
            None => 0,
        };
        let end = start.saturating_add(limit.max(1)).min(entries.len());
        let next_cursor = (end < entries.len())
            .then(|| entries.get(end - 1).map(tree_cursor))
            .flatten();
        let items = entries
            .get(start..end)
            .unwrap_or_default()
            .iter()
            .map(|e| code::TreeEntry {
                name: e.name.to_str_lossy().into_owned(),
                path: path.join(&e.name),
                kind: entry_type(e.kind),
                mode: mode_string(e.kind),
                sha: e.id.to_string(),
            })
            .collect();
        Ok(code::TreePage {
            commit: commit.to_string(),
            path: path.text,
            items,
            next_cursor,
        })
    }

    /// The bytes of the file at `path` in `commit`, with its blob id (for an `ETag`).
    /// A symbolic link's bytes are its target.
    pub fn file(&self, commit: ObjectId, path: &str) -> Result<(ObjectId, Vec<u8>), Error> {
        let path = RepoPath::parse(path)?;
        let mut reader = self.reader();
        let root = reader.commit_links(commit)?.tree;
        let chain = reader.resolve(root, &path.parts, &[])?;
        let target = chain
            .last()
            .copied()
            .flatten()
            .filter(|t| !path.parts.is_empty() && t.is_file())
            .ok_or_else(|| Error::NotFound(format!("file {:?}", path.text)))?;
        let data = reader
            .find(&target.id, Kind::Blob)?
            .ok_or_else(|| Error::Git(format!("blob {} is missing", target.id)))?;
        Ok((target.id, data.to_vec()))
    }

    /// One commit, with its trailers parsed. `merged_branch` is left for the caller.
    pub fn commit(&self, sha: ObjectId) -> Result<code::Commit, Error> {
        let mut reader = self.reader();
        let hash = reader.hash;
        let data = reader
            .find(&sha, Kind::Commit)?
            .ok_or_else(|| Error::NotFound(format!("commit {sha}")))?;
        to_commit(sha, data, hash)
    }

    /// One page of the commits that changed `path` (file or folder; the root: every
    /// commit) from `commit`, newest first, first-parent order.
    ///
    /// A page stops at `limit` commits (at least one), at the end of history, at
    /// [`WALK_CAP`] commits from `commit` (`capped`), or when [`Budget::HISTORY`] is spent
    /// (`complete_page: false`). `next` continues from where the last page stopped; the
    /// walk then goes on from the commit in the cursor and `commit` is not read again,
    /// so a ref that moved between pages does not disturb it.
    pub fn history(
        &self,
        commit: ObjectId,
        path: &str,
        limit: usize,
        next: Option<&str>,
    ) -> Result<code::HistoryPage, Error> {
        walk::history(self, commit, path, limit, next, Budget::HISTORY, WALK_CAP)
    }

    /// The last commit that changed each entry of the folder at `folder`, found in one
    /// first-parent walk from `commit` that spends at most `budget`.
    ///
    /// When the budget runs out the answer has `complete: false`; use
    /// [`LastCommitsWalk`] to keep the walk and go on with it later.
    pub fn last_commits(
        &self,
        commit: ObjectId,
        folder: &str,
        budget: Budget,
    ) -> Result<code::LastCommits, Error> {
        let mut walk = LastCommitsWalk::new(self, commit, folder)?;
        walk.step(budget)?;
        Ok(walk.answer())
    }
}

/// `sha` as an object id when it is exactly 40 hex digits.
fn parse_sha(sha: &str) -> Option<ObjectId> {
    if sha.len() != 40 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    ObjectId::from_hex(sha.as_bytes()).ok()
}

/// A validated path: its canonical text (`""` for the root) and its components.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RepoPath {
    text: String,
    parts: Vec<Vec<u8>>,
}

impl RepoPath {
    fn parse(path: &str) -> Result<RepoPath, Error> {
        let trimmed = path.strip_suffix('/').unwrap_or(path);
        if trimmed.is_empty() || trimmed == "." {
            return Ok(RepoPath {
                text: String::new(),
                parts: Vec::new(),
            });
        }
        let parts: Vec<Vec<u8>> = trimmed.split('/').map(|p| p.as_bytes().to_vec()).collect();
        // No tree holds such names: the path cannot exist.
        if parts
            .iter()
            .any(|p| p.is_empty() || p == b"." || p == b"..")
        {
            return Err(Error::NotFound(format!("path {path:?}")));
        }
        Ok(RepoPath {
            text: trimmed.to_owned(),
            parts,
        })
    }

    /// The path of the entry `name` in this folder.
    fn join(&self, name: &[u8]) -> String {
        let name = name.to_str_lossy();
        if self.text.is_empty() {
            name.into_owned()
        } else {
            format!("{}/{}", self.text, name)
        }
    }
}

/// A tree entry's kind and id, as far as changes are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Target {
    kind: EntryKind,
    id: ObjectId,
}

impl Target {
    fn tree(id: ObjectId) -> Target {
        Target {
            kind: EntryKind::Tree,
            id,
        }
    }

    fn is_file(&self) -> bool {
        matches!(
            self.kind,
            EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link
        )
    }
}

/// The entries along a path at one commit: the root tree, then the entry of each
/// component, `None` from the first component that is missing (or below a non-folder).
type Chain = Vec<Option<Target>>;

/// An owned folder entry.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: Vec<u8>,
    kind: EntryKind,
    id: ObjectId,
}

impl Entry {
    /// Folders first, then by name.
    fn sort_key(&self) -> (bool, &[u8]) {
        (self.kind != EntryKind::Tree, &self.name)
    }
}

fn sort_entries(entries: &mut [Entry]) {
    entries.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}

/// Opaque tree cursor: the last entry's sort key, `0` (folder) or `1` and the name in hex.
fn tree_cursor(entry: &Entry) -> String {
    let kind = if entry.kind == EntryKind::Tree {
        '0'
    } else {
        '1'
    };
    format!("{kind}{}", hex::encode(&entry.name))
}

pub fn parse_tree_cursor(cursor: &str) -> Result<(bool, Vec<u8>), Error> {
    let bad = || Error::BadCursor;
    let (kind, name) = match cursor.split_at_checked(1) {
        Some(("0", name)) => (false, name),
        Some(("1", name)) => (true, name),
        _ => return Err(bad()),
    };
    Ok((kind, hex::decode(name).map_err(|_| bad())?))
}

fn entry_type(kind: EntryKind) -> code::EntryType {
    match kind {
        EntryKind::Tree => code::EntryType::Tree,
        EntryKind::Blob | EntryKind::BlobExecutable => code::EntryType::Blob,
        EntryKind::Link => code::EntryType::Symlink,
        EntryKind::Commit => code::EntryType::Commit,
    }
}

/// The mode as `git ls-tree` prints it: six octal digits, canonical like git's.
fn mode_string(kind: EntryKind) -> String {
    format!("{:06o}", kind as u16)
}

/// A commit's tree and first parent, all a walk needs of it.
struct Links {
    tree: ObjectId,
    first_parent: Option<ObjectId>,
}

fn links(data: &[u8], hash: gix::hash::Kind) -> Result<Links, Error> {
    let mut iter = CommitRefIter::from_bytes(data, hash);
    let tree = iter.tree_id().map_err(git)?;
    let first_parent = iter.parent_ids().next();
    Ok(Links { tree, first_parent })
}

/// One call's access to objects: a thread-local handle and a reused buffer.
pub(crate) struct Reader {
    pub(crate) repo: gix::Repository,
    pub(crate) hash: gix::hash::Kind,
    buf: Vec<u8>,
}

impl Reader {
    pub(crate) fn new(repo: &gix::ThreadSafeRepository) -> Reader {
        let mut repo = repo.to_thread_local();
        repo.objects.set_pack_cache(|| {
            Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(
                PACK_CACHE_BYTES,
            ))
        });
        let hash = repo.object_hash();
        Reader {
            repo,
            hash,
            buf: Vec::new(),
        }
    }

    /// The bytes of object `id` when it exists and is of `kind`. The empty tree need
    /// not be stored.
    pub(crate) fn find(&mut self, id: &ObjectId, kind: Kind) -> Result<Option<&[u8]>, Error> {
        if kind == Kind::Tree && id.is_empty_tree() {
            return Ok(Some(&[]));
        }
        match self.repo.objects.try_find(id, &mut self.buf).map_err(git)? {
            Some(data) if data.kind == kind => Ok(Some(data.data)),
            _ => Ok(None),
        }
    }

    fn commit_links(&mut self, commit: ObjectId) -> Result<Links, Error> {
        let hash = self.hash;
        let data = self
            .find(&commit, Kind::Commit)?
            .ok_or_else(|| Error::NotFound(format!("commit {commit}")))?;
        links(data, hash)
    }

    /// The tree `id`, which a commit or tree names and so must exist.
    fn tree(&mut self, id: &ObjectId) -> Result<TreeRefIter<'_>, Error> {
        let hash = self.hash;
        let data = self
            .find(id, Kind::Tree)?
            .ok_or_else(|| Error::Git(format!("tree {id} is missing")))?;
        Ok(TreeRefIter::from_bytes(data, hash))
    }

    /// The entry `name` of the tree `id`.
    fn entry(&mut self, id: &ObjectId, name: &[u8]) -> Result<Option<Target>, Error> {
        for entry in self.tree(id)? {
            let entry = entry.map_err(git)?;
            if entry.filename.as_bytes() == name {
                return Ok(Some(Target {
                    kind: entry.mode.kind(),
                    id: entry.oid.to_owned(),
                }));
            }
        }
        Ok(None)
    }

    /// Every entry of the tree `id`, in git's order.
    fn entries(&mut self, id: ObjectId) -> Result<Vec<Entry>, Error> {
        self.tree(&id)?
            .map(|entry| {
                let entry = entry.map_err(git)?;
                Ok(Entry {
                    name: entry.filename.to_vec(),
                    kind: entry.mode.kind(),
                    id: entry.oid.to_owned(),
                })
            })
            .collect()
    }

    /// The entries along `parts` below the tree `root`. Where an entry equals the one
    /// in `known` (the same path at a neighbouring commit), everything below it does too,
    /// so the rest is copied instead of read.
    fn resolve(
        &mut self,
        root: ObjectId,
        parts: &[Vec<u8>],
        known: &[Option<Target>],
    ) -> Result<Chain, Error> {
        let mut chain = Vec::with_capacity(parts.len() + 1);
        let mut current = Some(Target::tree(root));
        chain.push(current);
        for (depth, name) in parts.iter().enumerate() {
            if known.len() == parts.len() + 1 && known.get(depth) == Some(&current) {
                chain.extend_from_slice(known.get(depth + 1..).unwrap_or_default());
                return Ok(chain);
            }
            current = match current {
                Some(t) if t.kind == EntryKind::Tree => self.entry(&t.id, name)?,
                _ => None,
            };
            chain.push(current);
        }
        Ok(chain)
    }

    /// The tree of the folder `path` in `commit`; NotFound when it is not a folder.
    fn folder(&mut self, commit: ObjectId, path: &RepoPath) -> Result<ObjectId, Error> {
        let root = self.commit_links(commit)?.tree;
        let chain = self.resolve(root, &path.parts, &[])?;
        match chain.last().copied().flatten() {
            Some(t) if t.kind == EntryKind::Tree => Ok(t.id),
            _ => Err(Error::NotFound(format!("folder {:?}", path.text))),
        }
    }
}

/// The wire form of the commit `id` whose bytes are `data`.
pub(crate) fn to_commit(
    id: ObjectId,
    data: &[u8],
    hash: gix::hash::Kind,
) -> Result<code::Commit, Error> {
    let commit = CommitRef::from_bytes(data, hash).map_err(git)?;
    let message = commit.message.to_str_lossy();
    let message = message.trim_end();
    Ok(code::Commit {
        sha: id.to_string(),
        parents: commit.parents().map(|p| p.to_string()).collect(),
        title: message.lines().next().unwrap_or_default().to_owned(),
        trailers: parse_trailers(message),
        message: message.to_owned(),
        author: signature(commit.author().map_err(git)?),
        committer: signature(commit.committer().map_err(git)?),
        merged_branch: None,
    })
}

fn signature(sig: gix::actor::SignatureRef<'_>) -> code::Signature {
    let seconds = sig.time().map(|t| t.seconds).unwrap_or_default();
    code::Signature {
        name: sig.name.to_str_lossy().into_owned(),
        email: sig.email.to_str_lossy().into_owned(),
        date: time::OffsetDateTime::from_unix_timestamp(seconds)
            .unwrap_or(time::OffsetDateTime::UNIX_EPOCH),
    }
}

/// The `Svc-Agent`, `Svc-Worktree` and `Svc-Machine` trailers of a commit message.
///
/// Like git, only the last paragraph holds trailers, and never the first (the title).
/// Keys match without case; values are trimmed, an empty one counts as absent, and the
/// last of a repeated key wins.
pub fn parse_trailers(message: &str) -> code::Trailers {
    let mut paragraphs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in message.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    let mut trailers = code::Trailers::default();
    let Some(last) = paragraphs.get(1..).and_then(|rest| rest.last()) else {
        return trailers;
    };
    for line in last {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let slot = match key.to_ascii_lowercase().as_str() {
            "svc-agent" => &mut trailers.agent,
            "svc-worktree" => &mut trailers.worktree,
            "svc-machine" => &mut trailers.machine,
            _ => continue,
        };
        let value = value.trim();
        *slot = (!value.is_empty()).then(|| value.to_owned());
    }
    trailers
}

#[cfg(test)]
pub(crate) mod fixture;

#[cfg(test)]
mod tests {
    use super::fixture::{git_in, git_text, standard};
    use super::*;

    /// `git ls-tree` of the folder `path` at `sha`: (mode, type, sha, name), git's order.
    fn ls_tree(bare: &Path, sha: &str, path: &str) -> Vec<(String, String, String, Vec<u8>)> {
        let spec = format!("{sha}:{path}");
        git_in(bare, &["ls-tree", "-z", &spec])
            .split(|b| *b == 0)
            .filter(|line| !line.is_empty())
            .map(|line| {
                let tab = line.iter().position(|b| *b == b'\t').expect("tab");
                let head = std::str::from_utf8(&line[..tab]).expect("utf-8");
                let mut fields = head.split(' ').map(str::to_owned);
                let mut next = || fields.next().expect("field");
                (next(), next(), next(), line[tab + 1..].to_vec())
            })
            .collect()
    }

    /// Every folder at `sha` (the root as `""`), as `git ls-tree -r -t` lists them.
    fn folders(bare: &Path, sha: &str) -> Vec<String> {
        let mut out = vec![String::new()];
        for line in git_text(bare, &["ls-tree", "-r", "-t", sha]).lines() {
            let (head, path) = line.split_once('\t').expect("tab");
            if head.split(' ').nth(1) == Some("tree") {
                out.push(path.to_owned());
            }
        }
        out
    }

    fn all_pages(repo: &Repo, commit: ObjectId, path: &str, limit: usize) -> Vec<code::TreeEntry> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = repo
                .tree(commit, path, cursor.as_deref(), limit)
                .expect("tree");
            assert!(page.items.len() <= limit.max(1));
            assert_eq!(page.commit, commit.to_string());
            items.extend(page.items);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return items,
            }
        }
    }

    #[test]
    fn tree_matches_ls_tree_in_every_folder_of_every_commit() {
        let f = standard();
        let (bare, repo) = f.bare();
        let shas = git_text(&bare, &["rev-list", "--all"]);
        for sha in shas.lines() {
            let commit = ObjectId::from_hex(sha.as_bytes()).expect("sha");
            for folder in folders(&bare, sha) {
                let mut want = ls_tree(&bare, sha, &folder);
                want.sort_by(|a, b| (a.1 != "tree", &a.3).cmp(&(b.1 != "tree", &b.3)));
                let got = all_pages(&repo, commit, &folder, 1_000);
                assert_eq!(got.len(), want.len(), "{sha}:{folder}");
                for (got, (mode, kind, id, name)) in got.iter().zip(&want) {
                    assert_eq!(got.name.as_bytes(), name.as_slice());
                    let path = if folder.is_empty() {
                        got.name.clone()
                    } else {
                        format!("{folder}/{}", got.name)
                    };
                    assert_eq!(got.path, path);
                    assert_eq!(&got.mode, mode, "{path}");
                    assert_eq!(&got.sha, id, "{path}");
                    let want_kind = match (kind.as_str(), mode.as_str()) {
                        ("tree", _) => code::EntryType::Tree,
                        ("commit", _) => code::EntryType::Commit,
                        ("blob", "120000") => code::EntryType::Symlink,
                        ("blob", _) => code::EntryType::Blob,
                        other => panic!("unexpected {other:?}"),
                    };
                    assert_eq!(got.kind, want_kind, "{path}");
                }
            }
        }
    }

    #[test]
    fn tree_kinds_modes_and_paths() {
        let f = standard();
        let (_, repo) = f.bare();
        let head = repo
            .commit_exists(&f.git(&["rev-parse", "main"]))
            .unwrap()
            .unwrap();
        let root = repo.tree(head, ".", None, 1_000).unwrap();
        assert_eq!(root.path, "");
        let by_name = |name: &str| root.items.iter().find(|e| e.name == name).unwrap();
        assert_eq!(by_name("link").kind, code::EntryType::Symlink);
        assert_eq!(by_name("link").mode, "120000");
        assert_eq!(by_name("src").kind, code::EntryType::Tree);
        assert_eq!(by_name("src").mode, "040000");
        assert_eq!(by_name("bin.dat").mode, "100644");
        // Folders first, then files, each by name.
        let names: Vec<&str> = root.items.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "a",
                "docs",
                "many",
                "scripts",
                "src",
                "thing",
                "vendor",
                "README.md",
                "bin.dat",
                "link"
            ]
        );
        let scripts = repo.tree(head, "scripts/", None, 1_000).unwrap();
        assert_eq!(scripts.path, "scripts");
        assert_eq!(scripts.items[0].path, "scripts/run.sh");
        assert_eq!(scripts.items[0].mode, "100755");
        assert_eq!(scripts.items[0].kind, code::EntryType::Blob);
        let vendor = repo.tree(head, "vendor", None, 1_000).unwrap();
        assert_eq!(vendor.items[0].kind, code::EntryType::Commit);
        assert_eq!(vendor.items[0].mode, "160000");
        let docs = repo.tree(head, "docs", None, 1_000).unwrap();
        assert!(docs.items.iter().any(|e| e.path == "docs/ünïcode.md"));
    }

    #[test]
    fn tree_pages() {
        let f = standard();
        let (_, repo) = f.bare();
        let head = repo
            .commit_exists(&f.git(&["rev-parse", "main"]))
            .unwrap()
            .unwrap();
        let whole = repo.tree(head, "many", None, 1_000).unwrap();
        assert_eq!(whole.items.len(), 30);
        assert_eq!(whole.next_cursor, None);
        for limit in [1, 4, 5, 7, 29, 30] {
            assert_eq!(
                all_pages(&repo, head, "many", limit),
                whole.items,
                "limit {limit}"
            );
        }
        let first = repo.tree(head, "many", None, 5).unwrap();
        assert_eq!(first.items.len(), 5);
        assert!(first.items.iter().all(|e| e.kind == code::EntryType::Tree));
        let second = repo
            .tree(head, "many", first.next_cursor.as_deref(), 5)
            .unwrap();
        assert_eq!(second.items[0].name, "file-00.txt");
        // Exactly one page: no cursor to an empty page.
        assert_eq!(repo.tree(head, "many", None, 30).unwrap().next_cursor, None);
        // A limit of 0 still moves on.
        assert_eq!(repo.tree(head, "many", None, 0).unwrap().items.len(), 1);
        for bad in ["", "2abc", "0zz", "1f"] {
            assert!(
                matches!(repo.tree(head, "many", Some(bad), 5), Err(Error::BadCursor)),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn file_matches_git_for_every_file_of_every_commit() {
        let f = standard();
        let (bare, repo) = f.bare();
        for sha in git_text(&bare, &["rev-list", "--all"]).lines() {
            let commit = ObjectId::from_hex(sha.as_bytes()).unwrap();
            for line in git_text(&bare, &["ls-tree", "-r", sha]).lines() {
                let (head, path) = line.split_once('\t').unwrap();
                let mut fields = head.split(' ');
                let (mode, kind, id) = (
                    fields.next().unwrap(),
                    fields.next().unwrap(),
                    fields.next().unwrap(),
                );
                if kind == "commit" {
                    assert!(
                        matches!(repo.file(commit, path), Err(Error::NotFound(_))),
                        "{path}"
                    );
                    continue;
                }
                let (blob, bytes) = repo.file(commit, path).expect(path);
                assert_eq!(blob.to_string(), id, "{path}");
                let want = git_in(&bare, &["cat-file", "blob", id]);
                assert_eq!(bytes, want, "{sha}:{path} ({mode})");
            }
        }
        let head = repo
            .commit_exists(&f.git(&["rev-parse", "main"]))
            .unwrap()
            .unwrap();
        let (_, link) = repo.file(head, "link").unwrap();
        assert_eq!(link, b"README.md");
        let (_, bin) = repo.file(head, "bin.dat").unwrap();
        assert_eq!(bin, b"\x00\x01\x02binary\xff\xfe\x00");
    }

    #[test]
    fn not_found() {
        let f = standard();
        let (_, repo) = f.bare();
        let head = repo
            .commit_exists(&f.git(&["rev-parse", "main"]))
            .unwrap()
            .unwrap();
        let nf = |r: Result<code::TreePage, Error>| matches!(r, Err(Error::NotFound(_)));
        assert!(
            nf(repo.tree(head, "README.md", None, 10)),
            "a file is no folder"
        );
        assert!(nf(repo.tree(head, "nope", None, 10)));
        assert!(nf(repo.tree(head, "src/nope/deeper", None, 10)));
        assert!(nf(repo.tree(head, "README.md/x", None, 10)), "below a file");
        assert!(nf(repo.tree(head, "vendor/sub", None, 10)), "a submodule");
        for bad in ["/src", "src//lib", "./src", "src/..", "..", "src/."] {
            assert!(nf(repo.tree(head, bad, None, 10)), "{bad:?}");
        }
        let nff = |r: Result<(ObjectId, Vec<u8>), Error>| matches!(r, Err(Error::NotFound(_)));
        assert!(nff(repo.file(head, "src")), "a folder is no file");
        assert!(nff(repo.file(head, "")), "the root");
        assert!(nff(repo.file(head, "nope.txt")));
        assert!(nff(repo.file(head, "README.md/x")));
        // Ids that are no commit.
        let tree = ObjectId::from_hex(f.git(&["rev-parse", "main^{tree}"]).as_bytes()).unwrap();
        let absent = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        for id in [tree, absent] {
            assert!(nf(repo.tree(id, "", None, 10)));
            assert!(nff(repo.file(id, "README.md")));
            assert!(matches!(repo.commit(id), Err(Error::NotFound(_))));
        }
    }

    #[test]
    fn commit_exists_takes_only_commit_shas() {
        let f = standard();
        let (_, repo) = f.bare();
        let head = f.git(&["rev-parse", "main"]);
        let want = ObjectId::from_hex(head.as_bytes()).unwrap();
        assert_eq!(repo.commit_exists(&head).unwrap(), Some(want));
        assert_eq!(
            repo.commit_exists(&head.to_uppercase()).unwrap(),
            Some(want)
        );
        let tree = f.git(&["rev-parse", "main^{tree}"]);
        let blob = f.git(&["rev-parse", "main:README.md"]);
        for bad in [
            tree.as_str(),
            blob.as_str(),
            "0123456789abcdef0123456789abcdef01234567",
            &head[..39],
            &head[..7],
            "main",
            "",
            "g123456789abcdef0123456789abcdef01234567",
        ] {
            assert_eq!(repo.commit_exists(bad).unwrap(), None, "{bad:?}");
        }
    }

    #[test]
    fn branch_heads_match_for_each_ref() {
        let f = standard();
        let (bare, repo) = f.bare();
        let want: Vec<(String, ObjectId)> = git_text(
            &bare,
            &[
                "for-each-ref",
                "--format=%(refname:short) %(objectname)",
                "refs/heads",
            ],
        )
        .lines()
        .map(|l| {
            let (name, sha) = l.split_once(' ').unwrap();
            (name.to_owned(), ObjectId::from_hex(sha.as_bytes()).unwrap())
        })
        .collect();
        assert_eq!(want.len(), 3);
        assert_eq!(repo.branch_heads().unwrap(), want);
        // Loose refs, a nested name and a symbolic one.
        git_in(
            &bare,
            &["update-ref", "refs/heads/team/x", &want[0].1.to_string()],
        );
        git_in(
            &bare,
            &["symbolic-ref", "refs/heads/alias", "refs/heads/other"],
        );
        git_in(
            &bare,
            &["symbolic-ref", "refs/heads/dangling", "refs/heads/gone"],
        );
        let heads = repo.branch_heads().unwrap();
        assert!(heads.contains(&("team/x".to_owned(), want[0].1)));
        let other = want.iter().find(|(n, _)| n == "other").unwrap().1;
        assert!(heads.contains(&("alias".to_owned(), other)));
        assert_eq!(heads.len(), 5, "no head for a dangling branch: {heads:?}");
    }

    #[test]
    fn init_bare_makes_an_empty_repo_on_main() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.git");
        let repo = Repo::init_bare(&path).unwrap();
        assert_eq!(
            git_text(&path, &["rev-parse", "--is-bare-repository"]),
            "true"
        );
        assert_eq!(
            git_text(&path, &["symbolic-ref", "HEAD"]),
            "refs/heads/main"
        );
        assert_eq!(repo.branch_heads().unwrap(), vec![]);
        // git pushes into it, and the push reads back.
        let mut f = super::fixture::Fixture::new();
        f.write("hello.txt", "hi\n");
        let sha = f.commit("Hello");
        git_in(&f.work, &["push", "-q", path.to_str().unwrap(), "main"]);
        let reopened = Repo::open(&path).unwrap();
        let id = ObjectId::from_hex(sha.as_bytes()).unwrap();
        assert_eq!(
            reopened.branch_heads().unwrap(),
            vec![("main".to_owned(), id)]
        );
        assert_eq!(repo.branch_heads().unwrap(), vec![("main".to_owned(), id)]);
        assert_eq!(repo.file(id, "hello.txt").unwrap().1, b"hi\n");
        git_in(&path, &["fsck", "--strict"]);
        assert!(Repo::open(&dir.path().join("missing.git")).is_err());
    }

    #[test]
    fn commit_matches_git_log() {
        let f = standard();
        let (bare, repo) = f.bare();
        for sha in git_text(&bare, &["rev-list", "--all"]).lines() {
            let id = ObjectId::from_hex(sha.as_bytes()).unwrap();
            let got = repo.commit(id).unwrap();
            let field =
                |format: &str| git_text(&bare, &["log", "-1", &format!("--format={format}"), sha]);
            assert_eq!(got.sha, sha);
            let parents = field("%P");
            let want_parents: Vec<&str> = parents.split_whitespace().collect();
            assert_eq!(got.parents, want_parents);
            assert_eq!(got.title, field("%s"));
            assert_eq!(got.message, field("%B").trim_end());
            assert_eq!(got.author.name, field("%an"));
            assert_eq!(got.author.email, field("%ae"));
            assert_eq!(got.author.date.unix_timestamp().to_string(), field("%at"));
            assert_eq!(got.author.date.offset(), time::UtcOffset::UTC);
            assert_eq!(got.committer.name, field("%cn"));
            assert_eq!(got.committer.email, field("%ce"));
            assert_eq!(
                got.committer.date.unix_timestamp().to_string(),
                field("%ct")
            );
            assert_eq!(got.merged_branch, None);
            assert_eq!(got.trailers, parse_trailers(&got.message));
        }
        let merge =
            ObjectId::from_hex(f.git(&["rev-parse", ":/Merge feature"]).as_bytes()).unwrap();
        let merge = repo.commit(merge).unwrap();
        assert_eq!(merge.parents.len(), 2);
        assert_eq!(merge.title, "Merge feature");
        assert_eq!(
            merge.trailers,
            code::Trailers {
                agent: Some("claude".into()),
                worktree: Some("wt-1".into()),
                machine: Some("box".into()),
            }
        );
        let json = serde_json::to_value(&merge).unwrap();
        // Pinned at `@1700025200 +0200`: the same instant in UTC.
        assert_eq!(json["author"]["date"], "2023-11-15T05:13:20Z");
        assert_eq!(json["trailers"]["Svc-Agent"], "claude");
    }

    #[test]
    fn trailers() {
        let t =
            |agent: Option<&str>, worktree: Option<&str>, machine: Option<&str>| code::Trailers {
                agent: agent.map(Into::into),
                worktree: worktree.map(Into::into),
                machine: machine.map(Into::into),
            };
        assert_eq!(parse_trailers(""), t(None, None, None));
        assert_eq!(parse_trailers("Fix it"), t(None, None, None));
        // The title is never a trailer paragraph.
        assert_eq!(parse_trailers("Svc-Agent: x"), t(None, None, None));
        assert_eq!(
            parse_trailers("Svc-Agent: x\nSvc-Machine: m"),
            t(None, None, None)
        );
        assert_eq!(
            parse_trailers("Fix it\n\nSvc-Agent: claude\nSvc-Worktree: wt\nSvc-Machine: m1\n"),
            t(Some("claude"), Some("wt"), Some("m1"))
        );
        // Only the last paragraph counts.
        assert_eq!(
            parse_trailers("Fix\n\nSvc-Agent: early\n\nMore words.\n"),
            t(None, None, None)
        );
        assert_eq!(
            parse_trailers("Fix\n\nSvc-Agent: early\n\nSvc-Machine: late"),
            t(None, None, Some("late"))
        );
        // Other trailers around, any case, spaces, CRLF, blank lines at the end.
        assert_eq!(
            parse_trailers(
                "Fix\r\n\r\nBody\r\n\r\nSigned-off-by: A <a@b>\r\nsvc-agent:  codex \r\nSVC-WORKTREE:wt-2\r\n\r\n\r\n"
            ),
            t(Some("codex"), Some("wt-2"), None)
        );
        // Empty values are absent; the last of a repeated key wins; keys are exact.
        assert_eq!(
            parse_trailers(
                "Fix\n\nSvc-Agent:\nSvc-Machine: a\nSvc-Machine: b\nSvc-Agents: no\n Svc-Worktree: no"
            ),
            t(None, None, Some("b"))
        );
        // Whitespace-only lines separate paragraphs too.
        assert_eq!(
            parse_trailers("Fix\n  \t\nSvc-Agent: a"),
            t(Some("a"), None, None)
        );
    }

    #[test]
    fn repo_handles_are_send_and_sync() {
        fn check<T: Send + Sync + Clone + 'static>() {}
        check::<Repo>();
        fn check_walk<T: Send + Sync + 'static>() {}
        check_walk::<LastCommitsWalk>();
    }
}
