//! The tools' answers as text an agent reads well: listings, file text, commits, diffs.

use std::fmt::Write as _;

use svc_protocol::branch::{BranchDiff, FileStatus, PatchOmitted};
use svc_protocol::code::{Commit, EntryType, HistoryPage, TreePage};
use time::format_description::well_known::Rfc3339;

/// A NUL in the first 8,000 bytes makes a file binary, as git decides.
const BINARY_PROBE: usize = 8000;
/// A matching line is shown up to this many characters.
const MATCH_CHARS: usize = 300;

/// One line per entry, by path from the repo's root.
pub fn tree(pages: &[TreePage], more: bool) -> String {
    let mut out = String::new();
    let Some(first) = pages.first() else {
        return out;
    };
    let folder = if first.path.is_empty() {
        "/ (the root)"
    } else {
        &first.path
    };
    let count: usize = pages.iter().map(|p| p.items.len()).sum();
    let _ = writeln!(out, "{folder} at commit {}: {count} entries", first.commit);
    for entry in pages.iter().flat_map(|p| &p.items) {
        let _ = match entry.kind {
            EntryType::Tree => writeln!(out, "{}/", entry.path),
            EntryType::Blob => writeln!(out, "{}", entry.path),
            EntryType::Symlink => writeln!(out, "{} (symlink)", entry.path),
            EntryType::Commit => writeln!(out, "{} (submodule at {})", entry.path, entry.sha),
        };
    }
    if more {
        out.push_str("(more entries follow; list a subfolder to see fewer at a time)\n");
    }
    out
}

/// A file's text from byte `offset`, at most `cap` bytes of it, with a note when that is
/// not the whole file; a binary file is described instead.
pub fn file(path: &str, bytes: &[u8], offset: usize, cap: usize) -> String {
    let total = bytes.len();
    if bytes[..total.min(BINARY_PROBE)].contains(&0) {
        return format!("{path} is a binary file of {total} bytes; it is not shown.");
    }
    if total == 0 {
        return format!("{path} is empty.");
    }
    if offset >= total {
        return format!("offset {offset} is past the end of {path}, which has {total} bytes.");
    }
    // Whole characters only: start after, and end before, a UTF-8 continuation byte.
    let is_continuation = |i: usize| i < total && (bytes[i] & 0xC0) == 0x80;
    let mut start = offset;
    while is_continuation(start) {
        start += 1;
    }
    let mut end = start.saturating_add(cap).min(total);
    if end < total {
        let floor = end;
        while end > start && is_continuation(end) {
            end -= 1;
        }
        if end == start {
            end = floor;
        }
    }
    let chunk = &bytes[start..end];
    let (text, lossy) = match std::str::from_utf8(chunk) {
        Ok(text) => (text.to_owned(), false),
        Err(_) => (String::from_utf8_lossy(chunk).into_owned(), true),
    };
    if start == 0 && end == total && !lossy {
        return text;
    }
    let mut out = String::new();
    if start > 0 || end < total {
        let _ = writeln!(out, "[{path}: bytes {start} to {end} of {total}]");
    }
    if lossy {
        let _ = writeln!(
            out,
            "[{path} is not valid UTF-8: bytes that are not are shown as U+FFFD]"
        );
    }
    out.push_str(&text);
    if end < total {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "[{} more bytes: call file again with offset {end} to read on]",
            total - end
        );
    }
    out
}

/// One line per commit, newest first, and how to go on.
pub fn history(page: &HistoryPage) -> String {
    let mut out = commits(&page.items);
    if let Some(next) = &page.next {
        let _ = writeln!(
            out,
            "(older commits: call history again with next = {next:?})"
        );
    }
    if page.capped {
        out.push_str("(the walk stopped at 10,000 commits from the ref)\n");
    }
    out
}

/// One line per commit: sha, date, author, title, and what svc knows of it.
pub fn commits(items: &[Commit]) -> String {
    let mut out = String::new();
    if items.is_empty() {
        out.push_str("No commits.\n");
    }
    for commit in items {
        let date = commit
            .author
            .date
            .format(&Rfc3339)
            .unwrap_or_else(|_| commit.author.date.to_string());
        let _ = write!(
            out,
            "{} {date} {} <{}>  {}",
            commit.sha, commit.author.name, commit.author.email, commit.title
        );
        if let Some(branch) = &commit.merged_branch {
            let _ = write!(out, "  [merge of branch {branch}]");
        }
        if let Some(agent) = &commit.trailers.agent {
            let _ = write!(out, "  [Svc-Agent: {agent}]");
        }
        out.push('\n');
    }
    out
}

