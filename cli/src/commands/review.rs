//! `svc review`: post a review on a branch, or list its reviews.

use reqwest::Method;
use svc_protocol::branch::{CreateReview, Review, ReviewList, ReviewState};

use crate::commands::{Global, Listing, branch, print, print_list};
use crate::error::{CommandError, Result};
use crate::table::Table;
use crate::target::{self, RepoArgs};
use crate::terminal::when;
use crate::workdir;

/// Approve, comment on or ask for changes on a branch; or --list its reviews
///
/// Reviews are never a merge gate: checks are.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("kind").required(true)
    .args(["approve", "comment", "request_changes", "list"])))]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch [default: the one checked out here]
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: Option<String>,
    /// Approve it
    #[arg(long)]
    pub approve: bool,
    /// Comment on it (needs -m)
    #[arg(long)]
    pub comment: bool,
    /// Ask for changes (needs -m)
    #[arg(long)]
    pub request_changes: bool,
    /// List its reviews, oldest first
    #[arg(long)]
    pub list: bool,
    /// The review's text
    #[arg(
        short = 'm',
        long = "message",
        value_name = "TEXT",
        conflicts_with = "list"
    )]
    pub body: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let name = workdir::branch_or_current(args.branch.as_deref())?;
    let path = format!("{}/reviews", target.branch_path(&name));
    if args.list {
        let list: ReviewList = target.session.get(&path)?;
        return print_list(global, &list, || match list.items.is_empty() {
            true => Listing::empty(format!("No reviews of {name} yet")),
            false => Listing::of(table(&list.items)),
        });
    }
    let state = if args.approve {
        ReviewState::Approve
    } else if args.comment {
        ReviewState::Comment
    } else {
        ReviewState::RequestChanges
    };
    let body = args.body.clone().unwrap_or_default();
    if state != ReviewState::Approve && body.trim().is_empty() {
        return Err(CommandError::user("this review needs a text").hint("pass -m TEXT"));
    }
    let request = target
        .session
        .request(Method::POST, &path)?
        .json(&CreateReview { state, body });
    let review: Review = target.session.call(request)?;
    print(global, &review, || {
        format!(
            "Reviewed {} at {}: {}",
            review.branch,
            branch::short(&review.head),
            said(review.state)
        )
    })
}

fn said(state: ReviewState) -> &'static str {
    match state {
        ReviewState::Approve => "approved",
        ReviewState::Comment => "commented",
        ReviewState::RequestChanges => "changes requested",
    }
}

/// The reviews, one a row: what was said, by whom, on which head, when, and the first
/// line of its text.
pub fn table(reviews: &[Review]) -> Table {
    let mut table = Table::new(&["REVIEW", "BY", "HEAD", "WHEN", "TEXT"]);
    for r in reviews {
        let who = match &r.agent {
            Some(agent) => format!("{} (agent {agent})", r.author),
            None => r.author.clone(),
        };
        let first = r.body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        table.row(vec![
            said(r.state).to_owned(),
            who,
            branch::short(&r.head).to_owned(),
            when(r.created_at),
            first.to_owned(),
        ]);
    }
    table
}
