//! `svc branch create`.

use reqwest::Method;
use svc_protocol::branch::{Branch, CreateBranch};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, RepoArgs};

/// Make a branch on the server, pointing at main's head or --from, without a new commit
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The new branch's name
    pub name: String,
    /// A branch or commit sha to start from [default: main's head]
    #[arg(long, value_name = "REF")]
    pub from: Option<String>,
    /// Its title, which becomes the merge commit's subject
    #[arg(long)]
    pub title: Option<String>,
    /// Its description, which becomes the merge commit's body
    #[arg(long)]
    pub description: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let body = CreateBranch {
        name: args.name.clone(),
        from: args.from.clone(),
        title: args.title.clone(),
        description: args.description.clone(),
    };
    let request = target
        .session
        .request(Method::POST, &format!("{}/branches", target.path()))?
        .json(&body);
    let branch: Branch = target.session.call(request)?;
    print(global, &branch, || {
        format!("Created branch {} at {}", branch.name, branch.head)
    })
}
