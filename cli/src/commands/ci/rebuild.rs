//! `svc ci rebuild`.

use reqwest::Method;
use svc_protocol::ci::CiBuild;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Build a build's commit again, as a new build of its pipeline
///
/// Needs a credential with the write_builds permission (machine credentials have it).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    #[arg(help = super::BUILD_HELP)]
    pub build: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let id = super::resolve(&target, &args.build)?;
    let path = format!("{}/rebuild", super::build_path(&target, &id));
    let build: CiBuild = super::call(&target, target.session.request(Method::POST, &path)?)?;
    print(global, &build, || {
        let mut text = format!("Rebuilt as {}", super::label(&build));
        if let Some(url) = &build.web_url {
            text.push_str(&format!(": {url}"));
        }
        text
    })
}
