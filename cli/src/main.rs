//! `svc`: the command line for svc monorepos.

mod client;
mod commands;
mod config;
mod credstore;
mod error;
mod meta_sync;
mod target;
mod terminal;
mod workdir;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("svc: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
