//! The meta layer in git: `.svc/**` on the meta repo's main, its contents named by
//! SHA-256 for clients and by blob id for git, and saves as commits on main.
//!
//! Synchronous like [`super::read`]: call from `spawn_blocking`. The SHA-256 of each
//! blob is kept in small files under `<repo>.git/svc-meta/` (blob id to digest and back)
//! so a listing hashes each content once and an upload can be found by its digest.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind;
use gix::objs::{Kind, Write};
use sha2::{Digest, Sha256};
use svc_protocol::meta::MetaFile;

use super::merge::{Error, Person, signature};
use super::read::{self, Repo, git};

/// The meta layer's folder in the meta repo.
pub const META_DIR: &str = ".svc";

/// One path of a save: the blob to write there, or None to delete it.
#[derive(Debug, Clone)]
pub struct Change {
    pub path: String,
    pub blob: Option<ObjectId>,
}

/// What a save did.
#[derive(Debug)]
pub enum Saved {
    /// Paths changed on main since the base as well: nothing was written.
    Edited(Vec<String>),
    /// Main already holds every change.
    Unchanged,
    /// A new commit (not yet on main), with the changes it made.
    Commit {
        id: ObjectId,
        changes: Vec<Change>,
        /// Main had no `.svc/` file before: the first upload of a new monorepo.
        first: bool,
    },
}

