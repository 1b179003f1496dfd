//! `svc monorepo rename`.

use reqwest::Method;
use svc_protocol::monorepo::{MonorepoChanged, RenameMonorepo};

use crate::client::{Session, split_full_name};
use crate::commands::{Global, print};
use crate::error::{CommandError, Result};

/// Rename a monorepo or move it to another owner; the old name keeps working
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub monorepo: String,
    /// The new label: <owner>/<name>, or just a new <name>
    pub to: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (owner, name) = split_full_name(&args.monorepo)?;
    let body = match args.to.split_once('/') {
        Some((o, n)) => RenameMonorepo {
            owner: Some(o.into()),
            name: Some(n.into()),
        },
        None => RenameMonorepo {
            owner: None,
            name: Some(args.to.clone()),
        },
    };
    if body.name.as_deref() == Some("") {
        return Err(CommandError::user("the new name is empty"));
    }
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
