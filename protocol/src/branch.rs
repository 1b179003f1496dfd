//! Branches and their facts, statuses and checks, diffs, merges and reviews.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::code::Commit;

/// Whether a branch's head merges into main without conflicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Mergeable {
    /// The stored dry run of (main, head) merged without conflicts.
    Clean,
    /// The stored dry run of (main, head) conflicts; see `conflicts` for the paths.
    Conflicts,
    /// The facts are stale (`stale: true`); `last_mergeable` holds the earlier value.
    Pending,
}

impl Mergeable {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Clean => "clean",
            Self::Conflicts => "conflicts",
            Self::Pending => "pending",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "clean" => Some(Self::Clean),
            "conflicts" => Some(Self::Conflicts),
            "pending" => Some(Self::Pending),
            _ => None,
        }
    }
}

/// A branch: stored fields, merge facts and computed facts (`listBranches`, `getBranch`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Branch {
    pub repo: String,
    pub name: String,
    pub head: String,
    /// The first pusher, or the creator.
    pub author: Option<String>,
    /// Who pushed last.
    pub pusher: Option<String>,
    /// `open`, `merged` or `deleted`.
    pub state: String,
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub pushed_at: OffsetDateTime,
    /// Merge facts: set once merged.
    #[serde(with = "crate::rfc3339_opt")]
    pub merged_at: Option<OffsetDateTime>,
    pub merged_by: Option<String>,
    pub merged_agent: Option<String>,
    /// The merge commit on main.
    pub merge_sha: Option<String>,
    pub forced: Option<bool>,
    /// Commits on the branch that main lacks; null before the first computation.
    pub ahead: Option<u32>,
    /// Commits on main that the branch lacks.
    pub behind: Option<u32>,
    /// The merge base of main and the head.
    pub base: Option<String>,
    /// `pending` while stale.
    pub mergeable: Mergeable,
    /// While stale: the value of the previous computation (null when there was none).
    pub last_mergeable: Option<Mergeable>,
    /// Paths that conflict in the dry run (when `conflicts`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
    /// True until the facts are for the current main and head.
    pub stale: bool,
    /// Main's head the facts were computed against.
    pub facts_main: Option<String>,
    pub checks: Checks,
    /// Armed to merge itself once its gate passes (`enableAutoMerge`); null when not.
    #[serde(default)]
    pub auto_merge: Option<AutoMerge>,
    /// Its entry in the repo's merge queue (position, state, speculative commit); null
    /// when it is not in the queue.
    #[serde(default)]
    pub queue: Option<QueueEntry>,
}

/// A branch armed to merge itself: the server merges it, as `armed_by` (and the agent
/// recorded when an agent session's credential armed it), within seconds of its checks
/// passing. Disarmed, with an `auto_merge.disabled` event giving the reason, when someone
/// else pushes to it, when the merge is refused, or by hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AutoMerge {
    /// Who armed it: the merge is made as them.
    pub armed_by: String,
    /// The agent that armed it for `armed_by`, if any.
    pub armed_agent: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub armed_at: OffsetDateTime,
}

/// `listBranches`: the default branch on top, then a page of rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BranchList {
    pub default_branch: String,
    pub default_head: Option<String>,
    pub items: Vec<Branch>,
    /// Opaque (the last row's time and name); null on the last page.
    pub next_cursor: Option<String>,
}

/// `POST {r}/branches`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateBranch {
    pub name: String,
    /// A branch name or commit sha; main's head by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `PATCH {r}/branches/{branch}`: omitted fields are kept, `null` clears.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UpdateBranch {
    #[serde(
        default,
        deserialize_with = "crate::nullable::deserialize",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub title: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "crate::nullable::deserialize",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub description: Option<Option<String>>,
}

/// `POST {r}/branches/{branch}/commits` (commitFiles): files written, and deleted, as one
/// commit on the branch, without a checkout.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CommitFiles {
    /// The commit message (the server adds the agent's trailers).
    pub message: String,
    /// The head the caller wrote against: when the branch's head is another, 409
    /// `head_moved` and nothing is written. Absent: whatever the head is (a branch that
    /// does not exist is made from main's head).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9a-fA-F]{40}$"))]
    pub expected_head: Option<String>,
    /// The paths to write or delete, each once.
    pub files: Vec<FileChange>,
}

