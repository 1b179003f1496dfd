//! `svc branch merge`.

use reqwest::Method;
use svc_protocol::branch::MergeResult;

use crate::client::Refusal;
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
        Ok(response) => response.json().map_err(|e| {
            CommandError::network(format!(
                "{} answered something unexpected: {e}",
                target.session.server
            ))
        })?,
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

/// The merge gate's refusals in words, with what to do about each.
fn explain(branch: &str, refusal: Refusal, session: &crate::client::Session) -> CommandError {
    let Some(error) = refusal.error.as_ref() else {
        return session.refusal(refusal);
    };
    match error.code.as_str() {
        "checks_not_green" => {
            let why = error
                .checks
                .as_ref()
                .map_or_else(|| error.message.clone(), checks::not_green);
            CommandError::user(format!(
                "{branch} is not merged: checks are not green ({why})"
            ))
            .hint(format!(
                "see svc branch view {branch}; fix them, or pass --force to merge anyway"
            ))
            .code(&error.code)
        }
        "conflicts" => {
            let paths = error.paths.as_deref().unwrap_or_default().join(", ");
            CommandError::user(format!(
                "{branch} is not merged: it conflicts with main in {paths}"
            ))
            .hint("merge main into the branch, resolve, commit and push; --force does not help")
            .code(&error.code)
        }
        "checks_unknown" => CommandError::user(format!(
            "{branch} is not merged: the required checks cannot be read ({})",
            error.message
        ))
        .hint("fix .svc/svc.toml on main, or pass --force to merge anyway")
        .code(&error.code),
        _ => session.refusal(refusal),
    }
}
