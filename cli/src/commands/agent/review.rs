//! `svc agent review`.

use reqwest::Method;
use svc_protocol::agent::{ReviewAgent, Session};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoTarget, RepoArgs};
use crate::workdir;

/// Have an agent review a branch
///
/// The agent reads the branch's changes since it left main and posts one review on it
/// (svc review --list shows it); it pushes nothing. The repo is the one -R names, else
/// the one of the svc clone you are in.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch [default: the one checked out here]
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: Option<String>,
    /// What to look at beyond the changes themselves (- reads it from standard input)
    #[arg(long, short = 'p')]
    pub prompt: Option<String>,
    #[arg(long, value_name = "MODEL", help = super::MODEL_HELP)]
    pub model: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let prompt = args
        .prompt
        .as_deref()
        .map(|p| super::text(p, "prompt"))
        .transpose()?;
    let repo = target::resolve(global, &args.repo)?;
    let name = workdir::branch_or_current(args.branch.as_deref())?;
    let path = format!("{}/review-agent", repo.branch_path(&name));
    let body = ReviewAgent {
        prompt,
        model: args.model.clone(),
    };
    let session: Session = repo
        .session
        .call(repo.session.request(Method::POST, &path)?.json(&body))?;
    let target = MonorepoTarget {
        session: repo.session,
        owner: repo.owner,
        monorepo: repo.monorepo,
    };
    print(global, &session, || {
        format!(
            "Launched review session {}\n{}",
            super::headline(&session),
            super::follow_hint(&target, &session)
        )
    })
}
