//! `svc label delete`.

use reqwest::Method;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Delete a label (owners); it leaves every issue that has it
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The label's name
    pub name: String,
    /// Delete without asking (needed where there is no terminal to ask on)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    crate::confirm::delete(
        &format!("the label {} of {}", args.name, target.label()),
        args.yes,
    )?;
    target.session.send(
        target
            .session
            .request(Method::DELETE, &super::path(&target, &args.name))?,
    )?;
    let value = serde_json::json!({"monorepo": target.label(), "deleted": args.name});
    print(global, &value, || {
        format!("Deleted the label {}", args.name)
    })
}
