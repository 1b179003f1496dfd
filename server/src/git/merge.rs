//! Branch facts and merges: merge bases, ahead/behind counts, a branch's own commits,
//! merge dry runs, merge commits, and compare-and-swap ref edits.
//!
//! Synchronous like [`super::read`]: call from `spawn_blocking`. Merges follow git's
//! `ort` strategy as gix implements it (several merge bases merged into a virtual one);
//! "main" is always *ours* and the branch head *theirs*. Renames are exact only (the
//! same blob moved), as branch diffs show them: similarity detection compares added and
//! deleted files line by line, which on a branch far from main cost seconds a merge. A
//! head whose merge base is main merges to its own tree, with no tree merge at all.

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::diff::Rewrites;
use gix::merge::blob::builtin_driver::text::Labels;
use gix::merge::tree::{TreatAsUnresolved, apply_index_entries::RemovalMode};
use gix::objs::{Kind, TreeRefIter, Write};
use gix::odb::memory::Storage;

use super::read::{self, Repo, git};

mod facts;
mod refs;
#[cfg(test)]
mod tests;

pub use facts::{BranchFacts, FACTS_CAP};

/// Why a merge or a ref edit failed. Facts and dry runs fail only as reads do
/// ([`read::Error`]).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An unknown commit or object: answer 404.
    #[error("{0} not found")]
    NotFound(String),
    /// The merge has unresolved conflicts in these paths: answer 409.
    #[error("merge conflicts in {}", .0.join(", "))]
    Conflicts(Vec<String>),
    /// Main and the head share no history, which git refuses to merge: answer 409.
    #[error("{main} and {head} have no common history")]
    Unrelated { main: ObjectId, head: ObjectId },
    /// Main has the head already (they are one commit, or the head is behind main): a
    /// merge would only make an empty commit. Answer 409.
    #[error("{main} contains {head} already")]
    NothingToMerge { main: ObjectId, head: ObjectId },
    /// The named ref no longer points where the caller expected, or is gone: answer
    /// 409, or read it again and retry.
    #[error("{0} moved")]
    RefMoved(String),
    /// The named ref, to be created, exists already: answer 409.
    #[error("{0} exists")]
    RefExists(String),
    /// The ref to be created would share a path with an existing one (`a` and `a/b`),
    /// which git's ref store cannot hold together: answer 409 naming the existing one.
    #[error("{name} clashes with {existing}")]
    RefClash { name: String, existing: String },
    /// A ref name git does not allow, or not under `refs/`: answer 400.
    #[error("bad ref name {0:?}")]
    BadRefName(String),
    /// The repository could not be read or written: answer 500.
    #[error("git: {0}")]
    Git(String),
}

impl From<read::Error> for Error {
    fn from(err: read::Error) -> Error {
        match err {
            read::Error::NotFound(what) => Error::NotFound(what),
            read::Error::BadCursor => Error::Git("bad cursor".into()),
            read::Error::Git(text) => Error::Git(text),
        }
    }
}

/// Whether head merges into main (a dry run): `conflicts` lists the paths git would
/// leave conflicted, sorted, each once. `unrelated` heads share no history with main:
/// not clean, though no path conflicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeCheck {
    pub clean: bool,
    pub conflicts: Vec<String>,
    pub unrelated: bool,
}

impl MergeCheck {
    const CLEAN: MergeCheck = MergeCheck {
        clean: true,
        conflicts: Vec::new(),
        unrelated: false,
    };
}

/// Who a merge commit names as author or committer; the time is the merge's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    pub name: String,
    pub email: String,
}

impl Person {
    /// The user as a commit's author: their name (else login) and email, as git can write
    /// them ([`signable_text`]); a name or email with nothing left gives way to the login.
    pub fn author(user: &crate::store::users::UserRow) -> Person {
        let usable =
            |text: &Option<String>| text.as_deref().map(signable_text).filter(|t| !t.is_empty());
        Person {
            name: usable(&user.name).unwrap_or_else(|| user.login.clone()),
            email: usable(&user.email).unwrap_or_else(|| format!("{}@users.noreply", user.login)),
        }
    }

    /// The service as the committer of the commits it makes.
    pub fn service(config: &crate::config::Config) -> Person {
        Person {
            name: "svc".into(),
            email: format!("svc@{}", config.base_url.host_str().unwrap_or("localhost")),
        }
    }
}

/// Delta bases kept by one merge's handle (see `read::PACK_CACHE_BYTES`), and objects
/// kept so that the two sides' diffs and the blob merges read each tree and blob once.
const PACK_CACHE_BYTES: usize = 8 * 1024 * 1024;
const OBJECT_CACHE_BYTES: usize = 16 * 1024 * 1024;

/// A tree merge of head into main.
struct TreeMerge {
    tree: ObjectId,
    conflicts: Vec<String>,
}

