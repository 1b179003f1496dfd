//! `svc release delete`.

use reqwest::Method;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, RepoArgs};

/// Delete a release and its files; its tag stays
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The release's tag, named in full
    pub tag: String,
    /// Delete without asking (needed where there is no terminal to ask on)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    crate::confirm::delete(
        &format!("the release {} of {}", args.tag, target.label()),
        args.yes,
    )?;
    let session = &target.session;
    session.send(session.request(Method::DELETE, &super::path(&target, &args.tag))?)?;
    let value = serde_json::json!({"repo": target.label(), "deleted": args.tag});
    print(global, &value, || {
        format!("Deleted the release {} (the tag stays)", args.tag)
    })
}
