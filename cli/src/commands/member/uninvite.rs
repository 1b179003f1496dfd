//! `svc member uninvite`.

use reqwest::Method;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs, encode};

/// Withdraw a pending invite to a monorepo (owners only)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The invited email (see svc member invites)
    pub email: String,
    #[command(flatten)]
    pub target: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let m = target::monorepo(global, &args.target)?;
    let path = format!("{}/invites/{}", m.path(), encode(&args.email));
    m.session.send(m.session.request(Method::DELETE, &path)?)?;
    let value = serde_json::json!({"monorepo": m.label(), "withdrawn": args.email});
    print(global, &value, || {
        format!("Withdrew the invite of {} to {}", args.email, m.label())
    })
}
