//! The `code` toolset: a repo's trees, files, history and commits at any ref, and a
//! search of its text.

use reqwest::Method;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;
use svc_protocol::code::{EntryType, HistoryPage, TreePage};

use super::{Context, FILE_CAP, Server, pretty, query, render};
use crate::error::{CommandError, Result};
use crate::target::encode;

/// Tree pages (1,000 entries each) read for one answer.
const TREE_PAGES: usize = 5;
/// A search reads at most this many files, in this many folders.
const SEARCH_FILES: usize = 2000;
const SEARCH_FOLDERS: usize = 1000;
/// A search answers at most this many matching lines.
const SEARCH_MATCHES: usize = 100;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct TreeArgs {
    /// The repo: its name (e.g. `services-api`) or its path in the monorepo (e.g. `services/api`); the repos tool lists them.
    pub repo: String,
    /// A branch name or a commit sha; main by default.
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    /// A folder from the repo's root, like `src/bin`; the root by default.
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct FileArgs {
    /// The repo: its name or its path in the monorepo; the repos tool lists them.
    pub repo: String,
    /// The file's path from the repo's root, like `src/main.rs`.
    pub path: String,
    /// A branch name or a commit sha; main by default.
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    /// Start at this byte of the file (for files over 256 KiB, which come in parts); 0 by default.
    #[serde(default)]
    pub offset: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct HistoryArgs {
    /// The repo: its name or its path in the monorepo; the repos tool lists them.
    pub repo: String,
    /// A branch name or a commit sha; main by default.
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    /// Only commits that changed this file or folder.
    #[serde(default)]
    pub path: Option<String>,
    /// Commits to list, 1 to 100; 30 by default.
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// The `next` token a previous answer gave, to continue further back.
    #[serde(default)]
    pub next: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CommitArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The commit's sha.
    pub sha: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The text to find in lines of files (not a pattern); case does not matter unless `case_sensitive`.
    pub text: String,
    /// A branch name or a commit sha; main by default.
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    /// Only files under this folder, like `src`; the whole repo by default.
    #[serde(default)]
    pub path: Option<String>,
    /// Match case exactly; false by default.
    #[serde(default)]
    pub case_sensitive: Option<bool>,
}

#[tool_router(router = code_router, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "List a folder of a repo at a ref (main by default): one line per entry, folders first with a trailing `/`. Paths are from the repo's root.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn tree(
        &self,
        Parameters(a): Parameters<TreeArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            let (pages, more) = tree_pages(c, &r, a.git_ref.as_deref(), a.path.as_deref())?;
            Ok(render::tree(&pages, more))
        })
        .await
    }

    #[tool(
        description = "Read one file of a repo at a ref (main by default) as text. A binary file is described, not shown. Files over 256 KiB come in parts: the answer says which `offset` reads on.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn file(
        &self,
        Parameters(a): Parameters<FileArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            let bytes = file_bytes(c, &r, a.git_ref.as_deref(), &a.path)?;
            let offset = usize::try_from(a.offset.unwrap_or(0)).unwrap_or(usize::MAX);
            Ok(render::file(&a.path, &bytes, offset, FILE_CAP))
        })
        .await
    }

    #[tool(
        description = "List the commits of a repo at a ref (main by default), newest first, optionally only those that changed a path: sha, date, author, title, and the branch a merge merged.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn history(
        &self,
        Parameters(a): Parameters<HistoryArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            let limit = a.limit.map(|l| l.clamp(1, 100).to_string());
            let page: HistoryPage = c.session.get(&format!(
                "{r}/history{}",
                query(&[
                    ("ref", a.git_ref.as_deref()),
                    ("path", a.path.as_deref()),
                    ("limit", limit.as_deref()),
                    ("next", a.next.as_deref()),
                ])
            ))?;
            Ok(render::history(&page))
        })
        .await
    }

    #[tool(
        description = "Show one commit as JSON: sha, parents, author, committer, message and its svc trailers (Svc-Agent, Svc-Worktree).",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn commit(
        &self,
        Parameters(a): Parameters<CommitArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            Ok(pretty(&c.get_json(&format!(
                "{r}/commits/{}",
                encode(a.sha.trim())
            ))?))
        })
        .await
    }

    #[tool(
        description = "Search the text files of a repo at a ref (main by default) for lines containing `text`: one `path:line: text` per match, 100 at most. Narrow it with `path` in a large repo (it reads up to 2,000 files).",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn search_code(
        &self,
        Parameters(a): Parameters<SearchArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| search(c, &a)).await
    }
}