/// Adds `path:line: text` for each line of a text file that contains `needle` (already
/// lowercased unless `case`); a binary file has none.
pub fn matching_lines(path: &str, bytes: &[u8], needle: &str, case: bool, out: &mut Vec<String>) {
    if bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) {
        return;
    }
    let text = String::from_utf8_lossy(bytes);
    for (n, line) in text.lines().enumerate() {
        let found = if case {
            line.contains(needle)
        } else {
            line.to_lowercase().contains(needle)
        };
        if found {
            let line: String = line.chars().take(MATCH_CHARS).collect();
            out.push(format!("{path}:{}: {line}", n + 1));
        }
    }
}

/// A summary line per file, then the unified diff of every file that has a patch.
pub fn diff(branch: &str, d: &BranchDiff) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Branch {branch}: {} changed, +{} -{} (head {}, merge base {}, main {})",
        plural(d.files_total, "file"),
        d.stats.additions,
        d.stats.deletions,
        d.head,
        d.merge_base,
        d.base
    );
    if d.files.is_empty() {
        out.push_str("No changes against main.\n");
        return out;
    }
    for f in &d.files {
        let status = match f.status {
            FileStatus::Added => "A",
            FileStatus::Modified => "M",
            FileStatus::Deleted => "D",
            FileStatus::Renamed => "R",
        };
        let path = match &f.old_path {
            Some(old) => format!("{old} -> {}", f.path),
            None => f.path.clone(),
        };
        let counts = match (f.additions, f.deletions) {
            _ if f.binary => "binary".to_owned(),
            (Some(a), Some(d)) => format!("+{a} -{d}"),
            _ => "too large to count".to_owned(),
        };
        let omitted = match f.patch_omitted {
            Some(PatchOmitted::Budget) => ", patch left out (over the size limit)",
            Some(PatchOmitted::TooLarge) => ", patch left out (file too large)",
            None => "",
        };
        let _ = writeln!(out, "{status} {path} ({counts}{omitted})");
    }
    if d.too_many_files {
        let _ = writeln!(
            out,
            "({} more files changed, not listed)",
            d.files_total.saturating_sub(d.files.len() as u64)
        );
    }
    if d.truncated {
        out.push_str(
            "(some patches were left out: pass `paths` to see those files, or read them with file at the branch)\n",
        );
    }
    for f in d.files.iter().filter(|f| f.patch.is_some() || f.binary) {
        let old = f.old_path.as_deref().unwrap_or(&f.path);
        let _ = writeln!(out, "\ndiff --git a/{old} b/{}", f.path);
        if f.binary {
            let _ = writeln!(out, "Binary files a/{old} and b/{} differ", f.path);
            continue;
        }
        let a = match f.old_sha {
            Some(_) => format!("a/{old}"),
            None => "/dev/null".to_owned(),
        };
        let b = match f.new_sha {
            Some(_) => format!("b/{}", f.path),
            None => "/dev/null".to_owned(),
        };
        let _ = write!(
            out,
            "--- {a}\n+++ {b}\n{}",
            f.patch.as_deref().unwrap_or_default()
        );
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// `1 file`, `2 files`.
fn plural(n: u64, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::{file, matching_lines};

    #[test]
    fn matching_lines_are_numbered_and_binary_files_skipped() {
        let mut out = Vec::new();
        matching_lines(
            "a.rs",
            b"fn Main() {}\nlet x = 1;\nmain();\n",
            "main",
            false,
            &mut out,
        );
        assert_eq!(out, ["a.rs:1: fn Main() {}", "a.rs:3: main();"]);
        out.clear();
        matching_lines("a.rs", b"fn Main() {}\nmain();\n", "Main", true, &mut out);
        assert_eq!(out, ["a.rs:1: fn Main() {}"]);
        out.clear();
        matching_lines("b.bin", b"main\0", "main", false, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn whole_text_file_is_as_is() {
        assert_eq!(file("a", b"hello\n", 0, 100), "hello\n");
    }

    #[test]
    fn binary_is_described() {
        assert!(file("a", b"x\0y", 0, 100).contains("binary file of 3 bytes"));
    }

    #[test]
    fn parts_cut_on_characters_and_say_how_to_go_on() {
        let text = "aé".repeat(10); // 30 bytes
        let first = file("a", text.as_bytes(), 0, 5);
        assert!(
            first.starts_with("[a: bytes 0 to 4 of 30]\naéa\n"),
            "{first}"
        );
        assert!(first.contains("offset 4"), "{first}");
        let next = file("a", text.as_bytes(), 2, 4);
        assert!(next.contains("bytes 3 to 7 of 30"), "{next}");
        assert!(file("a", text.as_bytes(), 30, 4).contains("past the end"));
    }
}
