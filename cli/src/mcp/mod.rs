//! The Model Context Protocol server of `svc mcp`: the tools a coding agent needs on one
//! monorepo, in toolsets (code, branches, reviews, checks, issues, artifacts, releases),
//! over standard input and output.
//!
//! The tools call the API through the CLI's blocking [`Session`], each call on Tokio's
//! blocking pool, so every write goes through the same routes and authorization as the
//! CLI's and is recorded as the caller (and `SVC_AGENT`). An API refusal becomes a tool
//! error carrying the server's message and code, so the agent reads it and the server
//! keeps serving.

mod artifacts;
mod branches;
mod checks;
mod code;
mod issues;
mod releases;
mod render;
mod reviews;
mod schema;

use std::sync::Arc;

use reqwest::Method;
use rmcp::handler::server::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use svc_protocol::agent::{NewSession, Session as AgentSession};
use svc_protocol::monorepo::RepoList;

use crate::client::Session;
use crate::error::{CommandError, Result};
use crate::target::encode;

/// At most this many bytes of a file in one answer.
pub const FILE_CAP: usize = 256 * 1024;

/// A group of tools, chosen with `--toolsets`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Toolset {
    /// Every toolset.
    All,
    /// Trees, files, history, commits and text search at any ref.
    Code,
    /// Branches: list, view, diff, commits, create, edit, write files as a commit, merge.
    Branches,
    /// A branch's reviews: list, comment or request changes (never approve).
    Reviews,
    /// Checks of a commit; CI builds, annotations, a job log's tail, rebuild and retry.
    Checks,
    /// Issues: search, view, create, comment, label, assign, close, reopen.
    Issues,
    /// A branch's artifacts: list, read, comment.
    Artifacts,
    /// Releases and tags: list, view.
    Releases,
}

impl Toolset {
    /// The toolsets `All` stands for.
    const EACH: [Toolset; 7] = [
        Toolset::Code,
        Toolset::Branches,
        Toolset::Reviews,
        Toolset::Checks,
        Toolset::Issues,
        Toolset::Artifacts,
        Toolset::Releases,
    ];

    fn router(self) -> ToolRouter<Server> {
        match self {
            Toolset::All => {
                let mut router = ToolRouter::new();
                for set in Toolset::EACH {
                    router.merge(set.router());
                }
                router
            }
            Toolset::Code => Server::code_router(),
            Toolset::Branches => Server::branches_router(),
            Toolset::Reviews => Server::reviews_router(),
            Toolset::Checks => Server::checks_router(),
            Toolset::Issues => Server::issues_router(),
            Toolset::Artifacts => Server::artifacts_router(),
            Toolset::Releases => Server::releases_router(),
        }
    }
}

/// Which tools a server offers.
#[derive(Debug, Clone)]
pub struct Offer {
    pub toolsets: Vec<Toolset>,
    /// Only tools that change nothing.
    pub read_only: bool,
    /// `start_branch`, which launches a task agent.
    pub start_branch: bool,
}

/// The monorepo the tools work on, and how to reach it.
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

    /// `{r}/branches/{branch}`.
    fn b(&self, repo: &str, branch: &str) -> Result<String> {
        Ok(format!("{}/branches/{}", self.r(repo)?, encode(branch)))
    }

    fn get_json(&self, path: &str) -> Result<Value> {
        self.session.get(path)
    }

    /// Sends `body` as JSON with `method` and answers the JSON answer.
    fn send_json(&self, method: Method, path: &str, body: &impl Serialize) -> Result<Value> {
        let request = self.session.request(method, path)?.json(body);
        self.session.call(request)
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

/// Pretty JSON of an answer.
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
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
    pub fn new(context: Arc<Context>, offer: &Offer) -> Server {
        // `repos` is always offered: every other tool names a repo.
        let mut tool_router = Self::base_router();
        if !offer.start_branch {
            tool_router.remove_route("start_branch");
        }
        for set in &offer.toolsets {
            tool_router.merge(set.router());
        }
        if offer.read_only {
            tool_router.map.retain(|_, route| {
                route
                    .attr
                    .annotations
                    .as_ref()
                    .and_then(|a| a.read_only_hint)
                    == Some(true)
            });
        }
        for route in tool_router.map.values_mut() {
            schema::portable(&mut route.attr);
        }
        Server {
            context,
            tool_router,
        }
    }

    /// Runs `call` on the blocking pool; its error is the tool's error, in words, with
    /// the server's code when it refused.
    async fn call(
        &self,
        call: impl FnOnce(&Context) -> Result<String> + Send + 'static,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        let context = Arc::clone(&self.context);
        let answer = tokio::task::spawn_blocking(move || call(&context)).await;
        Ok(match answer {
            Ok(Ok(text)) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Ok(Err(err)) => {
                let text = match &err.code {
                    Some(code) => format!("{code}: {err}"),
                    None => err.to_string(),
                };
                CallToolResult::error(vec![ContentBlock::text(text)])
            }
            Err(err) => CallToolResult::error(vec![ContentBlock::text(format!(
                "the call failed inside svc mcp: {err}"
            ))]),
        })
    }
}

#[tool_router(router = base_router)]
impl Server {
    #[tool(
        description = "List the repos of the monorepo: each repo's name (what the other tools take as `repo`), its path in the monorepo, and its default branch. Start here.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn repos(&self) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(|c| Ok(pretty(&c.get_json(&format!("{}/repos", c.m()))?)))
            .await
    }

    #[tool(
        description = "Launch a task agent session that makes a change on a new branch `assistant/<suffix>` of a repo (made from main), working from `prompt`. Use it when the user asks for a change to be made; answers the session id and branch, whose progress shows in svc.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
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
             These tools work on it through svc's API (any branch or commit, not only your checkout), with your credential: what you write is recorded as you. \
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
pub async fn serve(context: Arc<Context>, offer: &Offer) -> Result<()> {
    let server = Server::new(context, offer);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn every_tool() -> ToolRouter<Server> {
        let mut router = Server::base_router();
        router.merge(Toolset::All.router());
        router
    }

    #[test]
    fn every_tool_says_whether_it_reads_destroys_or_repeats() {
        for tool in every_tool().list_all() {
            let a = tool.annotations.as_ref().expect("annotations");
            assert!(
                a.read_only_hint.is_some()
                    && a.destructive_hint.is_some()
                    && a.idempotent_hint.is_some(),
                "{} lacks a hint: {a:?}",
                tool.name
            );
        }
    }

    #[test]
    fn toolsets_do_not_share_tools() {
        let total: usize = Toolset::EACH.iter().map(|s| s.router().map.len()).sum();
        assert_eq!(total, Toolset::All.router().map.len());
    }
}
