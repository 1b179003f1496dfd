//! The branch page's diff as the server renders it: the file list and each file's hunks
//! as table rows with old and new line numbers, within a byte budget so the page stays
//! small. What does not fit is left to the script, which streams the rest
//! (`patches=1&stream=1`), and to the raw diff.

use svc_protocol::branch::{BranchDiff, DiffFile, DiffStats, FileStatus, PatchOmitted};

/// Bytes of HTML the file list and the hunks may take on the page.
pub const HTML_BUDGET: usize = 60 * 1024;
/// Files listed on the page at most; the script lists the rest as they stream.
pub const LIST_MAX: usize = 150;
/// What a table row costs besides its text (tags, classes, line numbers).
const ROW_COST: usize = 72;
/// What a file's heading and table head cost besides the path.
const FILE_COST: usize = 520;
/// What a file's list entry costs besides the path.
const ENTRY_COST: usize = 110;

/// The diff as the page shows it.
pub struct DiffView {
    /// The bytes it was made to fit in.
    pub budget: usize,
    pub stats: DiffStats,
    pub files_total: u64,
    /// Files in the list (at most [`LIST_MAX`]).
    pub list: Vec<ListEntry>,
    /// Changed files the list leaves out.
    pub unlisted: u64,
    /// Files with their rows (or why they have none) on the page.
    pub sections: Vec<Section>,
    /// Listed files whose hunks the page leaves to the script or the raw diff.
    pub not_shown: usize,
    /// True when the page holds the whole diff: no stream needed.
    pub complete: bool,
    /// Files or patches some limit of the API left out.
    pub truncated: bool,
}

/// One file in the list.
pub struct ListEntry {
    pub path: String,
    pub old_path: Option<String>,
    pub status: &'static str,
    pub additions: Option<u64>,
    pub deletions: Option<u64>,
    /// The file's section on the page (`f-<n>`), when it has one.
    pub anchor: Option<String>,
}

/// One file with its rows.
pub struct Section {
    /// `f-<n>`: the file's place in the diff.
    pub id: String,
    pub path: String,
    /// The path with each segment percent-encoded, for links.
    pub encoded: String,
    pub old_path: Option<String>,
    pub status: &'static str,
    pub additions: Option<u64>,
    pub deletions: Option<u64>,
    pub rows: Vec<Row>,
    /// Why the file has no rows, when it has none.
    pub note: Option<String>,
    /// Rows of this file left out for the budget; the script fills them in.
    pub cut: usize,
    /// True when the script should replace this section from the stream.
    pub pending: bool,
}

/// One row of a file's table.
#[derive(Debug, PartialEq, Eq)]
pub struct Row {
    /// `hunk`, `ctx`, `add`, `del` or `note`.
    pub kind: &'static str,
    pub old: Option<u32>,
    pub new: Option<u32>,
    /// The line as the patch has it, with its `+`, `-` or space.
    pub text: String,
}

pub fn status_word(s: FileStatus) -> &'static str {
    match s {
        FileStatus::Added => "added",
        FileStatus::Modified => "modified",
        FileStatus::Deleted => "deleted",
        FileStatus::Renamed => "renamed",
    }
}

/// The rows of a unified patch (hunks only), numbered from each hunk's header.
pub fn rows(patch: &str) -> Vec<Row> {
    let mut out = Vec::new();
    let (mut old, mut new) = (0u32, 0u32);
    for line in patch.lines() {
        if line.starts_with("@@") {
            if let Some((o, n)) = hunk_starts(line) {
                (old, new) = (o, n);
            }
            out.push(Row {
                kind: "hunk",
                old: None,
                new: None,
                text: line.to_owned(),
            });
            continue;
        }
        let row = match line.as_bytes().first() {
            Some(b'+') => {
                new += 1;
                Row {
                    kind: "add",
                    old: None,
                    new: Some(new - 1),
                    text: line.to_owned(),
                }
            }
            Some(b'-') => {
                old += 1;
                Row {
                    kind: "del",
                    old: Some(old - 1),
                    new: None,
                    text: line.to_owned(),
                }
            }
            Some(b'\\') => Row {
                kind: "note",
                old: None,
                new: None,
                text: line.to_owned(),
            },
            _ => {
                old += 1;
                new += 1;
                Row {
                    kind: "ctx",
                    old: Some(old - 1),
                    new: Some(new - 1),
                    text: line.to_owned(),
                }
            }
        };
        out.push(row);
    }
    out
}

/// The first old and new line numbers of `@@ -a,b +c,d @@`.
fn hunk_starts(header: &str) -> Option<(u32, u32)> {
    let rest = header.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(' ')?;
    let new = rest.strip_prefix('+')?.split(' ').next()?;
    let start = |s: &str| s.split(',').next()?.parse::<u32>().ok();
    Some((start(old)?, start(new)?))
}

/// Bytes a row takes on the page, about.
fn row_cost(r: &Row) -> usize {
    let escaped = r
        .text
        .bytes()
        .filter(|b| matches!(b, b'<' | b'>' | b'&' | b'"' | b'\''))
        .count();
    ROW_COST + r.text.len() + 4 * escaped
}

