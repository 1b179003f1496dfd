//! `svc issue edit`.

use svc_protocol::issue::{IssueLink, SetChange, UpdateIssue};

use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, MonorepoArgs};

/// Change an issue's title, body, labels, assignees or project, all in one step
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The issue's number
    pub number: u32,
    /// A new title
    #[arg(long, short = 't')]
    pub title: Option<String>,
    /// A new body (refused if someone else edited it since you read it with --base-version)
    #[arg(long, short = 'b')]
    pub body: Option<String>,
    /// The body_version your new body was written on
    #[arg(long, requires = "body")]
    pub base_version: Option<i64>,
    /// Labels to add, like bug,question
    #[arg(long, value_delimiter = ',')]
    pub add_label: Vec<String>,
    /// Labels to take off
    #[arg(long, value_delimiter = ',')]
    pub remove_label: Vec<String>,
    /// Logins to assign
    #[arg(long, value_delimiter = ',')]
    pub add_assignee: Vec<String>,
    /// Logins to unassign
    #[arg(long, value_delimiter = ',')]
    pub remove_assignee: Vec<String>,
    /// The repo it is about ("" for none)
    #[arg(long)]
    pub project: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let set = |add: &[String], remove: &[String]| {
        (!add.is_empty() || !remove.is_empty()).then(|| SetChange {
            add: add.to_vec(),
            remove: remove.to_vec(),
        })
    };
    let body = UpdateIssue {
        title: args.title.clone(),
        body: args.body.clone(),
        base_version: args.base_version,
        project: args
            .project
            .as_ref()
            .map(|p| Some(p.clone()).filter(|p| !p.is_empty())),
        labels: set(&args.add_label, &args.remove_label),
        assignees: set(&args.add_assignee, &args.remove_assignee),
        links: None::<SetChange<IssueLink>>,
        ..UpdateIssue::default()
    };
    if body.title.is_none()
        && body.body.is_none()
        && body.project.is_none()
        && body.labels.is_none()
        && body.assignees.is_none()
    {
        return Err(CommandError::user("nothing to change")
            .hint("pass --title, --body, --add-label, --remove-label, --add-assignee, --remove-assignee or --project"));
    }
    let issue = super::update(&target, args.number, &body)?;
    print(global, &issue, || {
        format!("Updated {}", super::headline(&issue.row))
    })
}
