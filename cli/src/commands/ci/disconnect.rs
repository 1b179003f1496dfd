//! `svc ci disconnect`.

use reqwest::Method;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs, encode};

/// Disconnect a CI connection (owners): its builds and jobs go, the checks they posted stay
///
/// Its webhook URL answers 404 from then on; remove the webhook in the CI service too.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The connection's id (svc ci status shows them)
    pub connection: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let path = format!(
        "{}/connections/{}",
        super::ci_path(&target),
        encode(&args.connection)
    );
    super::send(&target, target.session.request(Method::DELETE, &path)?)?;
    let value = serde_json::json!({"monorepo": target.label(), "disconnected": args.connection});
    print(global, &value, || {
        format!(
            "Disconnected {} from {}; remove its webhook in the CI service too",
            args.connection,
            target.label()
        )
    })
}
