//! Asking before doing what cannot be undone: on a terminal a `[y/N]` question; without
//! one (a script, CI) the command refuses unless its flag (`--yes`, `--force`) says yes.

use std::io::{BufRead, IsTerminal, Write};

use crate::error::{CommandError, Result};

/// Whether a person can be asked: standard input and standard error are terminals.
pub fn can_ask() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Asks `question` on stderr and reads the answer: `y` or `yes` is yes, anything else
/// (Enter too) no.
pub fn ask(question: &str) -> Result<bool> {
    let mut answer = String::new();
    {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{question} [y/N] ");
        let _ = err.flush();
    }
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// The rule of every delete command: `--yes` deletes; a person at a terminal is asked
/// "Delete <what>? [y/N]"; without a terminal nothing is deleted and the error says to
/// pass `--yes`.
pub fn delete(what: &str, yes: bool) -> Result<()> {
    if yes {
        return Ok(());
    }
    if !can_ask() {
        return Err(CommandError::user(format!(
            "not deleting {what}: there is no terminal to ask on"
        ))
        .hint("pass --yes to delete without being asked"));
    }
    if ask(&format!("Delete {what}?"))? {
        return Ok(());
    }
    Err(CommandError::user(format!("{what} was not deleted")))
}
