//! `svc mcp`: svc's tools for a coding agent, as a Model Context Protocol server on
//! standard input and output.

use std::sync::Arc;

use crate::commands::Global;
use crate::error::{CommandError, Result};
use crate::mcp::{Offer, Toolset};
use crate::target::{self, MonorepoArgs};

/// Serve svc's tools to a coding agent (Model Context Protocol over stdio)
///
/// Speaks MCP (JSON-RPC lines) on standard input and output, so an agent such as Claude
/// Code or Codex can work on one monorepo, in toolsets:
///   code       tree, file, history, commit, search_code (at any ref)
///   branches   branches, branch, branch_diff, branch_commits, create_branch,
///              update_branch, write_files (one commit, no checkout),
///              merge_branch (through the gate), auto_merge_branch (once green),
///              view_change, merge_change (one branch name in every repo, all or none),
///              list_queue (a repo's merge queue)
///   reviews    reviews, review_branch (comment or request_changes; never approve)
///   checks     checks, ci_builds, ci_build, ci_annotations, ci_job_log,
///              rebuild_ci_build, retry_ci_job
///   issues     issues, issue, labels, create_issue, comment_issue, label_issue,
///              assign_issue, close_issue, reopen_issue
///   artifacts  artifacts, artifact, artifact_file, comment_artifact
///   releases   releases, release, tags
/// `repos` is always offered; `start_branch` (with --allow-start-branch, or in an svc
/// chat session) launches a task agent on a new branch `assistant/<suffix>`. Writes go
/// through the same API routes and permissions as the CLI and are recorded as you (and
/// as the agent, under an agent session's credential).
///
/// The monorepo is --monorepo, else the one of the svc clone you are in, else
/// SVC_MONOREPO. The server and credential are the CLI's own (--server / SVC_SERVER,
/// SVC_TOKEN or `svc login`).
///
/// Add it to Claude Code:
///   claude mcp add svc -- svc mcp --monorepo owner/name
///
/// Add it to Codex, in ~/.codex/config.toml:
///   [mcp_servers.svc]
///   command = "svc"
///   args = ["mcp", "--monorepo", "owner/name"]
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// <owner>/<monorepo> [default: the monorepo of the svc clone you are in, else SVC_MONOREPO]
    #[arg(
        short = 'R',
        long = "monorepo",
        visible_alias = "repo",
        value_name = "OWNER/MONOREPO"
    )]
    pub monorepo: Option<String>,
    /// The toolsets to offer, comma-separated
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "all",
        value_name = "TOOLSETS"
    )]
    pub toolsets: Vec<Toolset>,
    /// Offer only the tools that change nothing
    #[arg(long)]
    pub read_only: bool,
    /// Offer `start_branch`, which launches a task agent on a new branch (always offered when SVC_AGENT_KIND=chat)
    #[arg(long)]
    pub allow_start_branch: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = match &args.monorepo {
        Some(_) => target::monorepo(
            global,
            &MonorepoArgs {
                monorepo: args.monorepo.clone(),
            },
        )?,
        None => match target::monorepo(global, &MonorepoArgs { monorepo: None }) {
            Ok(target) => target,
            Err(err) => match env("SVC_MONOREPO") {
                Some(full) => target::monorepo(
                    global,
                    &MonorepoArgs {
                        monorepo: Some(full),
                    },
                )?,
                None => return Err(err.hint("or set SVC_MONOREPO=<owner>/<monorepo>")),
            },
        },
    };
    // A token is needed for every tool: say so now rather than on each call.
    target.session.token()?;
    let offer = Offer {
        toolsets: args.toolsets.clone(),
        read_only: args.read_only,
        start_branch: args.allow_start_branch || env("SVC_AGENT_KIND").is_some_and(|k| k == "chat"),
    };
    let context = crate::mcp::Context {
        session: target.session,
        owner: target.owner,
        monorepo: target.monorepo,
        repo: env("SVC_REPO"),
        branch: env("SVC_BRANCH"),
    };
    // Held here until the runtime is gone: the blocking HTTP client must not be dropped
    // on an async thread.
    let context = Arc::new(context);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CommandError::internal("cannot start the async runtime").because(&e))?;
    let served = runtime.block_on(crate::mcp::serve(Arc::clone(&context), &offer));
    runtime.shutdown_background();
    drop(context);
    served
}

/// A variable that is set and not empty.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
