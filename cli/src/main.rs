//! `svc`: the command line for svc monorepos.

// Output goes through `terminal::outln!` and `errln!`, which return or drop a failed write
// where `println!` panics (a closed pipe).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod browser;
mod client;
mod commands;
mod complete;
mod config;
mod confirm;
mod credstore;
mod editor;
mod error;
mod jq;
mod mcp;
mod meta_sync;
mod table;
mod target;
mod terminal;
mod workdir;

use std::process::ExitCode;

use clap::Parser;

use crate::error::Kind;
use crate::terminal::errln;

fn main() -> ExitCode {
    complete::answer();
    let mut cli = match commands::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    // Errors in JSON only when asked for; --jq asks for JSON data, to filter it.
    let json = cli.global.json;
    cli.global.json |= cli.global.jq.is_some();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.kind == Kind::ReaderLeft => ExitCode::SUCCESS,
        Err(err) if json => {
            errln!("{}", err.to_json());
            ExitCode::from(err.exit_code())
        }
        Err(err) => {
            errln!("svc: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

/// Help and version as clap prints them; a usage error (exit 2) in JSON when `--json`
/// is among the arguments, as every other error is then.
fn usage_error(err: clap::Error) -> ExitCode {
    let asked_json = std::env::args_os().skip(1).any(|a| a == "--json");
    if !err.use_stderr() || !asked_json {
        err.exit()
    }
    let text = err.render().to_string();
    let message = text
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ");
    let error = serde_json::json!({"error": {
        "code": "usage",
        "message": message,
        "causes": [],
        "hints": ["see svc --help"],
        "exit_code": 2,
    }});
    errln!("{error}");
    ExitCode::from(2)
}
