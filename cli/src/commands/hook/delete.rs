//! `svc hook delete`.

use reqwest::Method;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Delete a hook (owners); nothing more is sent to it
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The hook's id (svc hook list shows them)
    pub id: String,
    /// Delete without asking (needed where there is no terminal to ask on)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    crate::confirm::delete(
        &format!("the hook {} of {}", args.id, target.label()),
        args.yes,
    )?;
    super::send(
        &target,
        target
            .session
            .request(Method::DELETE, &super::path(&target, &args.id))?,
    )?;
    let value = serde_json::json!({"monorepo": target.label(), "deleted": args.id});
    print(global, &value, || {
        format!("Deleted the hook {} of {}", args.id, target.label())
    })
}
