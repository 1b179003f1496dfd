//! `svc repo create`.

use reqwest::Method;
use svc_protocol::monorepo::{CreateRepo, Repo};

use crate::client::{Session, split_full_name};
use crate::commands::{Global, print};
use crate::error::Result;

/// Make an empty repo in a monorepo; the first push to main creates main
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub monorepo: String,
    /// Its folder from the monorepo's root, like services/api
    pub path: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (owner, name) = split_full_name(&args.monorepo)?;
    let session = Session::open(global.server.as_deref())?;
    let body = CreateRepo {
        path: args.path.clone(),
    };
    let repo: Repo = session.call(
        session
            .request(Method::POST, &format!("/v1/monorepos/{owner}/{name}/repos"))?
            .json(&body),
    )?;
    print(global, &repo, || {
        format!(
            "Created {} at {}\nClone: {}",
            repo.name, repo.path, repo.clone_url
        )
    })
}