/// Why a file has no patch, in words; None when it has one.
fn no_patch(f: &DiffFile) -> Option<String> {
    if f.binary {
        return Some("Binary file: not shown.".into());
    }
    match f.patch_omitted {
        Some(PatchOmitted::TooLarge) => {
            return Some("Too large to diff (over 8 MiB on a side).".into());
        }
        Some(PatchOmitted::Budget) => return None,
        None => {}
    }
    match &f.patch {
        Some(p) if !p.is_empty() => None,
        _ if f.status == FileStatus::Renamed => Some("Moved without changes.".into()),
        _ if f.old_mode != f.new_mode && f.old_mode.is_some() && f.new_mode.is_some() => {
            Some(format!(
                "Mode changed from {} to {}.",
                f.old_mode.as_deref().unwrap_or_default(),
                f.new_mode.as_deref().unwrap_or_default()
            ))
        }
        _ => Some("No changes in the text (an empty file).".into()),
    }
}

impl DiffView {
    /// The view of `d` in about `budget` bytes of HTML: the list first, then the files
    /// in order while they fit (the last one perhaps in part).
    pub fn of(d: &BranchDiff, budget: usize) -> DiffView {
        let limit = budget;
        let mut budget = budget;
        let mut list_len = 0;
        for f in d.files.iter().take(LIST_MAX) {
            let cost = ENTRY_COST + 2 * f.path.len();
            if cost > budget {
                break;
            }
            budget -= cost;
            list_len += 1;
        }
        let mut sections = Vec::new();
        let mut list = Vec::new();
        let mut not_shown = 0;
        let mut whole = true;
        for (i, f) in d.files.iter().enumerate() {
            let status = status_word(f.status);
            let listed = i < list_len;
            let cost = FILE_COST + 2 * f.path.len();
            let mut anchor = None;
            if listed && budget > cost {
                budget -= cost;
                let id = format!("f-{i}");
                let mut section = Section {
                    id: id.clone(),
                    path: f.path.clone(),
                    encoded: super::branch::file_path(&f.path),
                    old_path: f.old_path.clone(),
                    status,
                    additions: f.additions,
                    deletions: f.deletions,
                    rows: Vec::new(),
                    note: no_patch(f),
                    cut: 0,
                    pending: false,
                };
                match (&section.note, &f.patch) {
                    (Some(_), _) => {}
                    (None, Some(patch)) => {
                        let mut rows = rows(patch);
                        let fit = rows
                            .iter()
                            .take_while(|r| {
                                let c = row_cost(r);
                                let ok = c <= budget;
                                if ok {
                                    budget -= c;
                                }
                                ok
                            })
                            .count();
                        section.cut = rows.len() - fit;
                        rows.truncate(fit);
                        section.rows = rows;
                        if section.cut > 0 {
                            // Nothing more fits: the rest of the page lists files only.
                            budget = 0;
                            section.pending = true;
                        }
                    }
                    (None, None) => {
                        section.note = Some("Not shown here: past the page's limit.".into());
                        section.pending = true;
                    }
                }
                whole &= !section.pending;
                anchor = Some(id);
                sections.push(section);
            } else {
                whole = false;
                if listed {
                    not_shown += 1;
                }
            }
            if listed {
                list.push(ListEntry {
                    path: f.path.clone(),
                    old_path: f.old_path.clone(),
                    status,
                    additions: f.additions,
                    deletions: f.deletions,
                    anchor,
                });
            }
        }
        let unlisted = d.files_total.saturating_sub(list.len() as u64);
        DiffView {
            budget: limit,
            stats: d.stats,
            files_total: d.files_total,
            list,
            unlisted,
            sections,
            not_shown,
            complete: whole && unlisted == 0,
            truncated: d.truncated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_numbered_from_the_hunk_headers() {
        let patch = "@@ -3,3 +3,4 @@ fn main\n ctx\n-old\n+new\n+more\n ctx2\n\\ No newline at end of file\n@@ -20 +21 @@\n-x\n+y\n";
        let r = rows(patch);
        let got: Vec<(&str, Option<u32>, Option<u32>)> =
            r.iter().map(|r| (r.kind, r.old, r.new)).collect();
        assert_eq!(
            got,
            [
                ("hunk", None, None),
                ("ctx", Some(3), Some(3)),
                ("del", Some(4), None),
                ("add", None, Some(4)),
                ("add", None, Some(5)),
                ("ctx", Some(5), Some(6)),
                ("note", None, None),
                ("hunk", None, None),
                ("del", Some(20), None),
                ("add", None, Some(21)),
            ]
        );
        assert_eq!(r[0].text, "@@ -3,3 +3,4 @@ fn main");
        assert_eq!(r[3].text, "+new");
    }

    #[test]
    fn an_added_file_starts_at_one() {
        let r = rows("@@ -0,0 +1,2 @@\n+a\n+b\n");
        assert_eq!((r[1].new, r[2].new), (Some(1), Some(2)));
    }
}
