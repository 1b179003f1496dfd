//! `svc checks post` (once `svc status post`, still accepted).

use reqwest::Method;
use svc_protocol::branch::{PostStatus, Status, StatusState};

use crate::commands::{Global, branch, print};
use crate::error::Result;
use crate::target::{self, RepoArgs};
use crate::workdir;

/// A status's state.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum State {
    Pending,
    Success,
    Failure,
    Error,
}

impl From<State> for StatusState {
    fn from(s: State) -> StatusState {
        match s {
            State::Pending => StatusState::Pending,
            State::Success => StatusState::Success,
            State::Failure => StatusState::Failure,
            State::Error => StatusState::Error,
        }
    }
}

/// Post a status on a commit; the latest per context counts in its checks
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The commit: a full sha, or what git resolves here (HEAD, a branch, a short sha)
    pub commit: String,
    /// What was checked, like ci/test
    pub context: String,
    /// The result
    pub state: State,
    /// Where to see the details
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// One line about the result
    #[arg(long)]
    pub description: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let sha = workdir::commit_sha(&args.commit)?;
    let body = PostStatus {
        context: args.context.clone(),
        state: args.state.into(),
        target_url: args.url.clone(),
        description: args.description.clone(),
    };
    let request = target
        .session
        .request(Method::POST, &format!("{}/statuses/{sha}", target.path()))?
        .json(&body);
    let status: Status = target.session.call(request)?;
    print(global, &status, || {
        format!(
            "Posted {} {} on {}",
            status.context,
            status.state.as_str(),
            branch::short(&status.sha)
        )
    })
}