impl Repo {
    /// Every file under `.svc/` in `commit`, by path, with its size and SHA-256.
    pub fn meta_files(&self, commit: ObjectId) -> Result<Vec<MetaFile>, read::Error> {
        let repo = self.0.to_thread_local();
        let Some(folder) = meta_tree(&repo, commit)? else {
            return Ok(Vec::new());
        };
        let mut files = Vec::new();
        let mut todo = vec![(String::new(), folder)];
        while let Some((prefix, id)) = todo.pop() {
            let tree = repo.find_tree(id).map_err(git)?;
            for entry in tree.iter() {
                let entry = entry.map_err(git)?;
                let path = format!("{prefix}{}", entry.filename().to_str_lossy());
                let oid = entry.oid().to_owned();
                if entry.mode().is_tree() {
                    todo.push((format!("{path}/"), oid));
                } else if entry.mode().is_blob() || entry.mode().is_link() {
                    let size = repo.find_header(oid).map_err(git)?.size();
                    let sha256 = sha256_of_blob(&repo, oid)?;
                    files.push(MetaFile {
                        path,
                        size,
                        sha256,
                        blob: oid.to_string(),
                    });
                }
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// The blob holding the content whose SHA-256 is `sha256`, if the repo has it.
    pub fn meta_blob(&self, sha256: &str) -> Result<Option<ObjectId>, read::Error> {
        let repo = self.0.to_thread_local();
        let Ok(text) = std::fs::read_to_string(cache_dir(&repo).join("sha256").join(sha256)) else {
            return Ok(None);
        };
        let Ok(id) = ObjectId::from_hex(text.trim().as_bytes()) else {
            return Ok(None);
        };
        Ok(repo.has_object(id).then_some(id))
    }

    /// Stores the `size` bytes of `file`, whose SHA-256 is `sha256`, as a blob.
    pub fn store_meta_blob(
        &self,
        file: &Path,
        size: u64,
        sha256: &str,
    ) -> Result<ObjectId, read::Error> {
        let repo = self.0.to_thread_local();
        let mut from = std::fs::File::open(file).map_err(git)?;
        let id = repo
            .objects
            .write_stream(Kind::Blob, size, &mut from)
            .map_err(|e| read::Error::Git(e.to_string()))?;
        remember(&repo, id, sha256)?;
        Ok(id)
    }

    /// Applies `changes` to `.svc/` of main and writes the commit (moving no ref).
    ///
    /// `main` is main now and `base` the version the changes were made on. A path that
    /// main changed since `base` is a conflict unless main already holds the change.
    pub fn meta_save(
        &self,
        main: Option<ObjectId>,
        base: Option<ObjectId>,
        changes: &[Change],
        author: &Person,
        committer: &Person,
        message: &str,
    ) -> Result<Saved, Error> {
        let repo = self.0.to_thread_local();
        let mut edited = Vec::new();
        let mut todo = Vec::new();
        for change in changes {
            let now = blob_at(&repo, main, &change.path)?;
            if now == change.blob {
                continue;
            }
            if main != base && blob_at(&repo, base, &change.path)? != now {
                edited.push(change.path.clone());
                continue;
            }
            todo.push(change.clone());
        }
        if !edited.is_empty() {
            edited.sort();
            edited.dedup();
            return Ok(Saved::Edited(edited));
        }
        if todo.is_empty() {
            return Ok(Saved::Unchanged);
        }
        let first = match main {
            Some(main) => meta_tree(&repo, main)?.is_none(),
            None => true,
        };
        let root = match main {
            Some(main) => commit_tree(&repo, main)?,
            None => ObjectId::empty_tree(repo.object_hash()),
        };
        let mut editor = repo.edit_tree(root).map_err(git)?;
        for change in &todo {
            let path = format!("{META_DIR}/{}", change.path);
            match change.blob {
                Some(blob) => editor
                    .upsert(path.as_str(), EntryKind::Blob, blob)
                    .map_err(git)?,
                None => editor.remove(path.as_str()).map_err(git)?,
            };
        }
        let tree = editor.write().map_err(git)?.detach();
        let now = gix::date::Time::now_utc();
        let commit = gix::objs::Commit {
            tree,
            parents: main.into_iter().collect(),
            author: signature(author, now),
            committer: signature(committer, now),
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        let id = repo.write_object(&commit).map_err(git)?.detach();
        Ok(Saved::Commit {
            id,
            changes: todo,
            first,
        })
    }

    /// A blob's size in bytes.
    pub fn meta_size(&self, blob: ObjectId) -> Result<u64, read::Error> {
        let repo = self.0.to_thread_local();
        Ok(repo.find_header(blob).map_err(git)?.size())
    }
}

fn cache_dir(repo: &gix::Repository) -> PathBuf {
    repo.git_dir().join("svc-meta")
}

/// Records that `blob` holds the content whose SHA-256 is `sha256`, both ways.
fn remember(repo: &gix::Repository, blob: ObjectId, sha256: &str) -> Result<(), read::Error> {
    let dir = cache_dir(repo);
    write_small(&dir.join("blob"), &blob.to_string(), sha256)?;
    write_small(&dir.join("sha256"), sha256, &blob.to_string())
}

/// Writes `dir/name` whole (a temp file, then a rename). The temp name is unique to the
/// write: concurrent requests may cache the same blob at once.
fn write_small(dir: &Path, name: &str, text: &str) -> Result<(), read::Error> {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(dir).map_err(git)?;
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}", std::process::id()));
    std::fs::write(&tmp, text).map_err(git)?;
    std::fs::rename(&tmp, dir.join(name)).map_err(git)
}

fn sha256_of_blob(repo: &gix::Repository, blob: ObjectId) -> Result<String, read::Error> {
    let cached = cache_dir(repo).join("blob").join(blob.to_string());
    if let Ok(text) = std::fs::read_to_string(&cached) {
        return Ok(text.trim().to_owned());
    }
    let object = repo.find_blob(blob).map_err(git)?;
    let sha256 = hex::encode(Sha256::digest(&object.data));
    remember(repo, blob, &sha256)?;
    Ok(sha256)
}

fn commit_tree(repo: &gix::Repository, commit: ObjectId) -> Result<ObjectId, read::Error> {
    let commit = repo.find_commit(commit).map_err(git)?;
    Ok(commit.tree_id().map_err(git)?.detach())
}

/// The `.svc` folder of `commit`, if it has one.
fn meta_tree(repo: &gix::Repository, commit: ObjectId) -> Result<Option<ObjectId>, read::Error> {
    let tree = repo.find_tree(commit_tree(repo, commit)?).map_err(git)?;
    let entry = tree.lookup_entry_by_path(META_DIR).map_err(git)?;
    Ok(entry.filter(|e| e.mode().is_tree()).map(|e| e.object_id()))
}

/// The blob at `.svc/<path>` in `commit`, if there is a file there.
fn blob_at(
    repo: &gix::Repository,
    commit: Option<ObjectId>,
    path: &str,
) -> Result<Option<ObjectId>, read::Error> {
    let Some(commit) = commit else {
        return Ok(None);
    };
    let tree = repo.find_tree(commit_tree(repo, commit)?).map_err(git)?;
    let entry = tree
        .lookup_entry_by_path(format!("{META_DIR}/{path}"))
        .map_err(git)?;
    Ok(entry
        .filter(|e| !e.mode().is_tree() && !e.mode().is_commit())
        .map(|e| e.object_id()))
}
