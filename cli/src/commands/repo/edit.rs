//! `svc repo edit`.

use reqwest::Method;
use svc_protocol::monorepo::Repo;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target;

/// Change a repo's settings (owners)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub named: super::Named,
    /// Whether anyone, signed in or not, may download its release files (never its code)
    #[arg(long, value_name = "true|false")]
    pub releases_public: Option<bool>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.named.repo_args())?;
    let mut body = serde_json::Map::new();
    if let Some(public) = args.releases_public {
        body.insert("releases_public".into(), public.into());
    }
    let repo: Repo = target.session.call(
        target
            .session
            .request(Method::PATCH, &target.path())?
            .json(&body),
    )?;
    print(global, &repo, || {
        format!("{}: releases public: {}", repo.name, repo.releases_public)
    })
}
