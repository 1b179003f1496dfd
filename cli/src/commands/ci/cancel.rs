//! `svc ci cancel`.

use reqwest::Method;
use svc_protocol::ci::{CiBuild, CiState};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Cancel a build that has not finished
///
/// Needs a credential with the write_builds permission (machine credentials have it). A
/// build that is running stops its jobs first (canceling), then is canceled.
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
    let path = format!("{}/cancel", super::build_path(&target, &id));
    let build: CiBuild = super::call(&target, target.session.request(Method::POST, &path)?)?;
    print(global, &build, || {
        let label = super::label(&build);
        let state = super::state(build.state, &build.service_state);
        match build.state {
            CiState::Canceled => format!("Canceled {label}"),
            s if s.is_finished() => format!("{label} finished before it was canceled: {state}"),
            _ => format!("Canceling {label}: it is {state}"),
        }
    })
}
