//! `svc completions <shell>`.

use clap_complete::Shell;
use clap_complete::env::Shells;

use crate::complete::VAR;
use crate::error::{CommandError, Result};
use crate::terminal::write_out;

/// Print the shell script that completes svc's commands, options and the server's names
///
/// The script calls svc back as you press Tab, so monorepos, repos (-R) and branches
/// complete from the server you are signed in to. install.sh puts it where each shell
/// looks; by hand:
///   bash: svc completions bash > ~/.local/share/bash-completion/completions/svc
///   zsh:  svc completions zsh > ~/.local/share/zsh/site-functions/_svc (in your fpath)
///   fish: svc completions fish > ~/.config/fish/completions/svc.fish
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The shell to complete for
    pub shell: Shell,
}

/// Writes into memory, then to stdout: a closed pipe must end the command quietly.
pub fn run(args: &Args) -> Result<()> {
    let name = args.shell.to_string();
    let shells = Shells::builtins();
    let shell = shells
        .completer(&name)
        .ok_or_else(|| CommandError::user(format!("svc cannot complete for {name}")))?;
    let mut script = Vec::new();
    shell.write_registration(VAR, "svc", "svc", "svc", &mut script)?;
    write_out(&script)
}
