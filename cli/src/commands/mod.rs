//! Every command: one file per leaf command, a folder per group.

pub mod completions;

use clap::{Parser, Subcommand};

/// svc: host, follow and collaborate on monorepos.
#[derive(Debug, Parser)]
#[command(name = "svc", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Completions(completions::Args),
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Completions(args) => completions::run(&args, &mut std::io::stdout().lock()),
    }
}
