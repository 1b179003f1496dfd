//! `svc branch view`.

use svc_protocol::branch::{Branch, ReviewList};

use crate::browser;
use crate::commands::{Global, checks, print, review};
use crate::error::Result;
use crate::target::{self, RepoArgs};
use crate::terminal::when;
use crate::workdir;

/// Show a branch: state, head, mergeability, checks, its merge and reviews
///
/// Title, state, author, head, commits ahead of and behind main, whether it merges cleanly
/// (or the conflicting paths), each check, the merge once merged, and the reviews. With
/// --json: the branch as the API answers it.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch [default: the one checked out here]
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: Option<String>,
    /// Open its page in your browser (or print the page's address when none can be opened)
    #[arg(long)]
    pub web: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let name = workdir::branch_or_current(args.branch.as_deref())?;
    let path = target.branch_path(&name);
    let branch: Branch = target.session.get(&format!("{path}?fresh=1"))?;
    if args.web {
        return browser::show(global, &browser::branch_page(&target, &name));
    }
    if global.json {
        return print(global, &branch, String::new);
    }
    let reviews: ReviewList = target.session.get(&format!("{path}/reviews"))?;
    print(global, &branch, || human(&branch, &reviews))
}

fn human(b: &Branch, reviews: &ReviewList) -> String {
    let mut text = format!("{}  {}\n", b.name, b.state);
    if let Some(title) = &b.title {
        text.push_str(&format!("Title: {title}\n"));
    }
    text.push_str(&format!(
        "Author: {}, last push by {} at {}\n",
        b.author.as_deref().unwrap_or("unknown"),
        b.pusher.as_deref().unwrap_or("unknown"),
        when(b.pushed_at)
    ));
    let counts = match (b.ahead, b.behind) {
        (Some(ahead), Some(behind)) => format!("{ahead} ahead, {behind} behind main"),
        _ => "ahead/behind not computed yet".to_owned(),
    };
    text.push_str(&format!("Head: {} ({counts})\n", b.head));
    if b.state == "open" {
        text.push_str(&format!("Mergeable: {}\n", super::mergeable(b)));
    }
    text.push_str(&format!("Checks: {}", checks::summary(&b.checks)));
    if let (Some(at), Some(sha)) = (b.merged_at, &b.merge_sha) {
        text.push_str(&format!(
            "Merged by {} at {} as {sha}",
            b.merged_by.as_deref().unwrap_or("unknown"),
            when(at)
        ));
        if let Some(agent) = &b.merged_agent {
            text.push_str(&format!(" (agent {agent})"));
        }
        if b.forced == Some(true) {
            text.push_str(", forced past its checks");
        }
        text.push('\n');
    }
    if !reviews.items.is_empty() {
        text.push_str("Reviews:\n");
        for line in review::table(&reviews.items).render().lines() {
            text.push_str(&format!("  {line}\n"));
        }
    }
    if let Some(description) = b.description.as_deref().filter(|d| !d.is_empty()) {
        text.push_str(&format!("\n{description}\n"));
    }
    text
}
