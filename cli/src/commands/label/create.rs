//! `svc label create`.

use reqwest::Method;
use svc_protocol::issue::{CreateLabel, Label};

use super::ColorArg;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Make a label (owners)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// Its name (no commas)
    pub name: String,
    /// One of the eight theme colours
    #[arg(long, short = 'c', value_enum, default_value = "gray")]
    pub color: ColorArg,
    /// A line about it
    #[arg(long, short = 'd')]
    pub description: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let body = CreateLabel {
        name: args.name.clone(),
        color: args.color.into(),
        description: args.description.clone(),
    };
    let path = format!("{}/labels", target.path());
    let label: Label = target
        .session
        .call(target.session.request(Method::POST, &path)?.json(&body))?;
    print(global, &label, || {
        format!(
            "Made the label {} ({}) in {}",
            label.name,
            label.color.as_str(),
            target.label()
        )
    })
}
