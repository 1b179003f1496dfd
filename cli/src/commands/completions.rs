//! `svc completions <shell>`.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::error::Result;

/// Print the shell completion script for svc
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete for
    pub shell: Shell,
}

pub fn run(args: &Args, out: &mut dyn Write) -> Result<()> {
    clap_complete::generate(args.shell, &mut super::Cli::command(), "svc", out);
    Ok(())
}
