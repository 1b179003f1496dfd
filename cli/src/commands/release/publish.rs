//! `svc release publish`.

use reqwest::Method;
use svc_protocol::release::Release;

use crate::commands::{Global, branch, print};
use crate::error::Result;
use crate::target::{self, RepoArgs};

/// Publish a draft release once its commit's checks are green; this makes and locks its tag
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The release's tag
    pub tag: String,
    /// Publish past failing, missing or unknown checks
    #[arg(long)]
    pub force: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let mut path = format!("{}/publish", super::path(&target, &args.tag));
    if args.force {
        path.push_str("?force=1");
    }
    let request = target.session.request(Method::POST, &path)?;
    let release: Release = match target.session.answer(request)? {
        Ok(response) => response.json().map_err(|e| target.session.garbled(&e))?,
        Err(refusal) => {
            return Err(super::explain(
                &format!("{} is not published", args.tag),
                &format!("svc release publish {}", args.tag),
                refusal,
                &target.session,
            ));
        }
    };
    print(global, &release, || {
        format!(
            "Published {} at {}",
            release.tag,
            branch::short(&release.commit)
        )
    })
}
