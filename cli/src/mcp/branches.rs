//! The `branches` toolset: list, view (facts and checks), diff, commits, create, write
//! files as one commit without a checkout, and merge through the gate (now, or armed to
//! merge itself once the checks pass), one branch or a change across repos.

use reqwest::Method;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;
use serde_json::json;
use svc_protocol::branch::{
    self, AutoMerge, BranchCommits, BranchDiff, ChangeMerge, ChangeQueued, CommitFiles,
    ContentEncoding, CreateBranch, MergeResult, QueueEntry, UpdateBranch,
};

use super::{Server, pretty, query, render};
use crate::error::CommandError;
use crate::target::encode;

/// At most this many bytes of patches in a branch diff.
const DIFF_CAP: usize = 256 * 1024;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BranchesArgs {
    /// The repo: its name or its path in the monorepo; the repos tool lists them.
    pub repo: String,
    /// Comma-separated states among `open`, `merged` and `deleted`; `open,merged` by default.
    #[serde(default)]
    pub state: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RepoArgs {
    /// The repo: its name or its path in the monorepo; the repos tool lists them.
    pub repo: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BranchArgs {
    /// The repo: its name or its path in the monorepo; the repos tool lists them.
    pub repo: String,
    /// The branch, like `feature/login`.
    pub branch: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AutoMergeArgs {
    /// The repo: its name or its path in the monorepo; the repos tool lists them.
    pub repo: String,
    /// The branch, like `feature/login`.
    pub branch: String,
    /// `true` disarms the branch's auto-merge instead of arming it.
    #[serde(default)]
    pub disable: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ChangeArgs {
    /// The branch name the change goes by in every repo, like `feature/login`.
    pub branch: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BranchDiffArgs {
    /// The repo: its name or its path in the monorepo; the repos tool lists them.
    pub repo: String,
    /// The branch, like `feature/login`.
    pub branch: String,
    /// Comma-separated files or folders to diff only; every changed file by default.
    #[serde(default)]
    pub paths: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct UpdateBranchArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The branch, like `feature/login`.
    pub branch: String,
    /// A new title; kept when left out.
    #[serde(default)]
    pub title: Option<String>,
    /// A new description (Markdown); kept when left out.
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BranchCommitsArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The branch, like `feature/login`.
    pub branch: String,
    /// Commits to list, 1 to 100; 30 by default.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CreateBranchArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The new branch's name, like `fix/login-redirect`.
    pub name: String,
    /// A branch name or commit sha to start from; main's head by default.
    #[serde(default)]
    pub from: Option<String>,
    /// A title for the branch, as a pull request has.
    #[serde(default)]
    pub title: Option<String>,
    /// What the branch is for (Markdown).
    #[serde(default)]
    pub description: Option<String>,
}

/// One file of a commit: new text, new bytes in base64, or deleted.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct FileChange {
    /// The file's path from the repo's root, like `src/main.rs`.
    pub path: String,
    /// The file's whole new content: text, or base64 with `encoding` `base64`. Left out when `delete`.
    #[serde(default)]
    pub content: Option<String>,
    /// `base64` when `content` is base64 (a binary file); `utf-8` text by default.
    #[serde(default)]
    pub encoding: Option<Encoding>,
    /// True to delete the file.
    #[serde(default)]
    pub delete: Option<bool>,
}

impl FileChange {
    fn into_protocol(self) -> branch::FileChange {
        branch::FileChange {
            path: self.path,
            content: self.content,
            encoding: self.encoding.map(|e| match e {
                Encoding::Utf8 => ContentEncoding::Utf8,
                Encoding::Base64 => ContentEncoding::Base64,
            }),
            delete: self.delete.unwrap_or(false),
        }
    }
}

/// How a file's `content` is written: the text itself, or standard base64 of the bytes.
// Its variants carry no doc comments, so its schema stays a plain `enum` of strings.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
pub enum Encoding {
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "base64")]
    Base64,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct WriteFilesArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The branch to commit on; one that does not exist yet is made from main's head.
    pub branch: String,
    /// The commit message: a title line, then a blank line and the body if any.
    pub message: String,
    /// The files to write or delete, each by its path from the repo's root.
    pub files: Vec<FileChange>,
    /// The branch head you last saw (a sha): the commit is refused if the branch has moved since.
    #[serde(default)]
    pub expected_head: Option<String>,
}

#[tool_router(router = branches_router, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "List the branches of a repo (open and merged by default, newest activity first) as JSON: name, state, title, author, head, commits ahead of and behind main, mergeability and checks.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn branches(
        &self,
        Parameters(a): Parameters<BranchesArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            let list = c.get_json(&format!(
                "{r}/branches{}",
                query(&[("limit", Some("100")), ("state", a.state.as_deref())])
            ))?;
            Ok(pretty(&list))
        })
        .await
    }

    #[tool(
        description = "View one branch as JSON with its facts, freshly computed: state, title, description, head, ahead/behind main, mergeability and conflicting paths, and its checks (required, missing, failing) that gate the merge.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn branch(
        &self,
        Parameters(a): Parameters<BranchArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let b = c.b(&a.repo, &a.branch)?;
            Ok(pretty(&c.get_json(&format!("{b}?fresh=1"))?))
        })
        .await
    }

    #[tool(
        description = "Show what a branch changes against main (the three-dot diff from their merge base) as a unified diff, with per-file counts; up to 256 KiB of patches, then files are listed without their patch.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn branch_diff(
        &self,
        Parameters(a): Parameters<BranchDiffArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let b = c.b(&a.repo, &a.branch)?;
            let cap = DIFF_CAP.to_string();
            let diff: BranchDiff = c.session.get(&format!(
                "{b}/diff{}",
                query(&[("max_bytes", Some(&cap)), ("paths", a.paths.as_deref())])
            ))?;
            Ok(render::diff(&a.branch, &diff))
        })
        .await
    }

    #[tool(
        description = "List a branch's own commits (those main lacks), newest first: sha, date, author, title and Svc-Agent trailer.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn branch_commits(
        &self,
        Parameters(a): Parameters<BranchCommitsArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let b = c.b(&a.repo, &a.branch)?;
            let limit = a.limit.unwrap_or(30).clamp(1, 100).to_string();
            let page: BranchCommits = c
                .session
                .get(&format!("{b}/commits{}", query(&[("limit", Some(&limit))])))?;
            let mut out = render::commits(&page.items);
            if page.next_cursor.is_some() {
                out.push_str("(older commits of the branch were left out: raise `limit`)\n");
            }
            Ok(out)
        })
        .await
    }

    #[tool(
        description = "Create a branch in a repo from main's head (or from `from`), with an optional title and description; answers the branch as JSON.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn create_branch(
        &self,
        Parameters(a): Parameters<CreateBranchArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            let body = CreateBranch {
                name: a.name,
                from: a.from,
                title: a.title,
                description: a.description,
            };
            Ok(pretty(&c.send_json(
                Method::POST,
                &format!("{r}/branches"),
                &body,
            )?))
        })
        .await
    }

    #[tool(
        description = "Change a branch's title or description (what reviewers read first); answers the branch as JSON.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn update_branch(
        &self,
        Parameters(a): Parameters<UpdateBranchArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            if a.title.is_none() && a.description.is_none() {
                return Err(CommandError::user(
                    "nothing to change: give `title` or `description`",
                ));
            }
            let b = c.b(&a.repo, &a.branch)?;
            let body = UpdateBranch {
                title: a.title.map(Some),
                description: a.description.map(Some),
            };
            Ok(pretty(&c.send_json(Method::PATCH, &b, &body)?))
        })
        .await
    }

    #[tool(
        description = "Write files on a branch as one commit, without a checkout: each file's whole new content (text, or base64 with `encoding` `base64`) or `delete`. Give `expected_head` (the head you read) so the commit is refused when the branch moved. Answers the new commit as JSON; it is authored as you, with your agent's trailers.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn write_files(
        &self,
        Parameters(a): Parameters<WriteFilesArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            if a.files.is_empty() {
                return Err(CommandError::user("no files: name at least one to write"));
            }
            let b = c.b(&a.repo, &a.branch)?;
            let body = CommitFiles {
                message: a.message,
                expected_head: a.expected_head,
                files: a.files.into_iter().map(FileChange::into_protocol).collect(),
            };
            Ok(pretty(&c.send_json(
                Method::POST,
                &format!("{b}/commits"),
                &body,
            )?))
        })
        .await
    }

    #[tool(
        description = "Merge a branch into main through the gate: refused while it conflicts or its required checks are not green (the answer says which). Never forces. Answers the merge commit, or the branch's merge queue entry when the repo has a merge queue.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn merge_branch(
        &self,
        Parameters(a): Parameters<BranchArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let b = c.b(&a.repo, &a.branch)?;
            let request = c.session.request(Method::POST, &format!("{b}/merge"))?;
            let answer: serde_json::Value = c.session.call(request)?;
            if answer.get("sha").is_none() {
                // The repo has a merge queue: the branch joined it (202, its entry).
                let entry: QueueEntry = serde_json::from_value(answer)
                    .map_err(|e| CommandError::internal(format!("a garbled queue entry: {e}")))?;
                return Ok(format!(
                    "{} of {} joined the merge queue at position {}: it lands once its tested commit's checks pass (list_queue).\n{}",
                    entry.branch,
                    entry.repo,
                    entry.position.unwrap_or_default(),
                    pretty(&json!(entry))
                ));
            }
            let merged: MergeResult = serde_json::from_value(answer)
                .map_err(|e| CommandError::internal(format!("a garbled merge: {e}")))?;
            Ok(format!(
                "Merged {} of {} into main as {}.\n{}",
                merged.branch,
                merged.repo,
                merged.sha,
                json!({"sha": merged.sha, "merged_by": merged.merged_by, "merged_agent": merged.merged_agent})
            ))
        })
        .await
    }
    #[tool(
        description = "List a repo's merge queue as JSON: the entries in it, front first (position, state, the speculative merge commit under test), then the latest out of it (landed, or left with a reason).",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn list_queue(
        &self,
        Parameters(a): Parameters<RepoArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| Ok(pretty(&c.get_json(&format!("{}/queue", c.r(&a.repo)?))?)))
            .await
    }

    #[tool(
        description = "Arm a branch to merge itself into main through the gate, as you, within seconds of its required checks passing (so you need not poll), or disarm it with `disable: true`. A push by someone else, or a refused merge (conflicts, unreadable checks), disarms it; the branch's `auto_merge.disabled` event says why. Answers the arming.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn auto_merge_branch(
        &self,
        Parameters(a): Parameters<AutoMergeArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = format!("{}/auto-merge", c.b(&a.repo, &a.branch)?);
            if a.disable {
                c.session.send(c.session.request(Method::DELETE, &path)?)?;
                return Ok(format!(
                    "Auto-merge of {} is off: it merges only when asked.\n{}",
                    a.branch,
                    json!({"auto_merge": null})
                ));
            }
            let armed: AutoMerge = c.session.call(c.session.request(Method::PUT, &path)?)?;
            Ok(format!(
                "Auto-merge armed on {}: the server merges it into main as {} once its checks pass.\n{}",
                a.branch,
                armed.armed_by,
                json!({"auto_merge": armed})
            ))
        })
        .await
    }

    #[tool(
        description = "View a change: the branch of one name in every repo of the monorepo that has it (open or merged), as JSON, each with its facts and the checks that gate its merge.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn view_change(
        &self,
        Parameters(a): Parameters<ChangeArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            Ok(pretty(&c.get_json(&format!(
                "{}/changes/{}",
                c.m(),
                encode(&a.branch)
            ))?))
        })
        .await
    }

    #[tool(
        description = "Land a change: merge the open branch of this name in every repo that has one, all or none. Each branch goes through the gate (refused, naming the repo, while one conflicts or its required checks are not green); then every main moves at once. Never forces. Answers the change id and each repo's merge commit, or its merge queue entries when a repo has a merge queue.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn merge_change(
        &self,
        Parameters(a): Parameters<ChangeArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = format!("{}/changes/{}/merge", c.m(), encode(&a.branch));
            let request = c.session.request(Method::POST, &path)?;
            let answer: serde_json::Value = c.session.call(request)?;
            if answer.get("entries").is_some() {
                // A repo has a merge queue: the change joined the queues (202).
                let queued: ChangeQueued = serde_json::from_value(answer)
                    .map_err(|e| CommandError::internal(format!("a garbled queued change: {e}")))?;
                return Ok(format!(
                    "{} joined the merge queues of {} repo(s) as change {}: every main moves at once when each entry is at its queue's front and green (list_queue).\n{}",
                    a.branch,
                    queued.entries.len(),
                    queued.change,
                    pretty(&json!(queued))
                ));
            }
            let merged: ChangeMerge = serde_json::from_value(answer)
                .map_err(|e| CommandError::internal(format!("a garbled change merge: {e}")))?;
            let repos: Vec<&str> = merged.merges.iter().map(|m| m.repo.as_str()).collect();
            Ok(format!(
                "Merged {} into main in {} as change {}.\n{}",
                a.branch,
                repos.join(", "),
                merged.change,
                json!({"change": merged.change, "merges": merged.merges.iter().map(|m| json!({"repo": m.repo, "sha": m.sha})).collect::<Vec<_>>()})
            ))
        })
        .await
    }
}
