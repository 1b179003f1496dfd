//! The Model Context Protocol server of `svc mcp`: svc's read tools (and, when allowed,
//! `start_branch`) for a coding agent, over standard input and output.
//!
//! The tools call the API through the CLI's blocking [`Session`], each call on Tokio's
//! blocking pool; an API refusal becomes a tool error carrying the server's message, so
//! the agent reads it and the server keeps serving.

mod render;

use std::sync::Arc;

use reqwest::Method;
use rmcp::handler::server::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::Value;
use svc_protocol::agent::{NewSession, Session as AgentSession};
use svc_protocol::branch::BranchDiff;
use svc_protocol::code::{HistoryPage, TreePage};
use svc_protocol::monorepo::RepoList;

use crate::client::Session;
use crate::error::{CommandError, Result};
use crate::target::encode;

/// At most this many bytes of a file in one answer.
pub const FILE_CAP: usize = 256 * 1024;
/// At most this many bytes of patches in a branch diff.
const DIFF_CAP: usize = 256 * 1024;
/// Tree pages (1,000 entries each) read for one answer.
const TREE_PAGES: usize = 5;

/// The monorepo the tools read, and how to reach it.
pub struct Context {
    pub session: Session,
    pub owner: String,
    pub monorepo: String,
    /// `SVC_REPO` and `SVC_BRANCH` of an agent session, named in the instructions.
    pub repo: Option<String>,
    pub branch: Option<String>,
}

impl Context {
    /// `{m}`: `/v1/monorepos/{owner}/{monorepo}`.
    fn m(&self) -> String {
        format!(
            "/v1/monorepos/{}/{}",
            encode(&self.owner),
            encode(&self.monorepo)
        )
    }

    /// The name of a repo given by its name or its path (`services/api`, `.`).
    fn repo_name(&self, repo: &str) -> Result<String> {
        let repo = repo.trim().trim_matches('/');
        let repo = if repo.is_empty() { "." } else { repo };
        if !repo.contains('/') && repo != "." {
            return Ok(repo.to_owned());
        }
        let repos: RepoList = self.session.get(&format!("{}/repos", self.m()))?;
        let found = repos
            .items
            .into_iter()
            .find(|r| r.path == repo)
            .ok_or_else(|| {
                CommandError::user(format!(
                    "{}/{} has no repo at {repo}",
                    self.owner, self.monorepo
                ))
                .hint("the repos tool lists the repos with their names and paths")
            })?;
        Ok(found.name)
    }

    /// `{r}` for a repo given by its name or its path.
    fn r(&self, repo: &str) -> Result<String> {
        Ok(format!(
            "{}/repos/{}",
            self.m(),
            encode(&self.repo_name(repo)?)
        ))
    }

    fn get_json(&self, path: &str) -> Result<Value> {
        self.session.get(path)
    }
}

