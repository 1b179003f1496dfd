//! `svc repo edit`.

use reqwest::Method;
use svc_protocol::monorepo::Repo;

use crate::client::{Session, split_full_name};
use crate::commands::{Global, print};
use crate::error::Result;

/// Change a repo's settings (owners)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>
    pub monorepo: String,
    /// The repo's name (its path with / as -)
    pub repo: String,
    /// Whether anyone, signed in or not, may download its release files (never its code)
    #[arg(long, value_name = "true|false")]
    pub releases_public: Option<bool>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (owner, name) = split_full_name(&args.monorepo)?;
    let session = Session::open(global.server.as_deref())?;
    let mut body = serde_json::Map::new();
    if let Some(public) = args.releases_public {
        body.insert("releases_public".into(), public.into());
    }
    let path = format!("/v1/monorepos/{owner}/{name}/repos/{}", args.repo);
    let repo: Repo = session.call(session.request(Method::PATCH, &path)?.json(&body))?;
    print(global, &repo, || {
        format!("{}: releases public: {}", repo.name, repo.releases_public)
    })
}