impl Repo {
    /// Whether head merges into main without conflicts, writing nothing to disk (it
    /// runs after every push for every recent branch). A head that main contains, or
    /// one that contains main (a fast-forward), merges cleanly without a tree merge.
    pub fn dry_run(&self, main: ObjectId, head: ObjectId) -> Result<MergeCheck, read::Error> {
        let repo = merge_handle(self);
        let bases = merge_bases(&repo, main, head)?;
        check(&repo, main, head, &bases)
    }

    /// Writes a merge commit of head into main, dated now, and answers its id: parents
    /// `[main, head]`, always two (also when main could fast-forward), the merged tree,
    /// and `message` ending in one newline as git writes it. Refuses with
    /// [`Error::Conflicts`], or [`Error::NothingToMerge`] when main contains head
    /// already, writing nothing; moves no ref.
    pub fn merge(
        &self,
        main: ObjectId,
        head: ObjectId,
        author: &Person,
        committer: &Person,
        message: &str,
    ) -> Result<ObjectId, Error> {
        self.plan_merge(main, head)?
            .commit(author, committer, message)
    }

    /// The first half of [`Repo::merge`]: head's and main's merge bases, found once, and
    /// [`Error::NothingToMerge`] when main contains head already. What lies between the
    /// halves (a merge's gate) is checked after that refusal and before any tree merge.
    pub fn plan_merge(&self, main: ObjectId, head: ObjectId) -> Result<Planned, Error> {
        let repo = merge_handle(self);
        let bases = merge_bases(&repo, main, head)?;
        if bases.first() == Some(&head) {
            return Err(Error::NothingToMerge { main, head });
        }
        Ok(Planned {
            repo,
            main,
            head,
            bases,
        })
    }
}

/// A merge whose bases are known and which has something to merge ([`Repo::plan_merge`]).
pub struct Planned {
    repo: gix::Repository,
    main: ObjectId,
    head: ObjectId,
    bases: Vec<ObjectId>,
}

impl Planned {
    /// Writes the merge commit, as [`Repo::merge`] describes.
    pub fn commit(
        self,
        author: &Person,
        committer: &Person,
        message: &str,
    ) -> Result<ObjectId, Error> {
        let Planned {
            mut repo,
            main,
            head,
            bases,
        } = self;
        let tree = match bases.first() {
            None => return Err(Error::Unrelated { main, head }),
            // Main is the merge base: the merge is the head's tree, on disk already.
            Some(base) if *base == main => tree_of(&repo, head)?,
            Some(_) => {
                let merged = merge_trees(&repo, main, head, &bases)?;
                if !merged.conflicts.is_empty() {
                    return Err(Error::Conflicts(merged.conflicts));
                }
                merged.tree
            }
        };
        // From here on writes go to disk.
        let memory = repo.objects.take_object_memory().unwrap_or_default();
        persist(&repo, &memory, tree)?;
        let mut message = message.to_owned();
        if !message.ends_with('\n') {
            message.push('\n');
        }
        let now = gix::date::Time::now_utc();
        let commit = gix::objs::Commit {
            tree,
            parents: [main, head].into_iter().collect(),
            author: signature(author, now),
            committer: signature(committer, now),
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        Ok(repo.write(&commit).map_err(git)?)
    }
}

/// A thread-local handle whose object writes stay in memory, with caches for merging.
fn merge_handle(repo: &Repo) -> gix::Repository {
    let mut repo = repo.0.to_thread_local().with_object_memory();
    repo.objects.set_pack_cache(|| {
        Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(
            PACK_CACHE_BYTES,
        ))
    });
    repo.object_cache_size(OBJECT_CACHE_BYTES);
    repo
}

/// Fails unless `id` names a commit.
fn require_commit(repo: &gix::Repository, id: ObjectId) -> Result<(), read::Error> {
    match repo.try_find_header(id).map_err(git)? {
        Some(header) if header.kind() == Kind::Commit => Ok(()),
        _ => Err(read::Error::NotFound(format!("commit {id}"))),
    }
}

/// The merge bases of two commits, which must exist: the best first, none when their
/// histories are unrelated.
fn merge_bases(
    repo: &gix::Repository,
    one: ObjectId,
    two: ObjectId,
) -> Result<Vec<ObjectId>, read::Error> {
    require_commit(repo, one)?;
    require_commit(repo, two)?;
    let bases = repo.merge_bases_many(one, &[two]).map_err(git)?;
    Ok(bases.into_iter().map(gix::Id::detach).collect())
}

/// The best merge base of two commits, which must exist.
fn best_base(
    repo: &gix::Repository,
    one: ObjectId,
    two: ObjectId,
) -> Result<Option<ObjectId>, read::Error> {
    Ok(merge_bases(repo, one, two)?.first().copied())
}

/// The tree of commit `id`.
fn tree_of(repo: &gix::Repository, id: ObjectId) -> Result<ObjectId, read::Error> {
    let commit = repo.find_commit(id).map_err(git)?;
    Ok(commit.tree_id().map_err(git)?.detach())
}

