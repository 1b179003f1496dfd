//! `svc issue comment`.

use std::io::Read;

use reqwest::Method;
use svc_protocol::issue::{CommentBody, IssueComment};

use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, MonorepoArgs};

/// Comment on an issue
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The issue's number
    pub number: u32,
    /// The comment, Markdown (- reads it from standard input)
    #[arg(long, short = 'b')]
    pub body: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let body = match args.body.as_str() {
        "-" => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            text
        }
        text => text.to_owned(),
    };
    if body.trim().is_empty() {
        return Err(CommandError::user("an empty comment says nothing"));
    }
    let path = format!("{}/issues/{}/comments", target.path(), args.number);
    let comment: IssueComment = target.session.call(
        target
            .session
            .request(Method::POST, &path)?
            .json(&CommentBody { body }),
    )?;
    print(global, &comment, || {
        format!("Commented on #{} (comment {})", args.number, comment.id)
    })
}
