//! `svc issue agent`.

use reqwest::Method;
use svc_protocol::agent::{IssueAgent, Session};

use crate::commands::{Global, agent, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Launch a coding agent to address an open issue
///
/// The agent is given the issue, works on a branch (by default
/// issue-<number>-<the title's slug>, made off main) and pushes to it. The repo is the
/// issue's project, else the one --project names (a plain repo needs neither). svc agent
/// log --follow shows its work.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The issue's number
    pub number: u32,
    /// What to tell the agent beyond the issue itself (- reads it from standard input)
    #[arg(long, short = 'p')]
    pub prompt: Option<String>,
    /// The branch to work on [default: issue-<number>-<the title's slug>]
    #[arg(long, short = 'b')]
    pub branch: Option<String>,
    /// The repo to work in (its name), when the issue's project is not one repo
    #[arg(long, value_name = "REPO")]
    pub project: Option<String>,
    #[arg(long, value_name = "MODEL", help = agent::MODEL_HELP)]
    pub model: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let prompt = args
        .prompt
        .as_deref()
        .map(|p| agent::text(p, "prompt"))
        .transpose()?;
    let target = target::monorepo(global, &args.monorepo)?;
    let body = IssueAgent {
        prompt,
        branch: args.branch.clone(),
        repo: args.project.clone(),
        model: args.model.clone(),
    };
    let path = format!("{}/issues/{}/agent", target.path(), args.number);
    let session: Session = target
        .session
        .call(target.session.request(Method::POST, &path)?.json(&body))?;
    print(global, &session, || {
        format!(
            "Launched agent session {} for #{}\n{}",
            agent::headline(&session),
            args.number,
            agent::follow_hint(&target, &session)
        )
    })
}
