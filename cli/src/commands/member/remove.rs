//! `svc member remove`.

use reqwest::Method;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs, encode};

/// Remove someone from a monorepo (owners only); their access ends at once
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The person's login
    pub login: String,
    #[command(flatten)]
    pub target: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let m = target::monorepo(global, &args.target)?;
    let path = format!("{}/members/{}", m.path(), encode(&args.login));
    m.session.send(m.session.request(Method::DELETE, &path)?)?;
    let value = serde_json::json!({"monorepo": m.label(), "removed": args.login});
    print(global, &value, || {
        format!("Removed {} from {}", args.login, m.label())
    })
}
