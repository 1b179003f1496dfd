//! A runner's secrets (`secret_env`, `secret_files`): values that never show. Their
//! `Debug` says nothing of them, and whatever a runner prints is masked before it is
//! stored: each secret value becomes `***`, as CI services mask secrets in logs.
//!
//! A secret shorter than [`MIN_LEN`] is refused at start: masking two or three
//! characters would blank ordinary words all over a transcript and hide nothing.
//! Masking catches the value as printed; a runner that encodes it (base64, split
//! across lines) is not caught, as in CI.

use std::borrow::Cow;

use serde_json::Value;
use svc_protocol::agent::{NewMessage, Part};

/// What a secret is replaced with.
pub const MASK: &str = "***";
/// The fewest characters a secret may have.
pub const MIN_LEN: usize = 4;

/// A secret value, read at start; never shown by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A secret, refused when too short to mask.
    pub fn new(value: String) -> Result<Secret, String> {
        if value.chars().count() < MIN_LEN {
            return Err(format!(
                "is shorter than {MIN_LEN} characters, too short to mask in transcripts"
            ));
        }
        Ok(Secret(value))
    }

    /// The value, for the runner's environment only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Masks a run's secrets out of what it says.
#[derive(Clone, Default)]
pub struct Masker {
    /// Longest first, so a secret holding another is masked whole.
    values: Vec<String>,
}

impl std::fmt::Debug for Masker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Masker({} secrets)", self.values.len())
    }
}

impl Masker {
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a Secret>) -> Masker {
        let mut values: Vec<String> = secrets.into_iter().map(|s| s.0.clone()).collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Masker { values }
    }

    /// `text` with every secret replaced by [`MASK`].
    pub fn text<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut out = Cow::Borrowed(text);
        for value in &self.values {
            if out.contains(value.as_str()) {
                out = Cow::Owned(out.replace(value.as_str(), MASK));
            }
        }
        out
    }

    /// Masks every string of a message's parts (text, tool names, inputs and outputs).
    pub fn message(&self, message: &mut NewMessage) {
        if self.values.is_empty() {
            return;
        }
        for part in &mut message.parts {
            match part {
                Part::Text { text } | Part::Thinking { text } => self.string(text),
                Part::ToolCall { id, name, input } => {
                    self.string(id);
                    self.string(name);
                    self.value(input);
                }
                Part::ToolResult { id, output, .. } => {
                    self.string(id);
                    self.value(output);
                }
            }
        }
    }

    fn string(&self, s: &mut String) {
        if let Cow::Owned(masked) = self.text(s) {
            *s = masked;
        }
    }

    fn value(&self, v: &mut Value) {
        match v {
            Value::String(s) => self.string(s),
            Value::Array(items) => items.iter_mut().for_each(|i| self.value(i)),
            Value::Object(map) => {
                let masked = std::mem::take(map)
                    .into_iter()
                    .map(|(k, mut v)| {
                        self.value(&mut v);
                        (self.text(&k).into_owned(), v)
                    })
                    .collect();
                *map = masked;
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use svc_protocol::agent::Role;

    fn masker(values: &[&str]) -> Masker {
        let secrets: Vec<Secret> = values
            .iter()
            .map(|v| Secret::new((*v).to_owned()).unwrap())
            .collect();
        Masker::new(&secrets)
    }

    #[test]
    fn every_occurrence_of_every_secret_is_masked() {
        let m = masker(&["sk-live-1234", "hunter22"]);
        assert_eq!(
            m.text("key=sk-live-1234 pw=hunter22 again sk-live-1234"),
            "key=*** pw=*** again ***"
        );
        assert!(matches!(m.text("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_secret_holding_another_is_masked_whole() {
        let m = masker(&["abcd", "xxabcdxx"]);
        assert_eq!(m.text("1 xxabcdxx 2 abcd"), "1 *** 2 ***");
    }

    #[test]
    fn short_secrets_are_refused_and_debug_shows_none() {
        assert!(Secret::new("abc".into()).unwrap_err().contains("too short"));
        let s = Secret::new("sk-very-secret".into()).unwrap();
        assert_eq!(format!("{s:?}"), "Secret(***)");
        assert!(!format!("{:?}", Masker::new([&s])).contains("sk-very"));
    }

    #[test]
    fn every_part_of_a_message_is_masked_keys_and_nested_values_too() {
        let m = masker(&["s3cr3t-value"]);
        let mut message = NewMessage {
            role: Role::Assistant,
            parts: vec![
                Part::Text {
                    text: "my key is s3cr3t-value".into(),
                },
                Part::Thinking {
                    text: "s3cr3t-value".into(),
                },
                Part::ToolCall {
                    id: "t1".into(),
                    name: "Bash".into(),
                    input: json!({"command": "echo s3cr3t-value", "s3cr3t-value": [1, "a s3cr3t-value"]}),
                },
                Part::ToolResult {
                    id: "t1".into(),
                    output: json!("s3cr3t-value\n"),
                    is_error: false,
                },
            ],
        };
        m.message(&mut message);
        let all = serde_json::to_string(&message).unwrap();
        assert!(!all.contains("s3cr3t"), "{all}");
        assert_eq!(
            message.parts[2],
            Part::ToolCall {
                id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "echo ***", "***": [1, "a ***"]}),
            }
        );
        assert_eq!(
            message.parts[0],
            Part::Text {
                text: "my key is ***".into()
            }
        );
    }
}
