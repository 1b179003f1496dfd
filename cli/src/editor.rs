//! Text written in the person's editor, as `git commit` and `gh issue create` do:
//! `$VISUAL`, else `$EDITOR`, else `vi`, on a temporary file. Instructions go below a
//! scissors line, as in `git commit --cleanup=scissors`: everything from it on is
//! dropped, so Markdown headings (`# ...`) above it stay.

use std::process::Command;

use crate::error::{CommandError, Result};

/// The line below which nothing written counts.
const SCISSORS: &str = "# ------------------------ >8 ------------------------";

/// Opens the editor on `text` followed by the scissors line and `instructions`, and
/// answers what was written above the scissors, without blank lines at either end.
pub fn compose(file_name: &str, text: &str, instructions: &str) -> Result<String> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join(file_name);
    std::fs::write(&path, format!("{text}\n\n{SCISSORS}\n{instructions}\n"))?;
    let editor = std::env::var("VISUAL")
        .ok()
        .or_else(|| std::env::var("EDITOR").ok())
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "vi".to_owned());
    // Through the shell, so an editor set with arguments (`code --wait`) works as in git.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status()
        .map_err(|e| CommandError::user(format!("cannot start the editor {editor}")).because(&e))?;
    if !status.success() {
        return Err(CommandError::user(format!(
            "the editor {editor} failed ({status}); nothing was sent"
        )));
    }
    Ok(strip(&std::fs::read_to_string(&path)?))
}

/// The text above the scissors line, trimmed of blank lines at both ends.
fn strip(text: &str) -> String {
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| l.trim_end() != SCISSORS)
        .map(str::trim_end)
        .collect();
    kept.join("\n").trim_matches('\n').to_owned()
}

/// Splits composed text into a title (its first line) and a body (the rest).
pub fn title_and_body(text: &str) -> (String, String) {
    match text.split_once('\n') {
        Some((title, body)) => (title.trim().to_owned(), body.trim_matches('\n').to_owned()),
        None => (text.trim().to_owned(), String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_below_the_scissors_and_outer_blank_lines_go() {
        let text = format!(
            "\nFix the build\n\n# Steps\nrun it\n\n{SCISSORS}\nThe first line is the title.\n"
        );
        assert_eq!(strip(&text), "Fix the build\n\n# Steps\nrun it");
        assert_eq!(
            title_and_body(&strip(&text)),
            ("Fix the build".to_owned(), "# Steps\nrun it".to_owned())
        );
        assert_eq!(title_and_body("Only"), ("Only".to_owned(), String::new()));
    }
}
