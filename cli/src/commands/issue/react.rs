//! `svc issue react`.

use reqwest::Method;
use svc_protocol::issue::Reaction;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs, encode};

/// React to an issue or one of its comments, or take your reaction back
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The issue's number
    pub number: u32,
    /// +1, -1, laugh, hooray, confused, heart, rocket or eyes
    #[arg(allow_hyphen_values = true)]
    pub content: String,
    /// React to this comment instead of the issue
    #[arg(long)]
    pub comment: Option<i64>,
    /// Take the reaction back
    #[arg(long)]
    pub remove: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let on = match args.comment {
        Some(id) => format!("/comments/{id}"),
        None => String::new(),
    };
    let path = format!(
        "{}/issues/{}{on}/reactions/{}",
        target.path(),
        args.number,
        encode(&args.content)
    );
    let method = if args.remove {
        Method::DELETE
    } else {
        Method::PUT
    };
    let reactions: Vec<Reaction> = target
        .session
        .call(target.session.request(method, &path)?)?;
    print(global, &reactions, || {
        let all: Vec<String> = reactions
            .iter()
            .map(|r| {
                format!(
                    "{} ×{}{}",
                    r.content.as_str(),
                    r.count,
                    if r.me { " (you)" } else { "" }
                )
            })
            .collect();
        match all.is_empty() {
            true => "No reactions".to_owned(),
            false => all.join(", "),
        }
    })
}