/// One path of a [`CommitFiles`]: its new content, or `delete: true`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FileChange {
    /// From the repo's root, `/`-separated, without `.`, `..`, `.git` or empty segments.
    pub path: String,
    /// The file's new content, as `encoding` says; absent when deleting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<ContentEncoding>,
    /// Deletes the file (which must exist) instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delete: bool,
}

/// How a [`FileChange`]'s `content` is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ContentEncoding {
    /// The text itself (the default).
    #[default]
    #[serde(rename = "utf-8")]
    Utf8,
    /// Standard base64 of the bytes (for binary files).
    #[serde(rename = "base64")]
    Base64,
}

/// `branchCommits`: the branch's own commits, newest first, each before its parents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BranchCommits {
    pub items: Vec<Commit>,
    /// Opaque; pass as `cursor` for the next page. Null on the last page.
    pub next_cursor: Option<String>,
}

/// The state of one status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StatusState {
    Pending,
    Success,
    Failure,
    Error,
}

impl StatusState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Success => "success",
            Self::Failure => "failure",
            Self::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "success" => Some(Self::Success),
            "failure" => Some(Self::Failure),
            "error" => Some(Self::Error),
            _ => None,
        }
    }
}

/// A commit status: the latest per context counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Status {
    pub sha: String,
    pub context: String,
    pub state: StatusState,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    pub target_url: Option<String>,
    pub description: Option<String>,
    /// Login of the member who posted it; `app:<slug>` or `hook:<id>` for status tokens.
    pub creator: String,
    /// CI service slug, stamped by the server; null when a member posted it.
    pub app: Option<String>,
}

/// `POST {r}/statuses/{sha}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PostStatus {
    pub context: String,
    pub state: StatusState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The merge gate's view of a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ChecksState {
    /// The merge gate passes.
    Success,
    Pending,
    Failure,
    Error,
    /// A required context has not reported.
    Missing,
    /// The required checks cannot be read; an unforced merge is refused.
    Unknown,
}

/// The Checks object of a commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Checks {
    /// The commit the checks are for.
    pub sha: Option<String>,
    pub state: ChecksState,
    /// Required contexts; null while unknown.
    pub required: Option<Vec<String>>,
    /// Why the required checks are unknown: a read failure, or `line N: message`.
    pub checks_unknown: Option<String>,
    /// Required contexts that have not reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
    /// The latest status per context.
    pub statuses: Vec<Status>,
    /// The checks state, or `not_built` when nothing reported and nothing is required.
    pub build_state: String,
}

/// How one file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    /// The same blob moved (exact renames only), possibly with a mode change.
    Renamed,
}

/// Why a file has no patch although it is text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PatchOmitted {
    /// Past the `max_bytes` budget, or past the patches' total limit.
    Budget,
    /// Over 8 MiB on either side.
    TooLarge,
}

/// One changed file of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiffFile {
    pub path: String,
    /// The path before a rename.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    pub status: FileStatus,
    /// Blob ids; null on the side where the file does not exist.
    pub old_sha: Option<String>,
    pub new_sha: Option<String>,
    /// Octal git modes; null on the side where the file does not exist.
    pub old_mode: Option<String>,
    pub new_mode: Option<String>,
    /// A NUL in the first 8,000 bytes of either side.
    pub binary: bool,
    /// Null for binary and too large files.
    pub additions: Option<u64>,
    pub deletions: Option<u64>,
    /// The unified patch (hunks only, no `diff --git` header); always present, null when
    /// the file is binary, too large, past the budget, or patches were not asked for.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub patch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_omitted: Option<PatchOmitted>,
}

/// Totals of a diff.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DiffStats {
    pub files: u64,
    pub additions: u64,
    pub deletions: u64,
}

/// `branchDiff`: three-dot diff from the merge base to the head. A merged branch's is
/// what its merge brought in: `base` and `merge_base` are the merge commit's first
/// parent (main before the merge), `head` the merge commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BranchDiff {
    /// Main's head (a merged branch: main before its merge).
    pub base: String,
    /// The branch's head (a merged branch: its merge commit).
    pub head: String,
    pub merge_base: String,
    pub files: Vec<DiffFile>,
    /// Every changed file, listed or not.
    pub files_total: u64,
    pub too_many_files: bool,
    pub stats: DiffStats,
    /// True when files or patches were left out by a limit.
    pub truncated: bool,
}

