//! `svc change merge`.

use reqwest::Method;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{ChangeMerge, ChangeQueued};

use crate::client::{self, Refusal, Session};
use crate::commands::branch::short;
use crate::commands::{Global, checks, print};
use crate::error::{CommandError, Result};
use crate::target::{self, MonorepoArgs, encode};
use crate::workdir;

/// Land a change: merge the branch of this name in every repo that has it open, all or none
///
/// Each branch's checks must pass (or --force); then every repo's main moves at once,
/// or none does. When a repo of the change has a merge queue, the change joins the
/// queues instead and lands, every main at once, when each entry is tested green.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The branch name [default: the one checked out here]
    pub branch: Option<String>,
    /// Merge past failing, missing or unknown checks; the merges are recorded as forced
    #[arg(long)]
    pub force: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let name = workdir::branch_or_current(args.branch.as_deref())?;
    let mut path = format!("{}/changes/{}/merge", target.path(), encode(&name));
    if args.force {
        path.push_str("?force=1");
    }
    let request = target.session.request(Method::POST, &path)?;
    let response = match target.session.answer(request)? {
        Ok(response) => response,
        Err(refusal) => return Err(explain(&name, refusal, &target.session)),
    };
    if response.status() == reqwest::StatusCode::ACCEPTED {
        // A repo of the change has a merge queue: the change joined the queues.
        let queued: ChangeQueued = response.json().map_err(|e| target.session.garbled(&e))?;
        return print(global, &queued, || {
            let mut text = format!(
                "{name} joined the merge queues of {} repo(s) as change {}; every main moves at once when each is at its queue's front and green (svc queue list)",
                queued.entries.len(),
                queued.change
            );
            for e in &queued.entries {
                text.push_str(&format!(
                    "\n  {}  position {}",
                    e.repo,
                    e.position.unwrap_or_default()
                ));
            }
            text
        });
    }
    let merged: ChangeMerge = response.json().map_err(|e| target.session.garbled(&e))?;
    print(global, &merged, || {
        let mut text = format!(
            "Merged {name} into main in {} repo(s) as change {}",
            merged.merges.len(),
            merged.change
        );
        if merged.merges.iter().any(|m| m.forced) {
            text.push_str(", forced past its checks");
        }
        for m in &merged.merges {
            text.push_str(&format!("\n  {}  {}", m.repo, short(&m.sha)));
        }
        text
    })
}

/// The refusals in words (the server's message names the repo); what to do about each is
/// [`client::advice`]'s.
fn explain(branch: &str, refusal: Refusal, session: &Session) -> CommandError {
    let Some(error) = refusal.error.as_ref() else {
        return session.refusal(refusal);
    };
    let why = match ErrorCode::parse(&error.code) {
        Some(ErrorCode::ChecksNotGreen) => {
            let why = error
                .checks
                .as_ref()
                .map_or_else(String::new, |c| format!(" ({})", checks::not_green(c)));
            format!("{}{why}", error.message)
        }
        Some(
            ErrorCode::Conflicts
            | ErrorCode::NothingToMerge
            | ErrorCode::ChecksUnknown
            | ErrorCode::MainMoved
            | ErrorCode::NoMain,
        ) => error.message.clone(),
        _ => return session.refusal(refusal),
    };
    client::refused(
        format!("{branch} is not merged in any repo: {why}"),
        &error.code,
    )
}
