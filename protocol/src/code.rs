//! Reading code: trees, files, history, last commits and commits.
//!
//! Paths are repo-relative with `/` and no leading slash; the root folder is `""`.
//! Names and paths that are not UTF-8 in git are shown with U+FFFD in their place.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// What a tree entry holds, from its git mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum EntryType {
    /// A folder (mode `040000`).
    Tree,
    /// A file (mode `100644`, or `100755` when executable).
    Blob,
    /// A symbolic link (mode `120000`); its blob is the link's target.
    Symlink,
    /// A submodule's commit (mode `160000`); the commit is in another repository.
    Commit,
}

/// One entry of a folder (`getTree`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TreeEntry {
    pub name: String,
    /// The folder's path joined with `name`.
    pub path: String,
    #[serde(rename = "type")]
    pub kind: EntryType,
    /// Octal git mode as `git ls-tree` prints it, e.g. `100644` or `040000`.
    pub mode: String,
    /// Object id: the blob, tree or (submodule) commit.
    pub sha: String,
}

/// A page of a folder (`getTree`): folders first, then by name (byte order); no sizes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TreePage {
    /// The commit the ref resolved to.
    pub commit: String,
    /// The folder, `""` for the root.
    pub path: String,
    pub items: Vec<TreeEntry>,
    /// Opaque; pass as `cursor` for the next page. Null on the last page.
    pub next_cursor: Option<String>,
}

/// Author or committer of a commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Signature {
    pub name: String,
    pub email: String,
    #[serde(with = "time::serde::rfc3339")]
    pub date: OffsetDateTime,
}

/// `Svc-Agent`, `Svc-Worktree` and `Svc-Machine`, read from the last paragraph of the message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Trailers {
    #[serde(rename = "Svc-Agent")]
    pub agent: Option<String>,
    #[serde(rename = "Svc-Worktree")]
    pub worktree: Option<String>,
    #[serde(rename = "Svc-Machine")]
    pub machine: Option<String>,
}

/// One commit (`GET .../commits/{sha}`, history pages and last commits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Commit {
    pub sha: String,
    /// First parent first; a merge has two or more.
    pub parents: Vec<String>,
    /// The message's first line.
    pub title: String,
    /// The whole message, without trailing newlines.
    pub message: String,
    pub author: Signature,
    pub committer: Signature,
    pub trailers: Trailers,
    /// On main, the branch whose merge this commit is.
    pub merged_branch: Option<String>,
}

/// A page of `getHistory`: commits that changed a path, newest first, first-parent order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HistoryPage {
    pub items: Vec<Commit>,
    /// Opaque; pass as `next` to continue. Null when the walk is over (or capped).
    pub next: Option<String>,
    /// False when the page stopped short of `limit` to bound the work of one call; ask
    /// again with `next`.
    pub complete_page: bool,
    /// The walk reached 10,000 commits from the ref before the start of history.
    pub capped: bool,
}

/// The last commit that changed one entry of a folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LastCommitEntry {
    pub name: String,
    pub path: String,
    #[serde(rename = "type")]
    pub kind: EntryType,
    /// Null while not found yet, or when older than the walk reaches (see `older`).
    pub commit: Option<Commit>,
}

/// Where a capped last-commit walk stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Older {
    /// The oldest commit the walk looked at; entries still null last changed before it.
    pub before: String,
}

/// `getLastCommits`: the last commit (first-parent) that changed each entry of a folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LastCommits {
    pub commit: String,
    /// The folder, `""` for the root.
    pub path: String,
    /// False when the walk stopped early to bound its work; null entries may still change.
    pub complete: bool,
    /// When to ask again while not complete.
    pub retry_after_ms: Option<u64>,
    /// Every entry of the folder, folders first, then by name (byte order).
    pub entries: Vec<LastCommitEntry>,
    /// Set when the walk hit its 10,000-commit cap with entries left unfound.
    pub older: Option<Older>,
}
