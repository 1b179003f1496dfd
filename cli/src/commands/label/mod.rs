//! `svc label ...`: a monorepo's labels.

pub mod create;
pub mod delete;
pub mod edit;
pub mod list;

use clap::ValueEnum;
use svc_protocol::issue::LabelColor;

use super::Global;
use crate::error::Result;
use crate::target::{MonorepoTarget, encode};

/// List and manage the labels of a monorepo's issues (owners manage them)
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    List(list::Args),
    Create(create::Args),
    Edit(edit::Args),
    Delete(delete::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::List(args) => list::run(global, &args),
        Command::Create(args) => create::run(global, &args),
        Command::Edit(args) => edit::run(global, &args),
        Command::Delete(args) => delete::run(global, &args),
    }
}

/// A label colour, as `--color` takes it: one of the eight theme colours.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ColorArg {
    Orange,
    Blue,
    Teal,
    Purple,
    Green,
    Yellow,
    Pink,
    Gray,
}

impl From<ColorArg> for LabelColor {
    fn from(c: ColorArg) -> LabelColor {
        match c {
            ColorArg::Orange => LabelColor::Orange,
            ColorArg::Blue => LabelColor::Blue,
            ColorArg::Teal => LabelColor::Teal,
            ColorArg::Purple => LabelColor::Purple,
            ColorArg::Green => LabelColor::Green,
            ColorArg::Yellow => LabelColor::Yellow,
            ColorArg::Pink => LabelColor::Pink,
            ColorArg::Gray => LabelColor::Gray,
        }
    }
}

/// `{m}/labels/{name}`.
pub fn path(target: &MonorepoTarget, name: &str) -> String {
    format!("{}/labels/{}", target.path(), encode(name))
}
