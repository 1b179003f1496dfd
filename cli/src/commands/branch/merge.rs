//! `svc branch merge`.

use reqwest::Method;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{AutoMerge, MergeResult, QueueEntry};

use crate::client::{self, Refusal, Session};
use crate::commands::{Global, checks, print};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs, Target};
use crate::workdir;

/// Merge a branch into main with a merge commit, once its checks pass (now, or with
/// --auto by the server as soon as they do)
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
    /// Arm the branch to merge itself, as you, within seconds of its checks passing;
    /// a push by someone else or a refused merge disarms it
    #[arg(long, conflicts_with = "force")]
    pub auto: bool,
    /// Disarm the branch's auto-merge
    #[arg(long, conflicts_with_all = ["force", "auto"])]
    pub disable_auto: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let name = workdir::branch_or_current(args.branch.as_deref())?;
    if args.auto || args.disable_auto {
        return auto(global, &target, &name, args.auto);
    }
    let mut path = format!("{}/merge", target.branch_path(&name));
    if args.force {
        path.push_str("?force=1");
    }
    let request = target.session.request(Method::POST, &path)?;
    let response = match target.session.answer(request)? {
        Ok(response) => response,
        Err(refusal) => return Err(explain(&name, refusal, &target.session)),
    };
    if response.status() == reqwest::StatusCode::ACCEPTED {
        // The repo has a merge queue: the branch joined it.
        let entry: QueueEntry = response.json().map_err(|e| target.session.garbled(&e))?;
        return print(global, &entry, || {
            format!(
                "{} joined the merge queue at position {}; it lands once its tested commit's checks pass (svc queue list)",
                entry.branch,
                entry.position.unwrap_or_default()
            )
        });
    }
    let merged: MergeResult = response.json().map_err(|e| target.session.garbled(&e))?;
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

/// Arms (`arm`) or disarms the branch's auto-merge.
fn auto(global: &Global, target: &Target, name: &str, arm: bool) -> Result<()> {
    let path = format!("{}/auto-merge", target.branch_path(name));
    let session = &target.session;
    if !arm {
        session.send(session.request(Method::DELETE, &path)?)?;
        return print(global, &serde_json::json!({"auto_merge": null}), || {
            format!("Auto-merge of {name} is off: it merges only when asked")
        });
    }
    let armed: AutoMerge = session.call(session.request(Method::PUT, &path)?)?;
    print(global, &armed, || {
        let mut by = armed.armed_by.clone();
        if let Some(agent) = &armed.armed_agent {
            by.push_str(&format!(" through agent {agent}"));
        }
        format!(
            "Auto-merge armed on {name}: the server merges it into main as {by} once its checks pass"
        )
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
