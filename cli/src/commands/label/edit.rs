//! `svc label edit`.

use reqwest::Method;
use svc_protocol::issue::{Label, UpdateLabel};

use super::ColorArg;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Rename or recolour a label (owners); a rename moves it on every issue
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The label's name
    pub name: String,
    /// Its new name
    #[arg(long)]
    pub rename: Option<String>,
    /// Its new colour
    #[arg(long, short = 'c', value_enum)]
    pub color: Option<ColorArg>,
    /// Its new description ("" clears it)
    #[arg(long, short = 'd')]
    pub description: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let body = UpdateLabel {
        name: args.rename.clone(),
        color: args.color.map(Into::into),
        description: args
            .description
            .as_ref()
            .map(|d| Some(d.clone()).filter(|d| !d.is_empty())),
    };
    let label: Label = target.session.call(
        target
            .session
            .request(Method::PATCH, &super::path(&target, &args.name))?
            .json(&body),
    )?;
    print(global, &label, || {
        format!("Label {} is {} now", label.name, label.color.as_str())
    })
}
