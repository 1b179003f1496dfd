//! The three-dot diff of a branch (`branchDiff`): from the merge base of main and the
//! head to the head, as `git diff --patience -M100%` gives it.
//!
//! Synchronous; call it from `spawn_blocking`. [`plan`] diffs the trees, so that a
//! stream can send its `start` line before any blob is read; [`Plan::files`] then
//! hands over each file's entry, in file-tree order, as soon as it is computed.
//! [`branch_diff`] builds the whole answer. With no main ([`diff_from`] of `None`), the
//! diff is from the empty tree: a root commit's own diff (`commitDiff`).

use std::ops::ControlFlow;

use gix::ObjectId;
use gix::objs::{CommitRefIter, Find, Kind};
use svc_protocol::branch::{BranchDiff, BranchDiffLine, DiffFile, DiffStats, PatchOmitted};
use svc_protocol::event::ZERO_SHA;

use super::read::{Repo, error_chain};

mod file;
mod line;
mod patch;
mod tree;

#[cfg(test)]
mod tests;

/// Delta bases kept by a diff's handle: the two versions of a file are often deltas
/// of one base.
const PACK_CACHE_BYTES: usize = 16 * 1024 * 1024;

const MIB: usize = 1024 * 1024;

/// Why a diff failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An end that is not a commit of the repository: answer 404.
    #[error("{0} not found")]
    NotFound(String),
    /// The repository could not be read.
    #[error("git: {0}")]
    Git(String),
}

fn git(err: impl std::error::Error) -> Error {
    Error::Git(error_chain(err))
}

/// What a diff lists and how much patch text it gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Files listed at most; `files_total` still counts every one.
    pub max_files: usize,
    /// Bytes of patch text in all; a file whose patch would pass it gets none
    /// (`patch_omitted: budget`), and a later, smaller one may still fit.
    pub max_patch_bytes: usize,
    /// The caller's own budget of patch bytes (`max_bytes`), spent like the one above.
    pub max_bytes: Option<usize>,
    /// A text side over this many bytes gives neither patch nor counts (`too_large`).
    pub max_blob_bytes: usize,
    /// Only files at or below one of these paths, by old or new path (empty: all).
    pub paths: Vec<String>,
    /// Patches, or counts only.
    pub patches: bool,
}

impl Options {
    /// `patches=1`: 1,000 files, 2 MiB of patches.
    pub fn patches() -> Options {
        Options {
            max_files: 1_000,
            max_patch_bytes: 2 * MIB,
            max_bytes: None,
            max_blob_bytes: 8 * MIB,
            paths: Vec::new(),
            patches: true,
        }
    }

    /// `patches=1&stream=1`: 5,000 files, 32 MiB of patches.
    pub fn stream() -> Options {
        Options {
            max_files: 5_000,
            max_patch_bytes: 32 * MIB,
            ..Options::patches()
        }
    }

    fn patch_budget(&self) -> usize {
        self.max_bytes
            .map_or(self.max_patch_bytes, |b| b.min(self.max_patch_bytes))
    }
}

/// A diff whose files are known but not yet diffed.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Main's head.
    pub base: ObjectId,
    pub head: ObjectId,
    /// None when the histories are unrelated: the diff is then from the empty tree.
    pub merge_base: Option<ObjectId>,
    options: Options,
    changes: Vec<tree::Change>,
}

/// What [`Plan::files`] found besides the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Totals of the files handed over.
    pub stats: DiffStats,
    /// Files or patches were left out by a limit.
    pub truncated: bool,
}

impl Outcome {
    /// The stream's `end` line.
    pub fn end_line(&self) -> BranchDiffLine {
        BranchDiffLine::End {
            stats: self.stats,
            truncated: self.truncated,
        }
    }
}

/// A thread-local handle with a delta-base cache.
fn handle(repo: &Repo) -> gix::Repository {
    let mut repo = repo.shared().to_thread_local();
    repo.objects.set_pack_cache(|| {
        Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(
            PACK_CACHE_BYTES,
        ))
    });
    repo
}

