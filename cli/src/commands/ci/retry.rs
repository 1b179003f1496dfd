//! `svc ci retry`.

use reqwest::Method;
use svc_protocol::ci::CiJob;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Run a job of a build again, as a new job of the same build
///
/// Needs a credential with the write_builds permission (machine credentials have it).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    #[arg(help = super::BUILD_HELP)]
    pub build: String,
    /// The job's id (svc ci view shows them)
    pub job: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let id = super::resolve(&target, &args.build)?;
    let path = format!("{}/retry", super::job_path(&target, &id, &args.job));
    let job: CiJob = super::call(&target, target.session.request(Method::POST, &path)?)?;
    print(global, &job, || {
        format!("Retried job {} as {}", args.job, job.id)
    })
}