/// The dry run of head into main, whose merge bases are `bases` (best first).
fn check(
    repo: &gix::Repository,
    main: ObjectId,
    head: ObjectId,
    bases: &[ObjectId],
) -> Result<MergeCheck, read::Error> {
    let Some(&base) = bases.first() else {
        return Ok(MergeCheck {
            clean: false,
            conflicts: Vec::new(),
            unrelated: true,
        });
    };
    if base == main || base == head {
        return Ok(MergeCheck::CLEAN);
    }
    let merged = merge_trees(repo, main, head, bases)?;
    Ok(MergeCheck {
        clean: merged.conflicts.is_empty(),
        conflicts: merged.conflicts,
        unrelated: false,
    })
}

/// Exact renames only: a file moved without a change is followed on either side.
const EXACT_RENAMES: Rewrites = Rewrites {
    copies: None,
    percentage: None,
    limit: 0,
    track_empty: false,
};

/// Merges head into main in `repo`'s object memory; `bases` are their merge bases,
/// at least one. With one, its tree is the ancestor; with more, gix merges them into a
/// virtual one as git does.
fn merge_trees(
    repo: &gix::Repository,
    main: ObjectId,
    head: ObjectId,
    bases: &[ObjectId],
) -> Result<TreeMerge, read::Error> {
    let options = repo
        .tree_merge_options()
        .map_err(git)?
        .with_rewrites(Some(EXACT_RENAMES));
    let labels = Labels {
        ancestor: None,
        current: Some("main".into()),
        other: Some("head".into()),
    };
    let mut outcome = match bases {
        [base] => {
            let (base, ours, theirs) = (
                tree_of(repo, *base)?,
                tree_of(repo, main)?,
                tree_of(repo, head)?,
            );
            repo.merge_trees(base, ours, theirs, labels, options)
                .map_err(git)?
        }
        _ => {
            repo.merge_commits(main, head, labels, options.into())
                .map_err(git)?
                .tree_merge
        }
    };
    let tree = outcome.tree.write().map_err(git)?.detach();
    let how = TreatAsUnresolved::git();
    if !outcome.has_unresolved_conflicts(how) {
        return Ok(TreeMerge {
            tree,
            conflicts: Vec::new(),
        });
    }
    // The paths git would leave with stages in its index.
    let mut index = repo.index_from_tree(&tree).map_err(git)?;
    outcome.index_changed_after_applying_conflicts(&mut index, how, RemovalMode::Prune);
    let mut conflicts: Vec<String> = index
        .entries()
        .iter()
        .filter(|e| e.stage_raw() != 0)
        .map(|e| e.path(&index).to_str_lossy().into_owned())
        .collect();
    conflicts.dedup();
    if conflicts.is_empty() {
        // Unresolved yet without stages: name the conflicts' own paths.
        conflicts = outcome
            .conflicts
            .iter()
            .filter(|c| c.is_unresolved(how))
            .map(|c| c.ours.location().to_str_lossy().into_owned())
            .collect();
        conflicts.sort();
        conflicts.dedup();
    }
    Ok(TreeMerge { tree, conflicts })
}

/// Writes to disk the objects of `memory` that the tree `root` needs: the trees and
/// blobs the merge made. Anything else it names is on disk already, with all it names.
fn persist(repo: &gix::Repository, memory: &Storage, root: ObjectId) -> Result<(), read::Error> {
    let hash = repo.object_hash();
    let mut todo = vec![root];
    let mut order = Vec::new();
    while let Some(id) = todo.pop() {
        let Some((kind, data)) = memory.get(&id) else {
            continue;
        };
        if *kind == Kind::Tree {
            for entry in TreeRefIter::from_bytes(data, hash) {
                todo.push(entry.map_err(git)?.oid.to_owned());
            }
        }
        order.push((*kind, data));
    }
    // Children first: no tree on disk names a missing object, even for a moment.
    for (kind, data) in order.into_iter().rev() {
        repo.write_buf(kind, data).map_err(git)?;
    }
    Ok(())
}

/// Whether git can write `c` in a signature's name or email: it refuses `<`, `>` and a
/// newline there (the commit could not be written), and a control character has no
/// place in either.
pub fn signable(c: char) -> bool {
    !matches!(c, '<' | '>') && !c.is_control()
}

/// `text` without what git cannot write in a signature, trimmed.
pub fn signable_text(text: &str) -> String {
    let kept: String = text.chars().filter(|c| signable(*c)).collect();
    kept.trim().to_owned()
}

/// A commit's signature of `person` at `time`. Whatever a stored name or email holds,
/// the commit can be written: what git refuses is left out.
pub(super) fn signature(person: &Person, time: gix::date::Time) -> gix::actor::Signature {
    gix::actor::Signature {
        name: signable_text(&person.name).into(),
        email: signable_text(&person.email).into(),
        time,
    }
}