/// One line of a streamed diff (`patches=1&stream=1`, `application/x-ndjson`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BranchDiffLine {
    Start {
        base: String,
        head: String,
        merge_base: String,
        files_total: u64,
        too_many_files: bool,
    },
    File(DiffFile),
    End {
        stats: DiffStats,
        truncated: bool,
    },
    Error {
        message: String,
    },
}

/// `mergeBranch`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MergeResult {
    /// The merge commit, now main's head.
    pub sha: String,
    #[serde(with = "time::serde::rfc3339")]
    pub merged_at: OffsetDateTime,
    pub merged_by: String,
    pub merged_agent: Option<String>,
    pub forced: bool,
    pub branch: String,
    pub repo: String,
}

/// One entry of a repo's merge queue (`listQueue`; `mergeBranch` answers 202 with it on
/// a repo with `merge_queue = true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QueueEntry {
    pub id: String,
    pub repo: String,
    pub branch: String,
    /// 1 for the front of the queue; null once out of it.
    pub position: Option<i64>,
    /// `queued` (no speculative commit yet), `testing`, `landed` or `left`.
    pub state: String,
    /// Why it left: `checks_failed`, `conflict`, `timeout`, `by_hand`, `not_open`,
    /// `nothing_to_merge`, `checks_unknown`, `access_lost`, or `change_left` (another
    /// repo's entry of its change left).
    pub reason: Option<String>,
    /// The branch head under test.
    pub head: String,
    /// The speculative merge commit of main, the entries ahead and the branch, fetchable
    /// as `ref`; main moves to exactly this commit when it lands.
    pub speculative_sha: Option<String>,
    /// The commit it was made on: main, or the speculative commit of the entry ahead.
    pub base_sha: Option<String>,
    /// `refs/svc/queue/<id>` while it is in the queue.
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub enqueued_by: String,
    pub enqueued_agent: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When it leaves with `timeout` if it has not landed.
    #[serde(with = "time::serde::rfc3339")]
    pub deadline: OffsetDateTime,
    #[serde(with = "crate::rfc3339_opt")]
    pub ended_at: Option<OffsetDateTime>,
    /// The change it is part of (`mergeChange` on repos with a queue): the change's
    /// entries, one per repo, land together once each is at its queue's front and green.
    #[serde(default)]
    pub change: Option<String>,
}

/// `listQueue`'s answer: the entries in the queue, front first, then the latest out of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Queue {
    pub entries: Vec<QueueEntry>,
}

/// A change: the branches of one name across the repos of a monorepo (`getChange`),
/// each as `getBranch` answers it, by repo name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Change {
    /// The branch name the change goes by.
    pub branch: String,
    /// The repos' branches of that name, open or merged.
    pub branches: Vec<Branch>,
}

/// `mergeChange`'s answer: every branch of the change landed, together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChangeMerge {
    /// The change's id, carried by its `merged` events, their hook deliveries and its
    /// `change.merged` event.
    pub change: String,
    /// One merge per repo, by repo name.
    pub merges: Vec<MergeResult>,
}

/// `mergeChange`'s answer (202) when the change goes through merge queues: its entry in
/// each repo's queue. The entries land together, every main at once, or none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChangeQueued {
    /// The change's id, which its entries, `merged` events and `change.merged` carry.
    pub change: String,
    /// One entry per repo, by repo name.
    pub entries: Vec<QueueEntry>,
}

/// The kind of a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReviewState {
    Comment,
    Approve,
    RequestChanges,
}

impl ReviewState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Comment => "comment",
            Self::Approve => "approve",
            Self::RequestChanges => "request_changes",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "comment" => Some(Self::Comment),
            "approve" => Some(Self::Approve),
            "request_changes" => Some(Self::RequestChanges),
            _ => None,
        }
    }
}

/// A review of a branch: a comment or an approval, never a gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Review {
    pub id: i64,
    pub repo: String,
    pub branch: String,
    pub state: ReviewState,
    pub body: String,
    pub author: String,
    /// The agent (`X-Svc-Agent`) that wrote it for `author`.
    pub agent: Option<String>,
    /// The branch head when it was written.
    pub head: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// `POST {r}/branches/{branch}/reviews`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateReview {
    pub state: ReviewState,
    #[serde(default)]
    pub body: String,
}

/// `listReviews`: oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReviewList {
    pub items: Vec<Review>,
    pub next_cursor: Option<String>,
}
