//! `svc agent launch`.

use reqwest::Method;
use svc_protocol::agent::{NewSession, Session};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoTarget, RepoArgs};

/// Launch a coding agent on a branch to carry out a task
///
/// The server runs the agent as you, on the branch of the repo -R names (else the repo of
/// the svc clone you are in): a new branch is made off main, an existing one is worked on
/// as it is. The agent pushes its commits to the branch. The answer is the session;
/// svc agent log --follow shows its work, svc agent send tells it more, svc agent stop
/// stops it.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// What the agent should do (- reads it from standard input)
    pub prompt: String,
    /// The branch to work on: made off main when new
    #[arg(long, short = 'b')]
    pub branch: String,
    #[arg(long, value_name = "MODEL", help = super::MODEL_HELP)]
    pub model: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let prompt = super::text(&args.prompt, "prompt")?;
    let repo = target::resolve(global, &args.repo)?;
    let target = MonorepoTarget {
        session: repo.session,
        owner: repo.owner,
        monorepo: repo.monorepo,
    };
    let body = NewSession {
        prompt,
        branch: Some(args.branch.clone()),
        repo: Some(repo.repo),
        model: args.model.clone(),
    };
    let path = format!("{}/agents", target.path());
    let session: Session = target
        .session
        .call(target.session.request(Method::POST, &path)?.json(&body))?;
    print(global, &session, || {
        format!(
            "Launched agent session {}\n{}",
            super::headline(&session),
            super::follow_hint(&target, &session)
        )
    })
}