/// The merge base of `main` and `head` and the files that differ from it to `head`,
/// under `options.paths`; with no `main`, every file of `head` (base and merge base
/// the all-zero sha).
pub fn plan(
    repo: &Repo,
    main: Option<ObjectId>,
    head: ObjectId,
    options: Options,
) -> Result<Plan, Error> {
    let handle = handle(repo);
    let head_tree = tree_of(&handle, head)?;
    let merge_base = match main {
        Some(main) => {
            tree_of(&handle, main)?;
            handle
                .merge_base(main, head)
                .map_err(git)?
                .map(|id| id.detach())
        }
        None => None,
    };
    let base_tree = merge_base.map(|id| tree_of(&handle, id)).transpose()?;
    let changes = tree::changes(&handle, base_tree, head_tree, &options.paths)?;
    Ok(Plan {
        base: main.unwrap_or_else(|| ObjectId::null(head.kind())),
        head,
        merge_base,
        options,
        changes,
    })
}

/// The tree of `commit`; NotFound when it is no commit.
fn tree_of(repo: &gix::Repository, commit: ObjectId) -> Result<ObjectId, Error> {
    let mut buf = Vec::new();
    match repo.objects.try_find(&commit, &mut buf).map_err(git)? {
        Some(data) if data.kind == Kind::Commit => {
            CommitRefIter::from_bytes(data.data, repo.object_hash())
                .tree_id()
                .map_err(git)
        }
        _ => Err(Error::NotFound(format!("commit {commit}"))),
    }
}

impl Plan {
    /// Every changed file under the paths, listed or not.
    pub fn files_total(&self) -> u64 {
        self.changes.len() as u64
    }

    pub fn too_many_files(&self) -> bool {
        self.changes.len() > self.options.max_files
    }

    /// The merge base, or the all-zero sha when there is none.
    pub fn merge_base_sha(&self) -> String {
        self.merge_base
            .map_or_else(|| ZERO_SHA.to_owned(), |id| id.to_string())
    }

    /// The stream's `start` line.
    pub fn start_line(&self) -> BranchDiffLine {
        BranchDiffLine::Start {
            base: self.base.to_string(),
            head: self.head.to_string(),
            merge_base: self.merge_base_sha(),
            files_total: self.files_total(),
            too_many_files: self.too_many_files(),
        }
    }

    /// Computes the listed files' entries in order and hands each to `each`, which may
    /// stop the diff with `Break` (the client went away).
    pub fn files(
        &self,
        repo: &Repo,
        mut each: impl FnMut(DiffFile) -> ControlFlow<()>,
    ) -> Result<Outcome, Error> {
        let mut differ = file::Differ::new(handle(repo));
        let mut budget = self.options.patch_budget();
        let mut outcome = Outcome {
            stats: DiffStats::default(),
            truncated: self.too_many_files(),
        };
        for change in self.changes.iter().take(self.options.max_files) {
            let mut file = differ.file(change, &self.options)?;
            if let Some(len) = file.patch.as_ref().map(String::len) {
                if len > budget {
                    file.patch = None;
                    file.patch_omitted = Some(PatchOmitted::Budget);
                } else {
                    budget -= len;
                }
            }
            outcome.truncated |= file.patch_omitted.is_some();
            outcome.stats.files += 1;
            outcome.stats.additions += file.additions.unwrap_or(0);
            outcome.stats.deletions += file.deletions.unwrap_or(0);
            if each(file).is_break() {
                break;
            }
        }
        Ok(outcome)
    }
}

/// The whole diff of `head` against `main` at once.
pub fn branch_diff(
    repo: &Repo,
    main: ObjectId,
    head: ObjectId,
    options: Options,
) -> Result<BranchDiff, Error> {
    diff_from(repo, Some(main), head, options)
}

/// [`branch_diff`], or with no `main` every file of `head` (as [`plan`]).
pub fn diff_from(
    repo: &Repo,
    main: Option<ObjectId>,
    head: ObjectId,
    options: Options,
) -> Result<BranchDiff, Error> {
    let plan = plan(repo, main, head, options)?;
    let mut files = Vec::new();
    let outcome = plan.files(repo, |file| {
        files.push(file);
        ControlFlow::Continue(())
    })?;
    Ok(BranchDiff {
        base: plan.base.to_string(),
        head: head.to_string(),
        merge_base: plan.merge_base_sha(),
        files,
        files_total: plan.files_total(),
        too_many_files: plan.too_many_files(),
        stats: outcome.stats,
        truncated: outcome.truncated,
    })
}
