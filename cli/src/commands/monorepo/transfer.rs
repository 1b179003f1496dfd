//! `svc monorepo transfer`.

use reqwest::Method;
use svc_protocol::monorepo::{MonorepoChanged, RenameMonorepo};

use crate::client::{Session, split_full_name};
use crate::commands::{Global, print};
use crate::error::Result;

/// Move a monorepo to another owner, keeping its name; the old label keeps working
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub monorepo: String,
    /// The new owner: an organization you are in, or a person who already owns the monorepo
    pub new_owner: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (owner, name) = split_full_name(&args.monorepo)?;
    let body = RenameMonorepo {
        owner: Some(args.new_owner.clone()),
        name: None,
    };
    let session = Session::open(global.server.as_deref())?;
    let done: MonorepoChanged = session.call(
        session
            .request(Method::PATCH, &format!("/v1/monorepos/{owner}/{name}"))?
            .json(&body),
    )?;
    print(global, &done, || {
        format!("{} is now {}", args.monorepo, done.monorepo.full_name)
    })
}
