//! Command failures: one line saying what went wrong and what to do, and an exit code
//! that tells a script a user error from a server that cannot be reached or a bug.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Bad input, not signed in, not found, refused: exit 1.
    User,
    /// The server could not be reached or answered garbage: exit 3.
    Network,
    /// A fault of ours or of the machine: exit 70 (EX_SOFTWARE).
    Internal,
}

#[derive(Debug)]
pub struct CommandError {
    pub kind: Kind,
    pub message: String,
    pub hints: Vec<String>,
    /// The server's error code when the server refused (`not_found`, `branch_exists`, ...).
    pub code: Option<String>,
}

pub type Result<T, E = CommandError> = std::result::Result<T, E>;

impl CommandError {
    pub fn user(message: impl Into<String>) -> Self {
        Self {
            kind: Kind::User,
            message: message.into(),
            hints: Vec::new(),
            code: None,
        }
    }

    pub fn network(message: impl Into<String>) -> Self {
        Self {
            kind: Kind::Network,
            message: message.into(),
            hints: Vec::new(),
            code: None,
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            kind: Kind::Internal,
            message: message.into(),
            hints: Vec::new(),
            code: None,
        }
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
    /// "hints", "exit_code"}}`, `code` being the server's when it refused, else what
    /// the exit code stands for.
    pub fn to_json(&self) -> serde_json::Value {
        let code = self.code.clone().unwrap_or_else(|| {
            match self.kind {
                Kind::User => "user_error",
                Kind::Network => "unreachable",
                Kind::Internal => "internal",
            }
            .to_owned()
        });
        serde_json::json!({"error": {
            "code": code,
            "message": self.message,
            "hints": self.hints,
            "exit_code": self.exit_code(),
        }})
    }

    pub fn exit_code(&self) -> u8 {
        match self.kind {
            Kind::User => 1,
            Kind::Network => 3,
            Kind::Internal => 70,
        }
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for hint in &self.hints {
            write!(f, "; {hint}")?;
        }
        Ok(())
    }
}

impl From<std::io::Error> for CommandError {
    fn from(e: std::io::Error) -> Self {
        Self::internal(e.to_string())
    }
}
