//! `svc issue create`.

use std::io::{IsTerminal, Read};

use reqwest::Method;
use svc_protocol::issue::{CreateIssue, Issue};

use crate::commands::{Global, print};
use crate::editor;
use crate::error::{CommandError, Result};
use crate::target::{self, MonorepoArgs};

/// Open an issue; without --body on a terminal, write it in your editor
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// Its title (in the editor, the first line is the title when this is not given)
    #[arg(long, short = 't')]
    pub title: Option<String>,
    /// Its body, Markdown
    #[arg(long, short = 'b')]
    pub body: Option<String>,
    /// Read the body from this file (- for standard input)
    #[arg(long, short = 'F', value_name = "FILE", conflicts_with = "body")]
    pub body_file: Option<String>,
    /// Labels, like bug,question
    #[arg(long, short = 'l', value_delimiter = ',')]
    pub label: Vec<String>,
    /// Logins to assign, like ann,bob
    #[arg(long, short = 'a', value_delimiter = ',')]
    pub assignee: Vec<String>,
    /// The repo it is about
    #[arg(long)]
    pub project: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let (title, body) = compose(args)?;
    let request = CreateIssue {
        title,
        body: Some(body).filter(|b| !b.is_empty()),
        labels: args.label.clone(),
        assignees: args.assignee.clone(),
        project: args.project.clone(),
        link: Vec::new(),
    };
    let path = format!("{}/issues", target.path());
    let issue: Issue = target
        .session
        .call(target.session.request(Method::POST, &path)?.json(&request))?;
    print(global, &issue, || {
        format!(
            "Opened issue #{} in {}: {}",
            issue.row.number,
            target.label(),
            issue.row.title
        )
    })
}

/// The title and body from the flags, a file, or the editor (on a terminal).
fn compose(args: &Args) -> Result<(String, String)> {
    let body = match (&args.body, args.body_file.as_deref()) {
        (Some(body), _) => Some(body.clone()),
        (None, Some("-")) => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            Some(text)
        }
        (None, Some(file)) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| CommandError::user(format!("cannot read {file}")).because(&e))?,
        ),
        (None, None) => None,
    };
    if let (Some(title), Some(body)) = (&args.title, &body) {
        return Ok((title.clone(), body.clone()));
    }
    if !std::io::stdin().is_terminal() {
        return match &args.title {
            Some(title) => Ok((title.clone(), body.unwrap_or_default())),
            None => Err(CommandError::user("an issue needs a title")
                .hint("pass --title, or run it on a terminal to write it in your editor")),
        };
    }
    let (text, instructions) = match &args.title {
        Some(_) => (
            body.clone().unwrap_or_default(),
            "Write the issue's body above this line (Markdown). An empty body is fine.",
        ),
        None => (
            String::new(),
            "The first line above is the title, the rest the body (Markdown).\nAn empty title opens nothing.",
        ),
    };
    let written = editor::compose("ISSUE_EDITMSG.md", &text, instructions)?;
    let (title, body) = match &args.title {
        Some(title) => (title.clone(), written),
        None => editor::title_and_body(&written),
    };
    if title.trim().is_empty() {
        return Err(CommandError::user("no title written: nothing was opened"));
    }
    Ok((title, body))
}
