//! `svc repo view`.

use svc_protocol::monorepo::Repo;

use crate::client::{Session, split_full_name};
use crate::commands::{Global, print};
use crate::error::Result;

/// Show one repo
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>
    pub monorepo: String,
    /// The repo's name (its path with / as -)
    pub repo: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (owner, name) = split_full_name(&args.monorepo)?;
    let session = Session::open(global.server.as_deref())?;
    let repo: Repo = session.get(&format!("/v1/monorepos/{owner}/{name}/repos/{}", args.repo))?;
    print(global, &repo, || {
        format!(
            "{}\npath: {}\nclone: {}\nreleases public: {}",
            repo.name, repo.path, repo.clone_url, repo.releases_public
        )
    })
}