/// `?a=b&c=d` of the pairs that have a value.
fn query(pairs: &[(&str, Option<&str>)]) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    for (key, value) in pairs {
        if let Some(value) = value {
            q.append_pair(key, value);
        }
    }
    let q = q.finish();
    if q.is_empty() { q } else { format!("?{q}") }
}

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
    pub limit: Option<u32>,
    /// The `next` token a previous answer gave, to continue further back.
    #[serde(default)]
    pub next: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BranchesArgs {
    /// The repo: its name or its path in the monorepo; the repos tool lists them.
    pub repo: String,
    /// Comma-separated states among `open`, `merged` and `deleted`; `open,merged` by default.
    #[serde(default)]
    pub state: Option<String>,
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
pub struct IssuesArgs {
    /// Search words that must all appear in the title or body (the last may be the start of a word).
    #[serde(default)]
    pub q: Option<String>,
    /// `open` (default), `closed` or `all`.
    #[serde(default)]
    pub state: Option<String>,
    /// Comma-separated label names: only issues with all of them.
    #[serde(default)]
    pub labels: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct IssueArgs {
    /// The issue's number, as in `#12`.
    pub number: u64,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct StartBranchArgs {
    /// The repo the agent works in: its name or its path in the monorepo.
    pub repo: String,
    /// The new branch is `assistant/<suffix>`: a short name like `fix-login-redirect`.
    pub suffix: String,
    /// The task for the agent: what to change and why, with everything it needs to know.
    pub prompt: String,
}

/// The MCP server: the tools of one monorepo.
#[derive(Clone)]
pub struct Server {
    context: Arc<Context>,
    tool_router: ToolRouter<Server>,
}

impl Server {
    pub fn new(context: Arc<Context>, allow_start_branch: bool) -> Server {
        let mut tool_router = Self::tool_router();
        if !allow_start_branch {
            tool_router.remove_route("start_branch");
        }
        Server {
            context,
            tool_router,
        }
    }

    /// Runs `call` on the blocking pool; its error is the tool's error, in words.
    async fn call(
        &self,
        call: impl FnOnce(&Context) -> Result<String> + Send + 'static,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        let context = Arc::clone(&self.context);
        let answer = tokio::task::spawn_blocking(move || call(&context)).await;
        Ok(match answer {
            Ok(Ok(text)) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Ok(Err(err)) => CallToolResult::error(vec![ContentBlock::text(err.to_string())]),
            Err(err) => CallToolResult::error(vec![ContentBlock::text(format!(
                "the call failed inside svc mcp: {err}"
            ))]),
        })
    }
}

/// Pretty JSON of an answer.
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

#[tool_router]
impl Server {
    #[tool(
        description = "List the repos of the monorepo: each repo's name (what the other tools take as `repo`), its path in the monorepo, and its default branch. Start here.",
        annotations(read_only_hint = true)
    )]
    async fn repos(&self) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(|c| Ok(pretty(&c.get_json(&format!("{}/repos", c.m()))?)))
            .await
    }

    #[tool(
        description = "List a folder of a repo at a ref (main by default): one line per entry, folders first with a trailing `/`. Paths are from the repo's root.",
        annotations(read_only_hint = true)
    )]
    async fn tree(
        &self,
        Parameters(a): Parameters<TreeArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            let mut pages = Vec::new();
            let mut cursor: Option<String> = None;
            for _ in 0..TREE_PAGES {
                let page: TreePage = c.session.get(&format!(
                    "{r}/tree{}",
                    query(&[
                        ("ref", a.git_ref.as_deref()),
                        ("path", a.path.as_deref()),
                        ("cursor", cursor.as_deref()),
                    ])
                ))?;
                cursor = page.next_cursor.clone();
                pages.push(page);
                if cursor.is_none() {
                    break;
                }
            }
            Ok(render::tree(&pages, cursor.is_some()))
        })
        .await
    }

    #[tool(
        description = "Read one file of a repo at a ref (main by default) as text. A binary file is described, not shown. Files over 256 KiB come in parts: the answer says which `offset` reads on.",
        annotations(read_only_hint = true)
    )]
    async fn file(
        &self,
        Parameters(a): Parameters<FileArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            let request = c.session.request(
                Method::GET,
                &format!(
                    "{r}/file{}",
                    query(&[("ref", a.git_ref.as_deref()), ("path", Some(&a.path))])
                ),
            )?;
            let response = c.session.send(request)?;
            let bytes = response.bytes().map_err(|e| c.session.garbled(&e))?;
            let offset = usize::try_from(a.offset.unwrap_or(0)).unwrap_or(usize::MAX);
            Ok(render::file(&a.path, &bytes, offset, FILE_CAP))
        })
        .await
    }

    #[tool(
        description = "List the commits of a repo at a ref (main by default), newest first, optionally only those that changed a path: sha, date, author, title, and the branch a merge merged.",
        annotations(read_only_hint = true)
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
        description = "List the branches of a repo (open and merged by default, newest activity first) as JSON: name, state, title, author, head, commits ahead of and behind main, mergeability and checks.",
        annotations(read_only_hint = true)
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
        description = "Show what a branch changes against main (the three-dot diff from their merge base) as a unified diff, with per-file counts; up to 256 KiB of patches, then files are listed without their patch.",
        annotations(read_only_hint = true)
    )]
    async fn branch_diff(
        &self,
        Parameters(a): Parameters<BranchDiffArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            let cap = DIFF_CAP.to_string();
            let diff: BranchDiff = c.session.get(&format!(
                "{r}/branches/{}/diff{}",
                encode(&a.branch),
                query(&[("max_bytes", Some(&cap)), ("paths", a.paths.as_deref())])
            ))?;
            Ok(render::diff(&a.branch, &diff))
        })
        .await
    }

    #[tool(
        description = "List or search the monorepo's issues (30 at most, newest first) as JSON. `q` searches titles and bodies for words; this is the search svc offers (there is no code search: use tree and file to read code).",
        annotations(read_only_hint = true)
    )]
    async fn issues(
        &self,
        Parameters(a): Parameters<IssuesArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let list = c.get_json(&format!(
                "{}/issues{}",
                c.m(),
                query(&[
                    ("q", a.q.as_deref()),
                    ("state", a.state.as_deref()),
                    ("labels", a.labels.as_deref()),
                ])
            ))?;
            Ok(pretty(&list))
        })
        .await
    }

    #[tool(
        description = "Read one issue by number as JSON: title, body, state, labels, assignees, linked branches, and its timeline (comments and events, oldest first).",
        annotations(read_only_hint = true)
    )]
    async fn issue(
        &self,
        Parameters(a): Parameters<IssueArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = format!("{}/issues/{}", c.m(), a.number);
            let issue = c.get_json(&path)?;
            let timeline = c.get_json(&format!("{path}/timeline?limit=250"))?;
            Ok(pretty(&serde_json::json!({
                "issue": issue,
                "timeline": timeline,
            })))
        })
        .await
    }

    #[tool(
        description = "Launch a task agent session that makes a change on a new branch `assistant/<suffix>` of a repo (made from main), working from `prompt`. Use it when the user asks for a change to be made; answers the session id and branch, whose progress shows in svc.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn start_branch(
        &self,
        Parameters(a): Parameters<StartBranchArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let suffix = a
                .suffix
                .trim()
                .trim_start_matches("assistant/")
                .trim_matches('/');
            if suffix.is_empty() {
                return Err(CommandError::user("the suffix is empty: name the branch"));
            }
            if a.prompt.trim().is_empty() {
                return Err(CommandError::user("the prompt is empty: say what to do"));
            }
            let repo = c.repo_name(&a.repo)?;
            let body = NewSession {
                prompt: a.prompt,
                branch: Some(format!("assistant/{suffix}")),
                repo: Some(repo),
                model: None,
            };
            let request = c
                .session
                .request(Method::POST, &format!("{}/agents", c.m()))?
                .json(&body);
            let session: AgentSession = c.session.call(request)?;
            let branch = session.branch.as_deref().unwrap_or_default();
            Ok(format!(
                "Started task session {} on branch {branch} of repo {} ({}).\n{}",
                session.id,
                session.repo.as_deref().unwrap_or_default(),
                serde_json::to_value(session.state)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                serde_json::json!({"session": session.id, "branch": branch}),
            ))
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let c = &self.context;
        let mut instructions = format!(
            "svc hosts the monorepo {}/{} on {}: several git repos side by side, each with branches that merge into main, and monorepo-wide issues. \
             These tools read it through svc's API (any branch or commit, not only your checkout). \
             Repos are named by their name or their path (the repos tool lists both); refs default to main.",
            c.owner, c.monorepo, c.session.server
        );
        if let Some(repo) = &c.repo {
            instructions.push_str(&format!(" This session works in the repo {repo}"));
            if let Some(branch) = &c.branch {
                instructions.push_str(&format!(" on the branch {branch}"));
            }
            instructions.push('.');
        }
        if self.tool_router.has_route("start_branch") {
            instructions.push_str(
                " start_branch hands a change to a new task agent on a branch of its own; it does not wait for the change.",
            );
        }
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("svc", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions)
    }
}

/// Serves the tools on standard input and output until the client closes them.
pub async fn serve(context: Arc<Context>, allow_start_branch: bool) -> Result<()> {
    let server = Server::new(context, allow_start_branch);
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| CommandError::user("no MCP session: the handshake failed").because(&e))?;
    running
        .waiting()
        .await
        .map_err(|e| CommandError::internal("the MCP server stopped").because(&e))?;
    Ok(())
}
