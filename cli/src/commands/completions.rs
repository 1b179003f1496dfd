//! `svc completions <shell>`.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::error::Result;
use crate::terminal::write_out;

/// Print the shell completion script for svc
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete for
    pub shell: Shell,
}

/// Generates into memory, then writes: clap_complete panics on a failed write, and a
/// closed pipe must end the command quietly.
pub fn run(args: &Args) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut super::Cli::command(), "svc", &mut script);
    write_out(&script)
}
