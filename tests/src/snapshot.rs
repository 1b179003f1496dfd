//! Committed snapshots of what the code produces (the OpenAPI document, `svc --help`),
//! so a change to them shows up in review. A test compares the output with the file;
//! with `SVC_UPDATE_SNAPSHOTS=1` it rewrites the file instead.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The variable that makes snapshot tests rewrite their files.
pub const UPDATE: &str = "SVC_UPDATE_SNAPSHOTS";

/// How many differences a failure lists.
const SHOWN: usize = 20;

/// Asserts that `actual` is the text of `path` (relative to the workspace root).
pub fn assert_text(path: &str, actual: &str) {
    let Some(committed) = committed_or_update(path, actual) else {
        return;
    };
    if committed == actual {
        return;
    }
    let (mut committed_lines, mut actual_lines) = (committed.lines(), actual.lines());
    let mut line = 1;
    let first = loop {
        match (committed_lines.next(), actual_lines.next()) {
            (Some(c), Some(a)) if c == a => line += 1,
            (c, a) => {
                let end = "(end of file)";
                break format!(
                    "line {line}: {:?} is now {:?}",
                    c.unwrap_or(end),
                    a.unwrap_or(end)
                );
            }
        }
    };
    stale(path, &first);
}

/// Asserts that `actual`, pretty-printed with a final newline, is the text of `path`
/// (relative to the workspace root); a failure lists where the two documents differ.
pub fn assert_json(path: &str, actual: &Value) {
    let text = serde_json::to_string_pretty(actual).expect("JSON") + "\n";
    let Some(committed) = committed_or_update(path, &text) else {
        return;
    };
    if committed == text {
        return;
    }
    let Ok(committed) = serde_json::from_str::<Value>(&committed) else {
        return stale(path, "the committed file is not JSON");
    };
    let mut found = Vec::new();
    differences("", &committed, actual, &mut found);
    if found.is_empty() {
        return stale(path, "same document, other formatting");
    }
    let total = found.len();
    found.truncate(SHOWN);
    if total > SHOWN {
        found.push(format!("... and {} more", total - SHOWN));
    }
    stale(
        path,
        &format!("{total} differences:\n  {}", found.join("\n  ")),
    );
}

/// The committed text of `path`, or `None` once `actual` has been written in its place
/// because [`UPDATE`] is set.
fn committed_or_update(path: &str, actual: &str) -> Option<String> {
    let file = workspace_root().join(path);
    if std::env::var_os(UPDATE).is_some_and(|v| v == "1") {
        std::fs::create_dir_all(file.parent().expect("a parent dir")).expect("snapshot dir");
        std::fs::write(&file, actual).unwrap_or_else(|e| panic!("writing {path}: {e}"));
        return None;
    }
    Some(std::fs::read_to_string(&file).unwrap_or_default())
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace holds the tests crate")
        .to_path_buf()
}

/// Fails, saying how the snapshot is brought up to date.
fn stale(path: &str, what: &str) {
    let test = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .map_or_else(|| "<this test>".to_owned(), str::to_owned);
    panic!(
        "{path} differs from what the code produces: {what}\n\
         If the change is intended, rewrite the file and review its diff:\n  \
         {UPDATE}=1 cargo test -p svc-tests --test all -- --exact {test}\n  \
         git diff {path}"
    );
}

/// Collects where `new` differs from `old`, as JSON Pointers under `at`.
fn differences(at: &str, old: &Value, new: &Value, found: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            for (key, value) in o {
                let here = format!("{at}/{}", escape(key));
                match n.get(key) {
                    Some(new_value) => differences(&here, value, new_value, found),
                    None => found.push(format!("removed {here}")),
                }
            }
            for key in n.keys().filter(|k| !o.contains_key(*k)) {
                found.push(format!("added {at}/{}", escape(key)));
            }
        }
        (Value::Array(o), Value::Array(n)) if o.len() == n.len() => {
            for (i, (old_item, new_item)) in o.iter().zip(n).enumerate() {
                differences(&format!("{at}/{i}"), old_item, new_item, found);
            }
        }
        _ if old == new => {}
        _ => found.push(format!(
            "changed {at}: {} is now {}",
            short(old),
            short(new)
        )),
    }
}

/// A key as a JSON Pointer token.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A value in a line of a failure message.
fn short(value: &Value) -> String {
    const MAX: usize = 80;
    let text = value.to_string();
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}
