//! Commits of files written without a checkout (commitFiles): the parent's tree with
//! some paths written or deleted, as one commit. No ref moves here; the caller moves the
//! branch with a compare-and-swap ([`Repo::update_ref`], [`Repo::create_ref`]).
//!
//! Synchronous like [`super::read`]: call from `spawn_blocking`. Every path is checked
//! against the parent before anything is written, so a refused change writes nothing.

use std::collections::BTreeSet;

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use super::merge::{Person, signature};
use super::read::{self, Repo, git};

/// One path of a commit: its new content, or None to delete it. Paths are checked
/// already (relative, `/`-separated, no `.`, `..`, `.git` or empty segments).
#[derive(Debug, Clone)]
pub struct Change {
    pub path: String,
    pub content: Option<Vec<u8>>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A path to delete that the parent does not hold as a file: answer 422.
    #[error("there is no file at {0}")]
    NoSuchPath(String),
    /// A path to write that a folder holds, or under a file: answer 422.
    #[error("{path} {why}")]
    Blocked { path: String, why: &'static str },
    /// The repository could not be read or written: answer 500 (404 for a parent that
    /// is not a commit).
    #[error(transparent)]
    Read(#[from] read::Error),
}

impl Repo {
    /// Writes a commit whose tree is `parent`'s (the empty tree without one) with
    /// `changes` applied, and answers its id. A written file keeps its mode (executable,
    /// link); a new one is a plain file. Folders left empty disappear, as in git.
    pub fn commit_files(
        &self,
        parent: Option<ObjectId>,
        changes: &[Change],
        author: &Person,
        committer: &Person,
        message: &str,
    ) -> Result<ObjectId, Error> {
        let repo = self.0.to_thread_local();
        let root = match parent {
            Some(id) => {
                let commit = repo
                    .find_commit(id)
                    .map_err(|_| read::Error::NotFound(format!("commit {id}")))?;
                commit.tree_id().map_err(git)?.detach()
            }
            None => ObjectId::empty_tree(repo.object_hash()),
        };
        let deleted: BTreeSet<&str> = changes
            .iter()
            .filter(|c| c.content.is_none())
            .map(|c| c.path.as_str())
            .collect();
        // What is at each path now, checked before anything is written.
        let mut kinds = Vec::with_capacity(changes.len());
        for change in changes {
            let now = kind_at(&repo, root, &change.path)?;
            match (&change.content, now) {
                (None, Some(kind)) if kind != EntryKind::Tree => {}
                (None, _) => return Err(Error::NoSuchPath(change.path.clone())),
                (Some(_), Some(EntryKind::Tree)) => {
                    return Err(Error::Blocked {
                        path: change.path.clone(),
                        why: "is a folder",
                    });
                }
                (Some(_), _) => {
                    let mut folder = change.path.as_str();
                    while let Some((parent, _)) = folder.rsplit_once('/') {
                        folder = parent;
                        let kind = kind_at(&repo, root, folder)?;
                        if kind.is_some_and(|k| k != EntryKind::Tree) && !deleted.contains(folder) {
                            return Err(Error::Blocked {
                                path: change.path.clone(),
                                why: "is under a file",
                            });
                        }
                    }
                }
            }
            kinds.push(now);
        }
        let mut editor = repo.edit_tree(root).map_err(git)?;
        for (change, now) in changes.iter().zip(kinds) {
            match &change.content {
                Some(bytes) => {
                    let blob = repo.write_blob(bytes).map_err(git)?.detach();
                    let kind = match now {
                        Some(k @ (EntryKind::BlobExecutable | EntryKind::Link)) => k,
                        _ => EntryKind::Blob,
                    };
                    editor
                        .upsert(change.path.as_str(), kind, blob)
                        .map_err(git)?;
                }
                None => {
                    editor.remove(change.path.as_str()).map_err(git)?;
                }
            }
        }
        let tree = editor.write().map_err(git)?.detach();
        let mut message = message.to_owned();
        if !message.ends_with('\n') {
            message.push('\n');
        }
        let now = gix::date::Time::now_utc();
        let commit = gix::objs::Commit {
            tree,
            parents: parent.into_iter().collect(),
            author: signature(author, now),
            committer: signature(committer, now),
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        Ok(repo.write_object(&commit).map_err(git)?.detach())
    }
}

/// The kind of the entry at `path` in the tree `root`, if there is one.
fn kind_at(
    repo: &gix::Repository,
    root: ObjectId,
    path: &str,
) -> Result<Option<EntryKind>, read::Error> {
    if root.is_empty_tree() {
        return Ok(None);
    }
    let tree = repo.find_tree(root).map_err(git)?;
    let entry = tree.lookup_entry_by_path(path).map_err(git)?;
    Ok(entry.map(|e| e.mode().kind()))
}
