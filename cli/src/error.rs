//! Command failures: what went wrong, what it was caused by, and what to do, each on its
//! own line; and an exit code that tells a script a user error from a server that cannot
//! be reached or a bug.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Bad input, not signed in, not found, refused: exit 1.
    User,
    /// The server could not be reached or answered garbage: exit 3.
    Network,
    /// A fault of ours or of the machine: exit 70 (EX_SOFTWARE).
    Internal,
    /// Stdout's reader went away (`svc branch list | head -1`, a pager quit): not a
    /// failure. The command stops at the write that found out, prints nothing more and
    /// exits 0, as ripgrep and most Rust tools do, rather than 141 (a shell's code for
    /// death by SIGPIPE): the reader chose to stop, so `set -o pipefail` scripts should
    /// not fail, and exiting 141 would only pretend to be a signal. SIGPIPE stays ignored
    /// (Rust's default), so a closed socket or a git child that quit is an error to
    /// report, never a silent death, in the commands and in the daemon alike.
    ReaderLeft,
}

#[derive(Debug)]
pub struct CommandError {
    pub kind: Kind,
    pub message: String,
    /// The errors under this one, outermost first ("caused by: ..."): the io, HTTP, TOML
    /// or JSON failure the message stands on, kept whole rather than flattened into it.
    pub causes: Vec<String>,
    pub hints: Vec<String>,
    /// The server's error code when the server refused (`not_found`, `branch_exists`, ...).
    pub code: Option<String>,
}

pub type Result<T, E = CommandError> = std::result::Result<T, E>;

impl CommandError {
    fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            causes: Vec::new(),
            hints: Vec::new(),
            code: None,
        }
    }

    pub fn user(message: impl Into<String>) -> Self {
        Self::new(Kind::User, message)
    }

    pub fn network(message: impl Into<String>) -> Self {
        Self::new(Kind::Network, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Kind::Internal, message)
    }

    /// See [`Kind::ReaderLeft`].
    pub fn reader_left() -> Self {
        Self::new(Kind::ReaderLeft, "stdout was closed")
    }

    /// Records `error` and each error under it as causes. A cause that repeats the one
    /// above it (many errors print their source inside their own text) is left out.
    pub fn because(mut self, error: &(dyn std::error::Error + 'static)) -> Self {
        let mut next = Some(error);
        while let Some(e) = next {
            let text = e.to_string();
            let said = self.causes.last().unwrap_or(&self.message);
            if !text.is_empty() && !said.contains(&text) {
                self.causes.push(text);
            }
            next = e.source();
        }
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// Records the server's error code, for `--json` errors.
    pub fn code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// The error as `--json` prints it, on stderr: `{"error": {"code", "message",
    /// "causes", "hints", "exit_code"}}`, `code` being the server's when it refused, else
    /// what the exit code stands for.
    pub fn to_json(&self) -> serde_json::Value {
        let code = self.code.clone().unwrap_or_else(|| {
            match self.kind {
                Kind::User => "user_error",
                Kind::Network => "unreachable",
                Kind::Internal => "internal",
                Kind::ReaderLeft => "reader_left",
            }
            .to_owned()
        });
        serde_json::json!({"error": {
            "code": code,
            "message": self.message,
            "causes": self.causes,
            "hints": self.hints,
            "exit_code": self.exit_code(),
        }})
    }

    pub fn exit_code(&self) -> u8 {
        match self.kind {
            Kind::ReaderLeft => 0,
            Kind::User => 1,
            Kind::Network => 3,
            Kind::Internal => 70,
        }
    }
}

/// The message, then a `caused by: ` line per cause and a `hint: ` line per hint. A cause
/// of several lines (TOML's points at the spot) goes on indented, so every line that does
/// not start a cause or hint starts with spaces.
impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for cause in &self.causes {
            write!(f, "\ncaused by: {}", cause.trim_end().replace('\n', "\n  "))?;
        }
        for hint in &self.hints {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

/// A file or process failure of the machine's: its text is the message, what lies under
/// it the causes.
impl From<std::io::Error> for CommandError {
    fn from(e: std::io::Error) -> Self {
        let error = Self::internal(e.to_string());
        match std::error::Error::source(&e) {
            Some(source) => error.because(source),
            None => error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_and_hints_each_take_a_line() {
        let io = std::io::Error::other("disk on fire");
        let error = CommandError::internal("cannot save the state")
            .because(&io)
            .hint("free some space");
        assert_eq!(
            error.to_string(),
            "cannot save the state\ncaused by: disk on fire\nhint: free some space"
        );
        assert_eq!(error.to_json()["error"]["causes"][0], "disk on fire");
    }

    #[test]
    fn a_cause_of_several_lines_goes_on_indented() {
        let toml = toml::from_str::<toml::Table>("a = [").expect_err("not TOML");
        let error = CommandError::user("hosts.toml is damaged").because(&toml);
        let text = error.to_string();
        let mut lines = text.lines().skip(1);
        assert!(
            lines
                .next()
                .is_some_and(|l| l.starts_with("caused by: TOML"))
        );
        assert!(lines.all(|l| l.starts_with("  ")), "{text}");
    }

    #[test]
    fn a_cause_that_repeats_the_line_above_is_left_out() {
        let io = std::io::Error::other("disk on fire");
        let error = CommandError::internal("cannot save: disk on fire").because(&io);
        assert!(error.causes.is_empty());
    }
}
