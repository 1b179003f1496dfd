//! The changed files between two trees: git's exact renames, a paths filter, and
//! file-tree order.

use std::cmp::Ordering;
use std::collections::HashMap;

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::diff::tree::recorder::Change as Recorded;
use gix::objs::TreeRefIter;
use gix::objs::tree::EntryKind;
use svc_protocol::branch::FileStatus;

use super::{Error, git};

/// One side of a changed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Side {
    pub kind: EntryKind,
    pub id: ObjectId,
}

/// One changed file. A rename keeps its old path; every other change has one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Change {
    pub path: BString,
    pub old_path: Option<BString>,
    pub old: Option<Side>,
    pub new: Option<Side>,
}

impl Change {
    pub fn status(&self) -> FileStatus {
        match (&self.old, &self.new, &self.old_path) {
            (_, _, Some(_)) => FileStatus::Renamed,
            (None, _, None) => FileStatus::Added,
            (_, None, None) => FileStatus::Deleted,
            (Some(_), Some(_), None) => FileStatus::Modified,
        }
    }

    fn matches(&self, paths: &[BString]) -> bool {
        paths.is_empty()
            || paths.iter().any(|p| {
                under(&self.path, p) || self.old_path.as_ref().is_some_and(|o| under(o, p))
            })
    }
}

/// Whether `path` is `prefix` or lies below the folder `prefix` (`""` holds everything).
fn under(path: &[u8], prefix: &[u8]) -> bool {
    prefix.is_empty()
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.first() == Some(&b'/'))
}

/// The filter's paths without a trailing `/`; `.` is the root.
fn normalize(paths: &[String]) -> Vec<BString> {
    paths
        .iter()
        .map(|p| {
            let p = p.trim_end_matches('/');
            BString::from(if p == "." { "" } else { p })
        })
        .collect()
}

/// The files (blobs, links and submodule commits) that differ between the trees `old`
/// and `new` (`None`: the empty tree) and lie under one of `paths` (none: all), with
/// exact renames paired, in file-tree order.
pub(super) fn changes(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: ObjectId,
    paths: &[String],
) -> Result<Vec<Change>, Error> {
    let mut old_buf = Vec::new();
    let mut new_buf = Vec::new();
    let old_tree = match old {
        Some(id) => tree_bytes(repo, id, &mut old_buf)?,
        None => &[],
    };
    let new_tree = tree_bytes(repo, new, &mut new_buf)?;
    let mut recorder = gix::diff::tree::Recorder::default();
    gix::diff::tree(
        TreeRefIter::from_bytes(old_tree, repo.object_hash()),
        TreeRefIter::from_bytes(new_tree, repo.object_hash()),
        gix::diff::tree::State::default(),
        &repo.objects,
        &mut recorder,
    )
    .map_err(git)?;
    let mut changes = pair_renames(recorder.records);
    let paths = normalize(paths);
    changes.retain(|c| c.matches(&paths));
    changes.sort_by(|a, b| tree_order(&a.path, &b.path));
    Ok(changes)
}

fn tree_bytes<'a>(
    repo: &gix::Repository,
    id: ObjectId,
    buf: &'a mut Vec<u8>,
) -> Result<&'a [u8], Error> {
    use gix::objs::Find;
    if id.is_empty_tree() {
        return Ok(&[]);
    }
    match repo.objects.try_find(&id, buf).map_err(git)? {
        Some(data) if data.kind == gix::objs::Kind::Tree => Ok(data.data),
        _ => Err(Error::Git(format!("tree {id} is missing"))),
    }
}

/// Keeps the file changes, and pairs each added file with a deleted one of the same
/// blob as git's exact rename detection does: added files in path order each take the
/// first unused deleted one, preferring one with the same file name. Links and
/// submodules pair only with their own kind; a regular file may change its mode.
fn pair_renames(records: Vec<Recorded>) -> Vec<Change> {
    let mut added = Vec::new();
    let mut deleted = Vec::new();
    let mut changes = Vec::new();
    let side = |mode: gix::objs::tree::EntryMode, id| {
        let kind = mode.kind();
        (kind != EntryKind::Tree).then_some(Side { kind, id })
    };
    for record in records {
        match record {
            Recorded::Addition {
                entry_mode,
                oid,
                path,
                ..
            } => added.extend(side(entry_mode, oid).map(|s| (path, s))),
            Recorded::Deletion {
                entry_mode,
                oid,
                path,
                ..
            } => deleted.extend(side(entry_mode, oid).map(|s| (path, s))),
            Recorded::Modification {
                previous_entry_mode,
                previous_oid,
                entry_mode,
                oid,
                path,
            } => {
                let old = side(previous_entry_mode, previous_oid);
                let new = side(entry_mode, oid);
                // A folder that became a file, or the reverse, is an addition or a deletion.
                if old.is_some() || new.is_some() {
                    changes.push(Change {
                        path,
                        old_path: None,
                        old,
                        new,
                    });
                }
            }
        }
    }
    added.sort_by(|a, b| a.0.cmp(&b.0));
    deleted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut by_id: HashMap<ObjectId, Vec<usize>> = HashMap::new();
    for (i, (_, s)) in deleted.iter().enumerate() {
        by_id.entry(s.id).or_default().push(i);
    }
    let mut used = vec![false; deleted.len()];
    for (path, new) in added {
        let source = by_id.get(&new.id).and_then(|candidates| {
            let usable = || {
                candidates.iter().copied().filter(|&i| {
                    !used[i] && deleted.get(i).is_some_and(|(_, old)| same_kind(old, &new))
                })
            };
            usable()
                .find(|&i| {
                    deleted
                        .get(i)
                        .is_some_and(|(p, _)| file_name(p) == file_name(&path))
                })
                .or_else(|| usable().next())
        });
        let old = source.and_then(|i| {
            used[i] = true;
            deleted.get(i).cloned()
        });
        changes.push(match old {
            Some((old_path, old)) => Change {
                path,
                old_path: Some(old_path),
                old: Some(old),
                new: Some(new),
            },
            None => Change {
                path,
                old_path: None,
                old: None,
                new: Some(new),
            },
        });
    }
    for ((path, old), used) in deleted.into_iter().zip(used) {
        if !used {
            changes.push(Change {
                path,
                old_path: None,
                old: Some(old),
                new: None,
            });
        }
    }
    changes
}

fn same_kind(a: &Side, b: &Side) -> bool {
    let regular = |k: EntryKind| matches!(k, EntryKind::Blob | EntryKind::BlobExecutable);
    a.kind == b.kind || (regular(a.kind) && regular(b.kind))
}

fn file_name(path: &[u8]) -> &[u8] {
    path.rsplit(|b| *b == b'/').next().unwrap_or(path)
}

/// File-tree order: component by component, a folder before a file, then by name.
pub(super) fn tree_order(a: &[u8], b: &[u8]) -> Ordering {
    let mut a = a.split_str("/").peekable();
    let mut b = b.split_str("/").peekable();
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) => {
                // A component with more after it is a folder, and folders come first.
                let x_file = a.peek().is_none();
                let y_file = b.peek().is_none();
                match x_file.cmp(&y_file).then_with(|| x.cmp(y)) {
                    Ordering::Equal => {}
                    other => return other,
                }
            }
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
        }
    }
}
