//! `svc checks`, `svc checks post`, and the checks summary other commands show.

pub mod post;

use svc_protocol::branch::{Checks, ChecksState, StatusState};

use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs};
use crate::workdir;

/// Show a commit's checks (exits 1 unless they pass the merge gate), or post one
///
/// Exit status: 0 when the checks are success, 1 when they are pending, failing, missing
/// or unknown (so scripts can gate on it), 3 when the server cannot be reached.
/// svc checks post <COMMIT> <CONTEXT> <STATE> posts a status, the checks of CI.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The commit: a full sha, or what git resolves here (HEAD, a branch, a short sha)
    #[arg(default_value = "HEAD")]
    pub commit: String,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Post(post::Args),
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    if let Some(Command::Post(post)) = &args.command {
        return post::run(global, post);
    }
    let target = target::resolve(global, &args.repo)?;
    let sha = workdir::commit_sha(&args.commit)?;
    let checks: Checks = target
        .session
        .get(&format!("{}/commits/{sha}/checks", target.path()))?;
    print(global, &checks, || {
        format!(
            "Checks of {}: {}",
            super::branch::short(&sha),
            summary(&checks)
        )
    })?;
    if checks.state == ChecksState::Success {
        return Ok(());
    }
    Err(CommandError::user(format!(
        "checks of {} are {}",
        super::branch::short(&sha),
        state(checks.state)
    )))
}

pub fn state(s: ChecksState) -> &'static str {
    match s {
        ChecksState::Success => "success",
        ChecksState::Pending => "pending",
        ChecksState::Failure => "failure",
        ChecksState::Error => "error",
        ChecksState::Missing => "missing",
        ChecksState::Unknown => "unknown",
    }
}

/// The state, then a line per context (latest status, or missing) and why the required
/// checks are unknown.
pub fn summary(c: &Checks) -> String {
    let mut text = if c.build_state == "not_built" {
        "not built (nothing reported, nothing required)".to_owned()
    } else {
        state(c.state).to_owned()
    };
    if let Some(required) = c.required.as_ref().filter(|r| !r.is_empty()) {
        text.push_str(&format!(" (required: {})", required.join(", ")));
    }
    text.push('\n');
    for s in &c.statuses {
        text.push_str(&format!("  {:<8} {}", s.state.as_str(), s.context));
        if let Some(d) = s.description.as_deref().filter(|d| !d.is_empty()) {
            text.push_str(&format!(": {d}"));
        }
        if let Some(url) = &s.target_url {
            text.push_str(&format!("  {url}"));
        }
        text.push('\n');
    }
    for context in c.missing.iter().flatten() {
        text.push_str(&format!("  missing  {context}\n"));
    }
    if let Some(why) = &c.checks_unknown {
        text.push_str(&format!("  required checks unknown: {why}\n"));
    }
    text
}

/// The contexts keeping the checks from green, like `ci/test failure, lint missing`.
pub fn not_green(c: &Checks) -> String {
    let mut parts: Vec<String> = c
        .statuses
        .iter()
        .filter(|s| s.state != StatusState::Success)
        .map(|s| format!("{} {}", s.context, s.state.as_str()))
        .collect();
    parts.extend(c.missing.iter().flatten().map(|m| format!("{m} missing")));
    if parts.is_empty() {
        parts.push(state(c.state).to_owned());
    }
    parts.join(", ")
}
