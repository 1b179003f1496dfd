//! A coding agent runner's standard output, read line by line into transcript messages
//! (`claude-stream-json`, `codex-json`, `svc-jsonl`).
//!
//! Input: the first byte picks the format, the rest is the output, one line after another
//! through one reader (formats carry state across lines).
//!
//! Asserts: nothing a runner prints is lost (a non-blank line that is not JSON comes back
//! whole as assistant text; a `svc-jsonl` line is its message or, if it is none, text);
//! Claude and Codex messages are never empty; every message survives its wire shape
//! (serialized and read back, it is the same message).

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use svc_protocol::agent::{NewMessage, Part, Role};
use svc_server::agents::format::{Format, Reader};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, output)) = data.split_first() else {
        return;
    };
    let format = match pick % 3 {
        0 => Format::ClaudeStreamJson,
        1 => Format::CodexJson,
        _ => Format::SvcJsonl,
    };
    let output = String::from_utf8_lossy(output);
    let mut reader = Reader::new(format);
    for line in output.split_inclusive('\n') {
        let got = reader.line(line);
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim().is_empty() {
            assert!(got.is_empty(), "a blank line says nothing: {got:?}");
            continue;
        }
        let as_text = vec![NewMessage {
            role: Role::Assistant,
            parts: vec![Part::Text {
                text: bare.to_owned(),
            }],
        }];
        if serde_json::from_str::<Value>(bare).is_err() {
            assert_eq!(got, as_text, "a line that is not JSON is kept whole");
        }
        if format == Format::SvcJsonl {
            match serde_json::from_str::<NewMessage>(bare) {
                Ok(message) => assert_eq!(got, vec![message]),
                Err(_) => assert_eq!(got, as_text, "a line that is no message is kept whole"),
            }
        } else {
            for m in &got {
                assert!(!m.parts.is_empty(), "an empty message from {bare:?}");
            }
        }
        for m in &got {
            let wire = serde_json::to_string(m).expect("a message serializes");
            let back: NewMessage = serde_json::from_str(&wire).expect("and reads back");
            assert_eq!(&back, m, "{wire}");
        }
    }
    if let Some(outcome) = reader.outcome() {
        assert!(format != Format::SvcJsonl, "svc-jsonl says no outcome");
        let _ = outcome;
    }
});