/// The pages of one folder, and whether entries were left.
fn tree_pages(
    c: &Context,
    r: &str,
    git_ref: Option<&str>,
    path: Option<&str>,
) -> Result<(Vec<TreePage>, bool)> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..TREE_PAGES {
        let page: TreePage = c.session.get(&format!(
            "{r}/tree{}",
            query(&[
                ("ref", git_ref),
                ("path", path),
                ("cursor", cursor.as_deref()),
            ])
        ))?;
        cursor = page.next_cursor.clone();
        pages.push(page);
        if cursor.is_none() {
            break;
        }
    }
    Ok((pages, cursor.is_some()))
}

fn file_bytes(c: &Context, r: &str, git_ref: Option<&str>, path: &str) -> Result<Vec<u8>> {
    let request = c.session.request(
        Method::GET,
        &format!(
            "{r}/file{}",
            query(&[("ref", git_ref), ("path", Some(path))])
        ),
    )?;
    let response = c.session.send(request)?;
    let bytes = response.bytes().map_err(|e| c.session.garbled(&e))?;
    Ok(bytes.to_vec())
}

/// Walks the folders from `path` at one commit (the one the ref named first), reading
/// each text file and keeping the lines that contain the text.
fn search(c: &Context, a: &SearchArgs) -> Result<String> {
    if a.text.is_empty() {
        return Err(CommandError::user("the text to search for is empty"));
    }
    let r = c.r(&a.repo)?;
    let case = a.case_sensitive.unwrap_or(false);
    let needle = if case {
        a.text.clone()
    } else {
        a.text.to_lowercase()
    };
    let mut commit: Option<String> = None;
    let mut folders = vec![a.path.clone().unwrap_or_default()];
    let (mut seen_folders, mut read, mut matches) = (0, 0, Vec::new());
    let mut cut = false;
    while let Some(folder) = folders.pop() {
        if seen_folders == SEARCH_FOLDERS {
            cut = true;
            break;
        }
        seen_folders += 1;
        let at = commit.as_deref().or(a.git_ref.as_deref());
        let (pages, more) = tree_pages(c, &r, at, Some(folder.as_str()).filter(|f| !f.is_empty()))?;
        cut |= more;
        let mut subfolders = Vec::new();
        for page in &pages {
            commit.get_or_insert_with(|| page.commit.clone());
            for entry in &page.items {
                match entry.kind {
                    EntryType::Tree => subfolders.push(entry.path.clone()),
                    EntryType::Blob if read < SEARCH_FILES => {
                        read += 1;
                        let bytes = file_bytes(c, &r, commit.as_deref(), &entry.path)?;
                        render::matching_lines(&entry.path, &bytes, &needle, case, &mut matches);
                    }
                    EntryType::Blob => cut = true,
                    _ => {}
                }
                if matches.len() >= SEARCH_MATCHES {
                    break;
                }
            }
        }
        if matches.len() >= SEARCH_MATCHES {
            cut = true;
            break;
        }
        // Depth first, in the tree's order.
        folders.extend(subfolders.into_iter().rev());
    }
    matches.truncate(SEARCH_MATCHES);
    let mut out = format!(
        "{} for {:?} at commit {} ({read} files read)\n",
        match matches.len() {
            1 => "1 match".to_owned(),
            n => format!("{n} matches"),
        },
        a.text,
        commit.unwrap_or_default()
    );
    for line in &matches {
        out.push_str(line);
        out.push('\n');
    }
    if cut {
        out.push_str("(the search stopped early: narrow it with `path` or a longer text)\n");
    }
    Ok(out)
}
