//! `svc branch merge`.

use reqwest::Method;
use svc_protocol::ErrorCode;
use svc_protocol::branch::MergeResult;

use crate::client::{self, Refusal, Session};
use crate::commands::{Global, checks, print};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs};
use crate::workdir;

/// Merge a branch into main with a merge commit, once its checks pass
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch [default: the one checked out here]
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: Option<String>,
    /// Merge past failing, missing or unknown checks; the merge is recorded as forced
    #[arg(long)]
    pub force: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let name = workdir::branch_or_current(args.branch.as_deref())?;
    let mut path = format!("{}/merge", target.branch_path(&name));
    if args.force {
        path.push_str("?force=1");
    }
    let request = target.session.request(Method::POST, &path)?;
    let merged: MergeResult = match target.session.answer(request)? {
        Ok(response) => response.json().map_err(|e| target.session.garbled(&e))?,
        Err(refusal) => return Err(explain(&name, refusal, &target.session)),
    };
    print(global, &merged, || {
        let mut text = format!("Merged {} into main as {}", merged.branch, merged.sha);
        if merged.forced {
            text.push_str(", forced past its checks");
        }
        if let Some(agent) = &merged.merged_agent {
            text.push_str(&format!(" (by {} through agent {agent})", merged.merged_by));
        }
        text
    })
}

/// The merge gate's refusals in words; what to do about each is [`client::advice`]'s.
fn explain(branch: &str, refusal: Refusal, session: &Session) -> CommandError {
    let Some(error) = refusal.error.as_ref() else {
        return session.refusal(refusal);
    };
    let why = match ErrorCode::parse(&error.code) {
        Some(ErrorCode::ChecksNotGreen) => {
            let why = error
                .checks
                .as_ref()
                .map_or_else(|| error.message.clone(), checks::not_green);
            format!("checks are not green ({why})")
        }
        Some(ErrorCode::Conflicts) => {
            let paths = error.paths.as_deref().unwrap_or_default().join(", ");
            format!("it conflicts with main in {paths}")
        }
        Some(ErrorCode::NothingToMerge) => {
            "main has every commit of it already, so there is nothing to merge".to_owned()
        }
        Some(ErrorCode::ChecksUnknown) => {
            format!("the required checks cannot be read ({})", error.message)
        }
        _ => return session.refusal(refusal),
    };
    client::refused(format!("{branch} is not merged: {why}"), &error.code)
}
