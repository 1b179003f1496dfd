//! Hunks as `git diff` prints them: 3 lines of context, hunks closer than 6 lines
//! merged, git's default function names after `@@`, and its no-newline markers.

use std::io::Write;

/// Lines of context around a change.
const CONTEXT: usize = 3;
/// git's function-name buffer: a name is cut to its first 80 bytes.
const FUNC_NAME_MAX: usize = 80;
/// git formats a hunk header in 128 bytes, the newline included.
const HEADER_MAX: usize = 127;

/// One group of changed lines: `old_len` lines at `old` replaced by `new_len` at `new`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Group {
    old: usize,
    old_len: usize,
    new: usize,
    new_len: usize,
}

/// The lines of a file's two sides and which of them changed.
pub(super) struct Sides<'a> {
    pub old: &'a [&'a [u8]],
    pub new: &'a [&'a [u8]],
    pub removed: &'a [bool],
    pub added: &'a [bool],
}

impl Sides<'_> {
    /// The groups of changes, in order.
    fn groups(&self) -> Vec<Group> {
        let mut groups = Vec::new();
        let (mut i, mut j) = (0, 0);
        let removed = |i: usize| self.removed.get(i).copied().unwrap_or(false);
        let added = |j: usize| self.added.get(j).copied().unwrap_or(false);
        while i < self.old.len() || j < self.new.len() {
            if removed(i) || added(j) {
                let (old, new) = (i, j);
                while removed(i) {
                    i += 1;
                }
                while added(j) {
                    j += 1;
                }
                groups.push(Group {
                    old,
                    old_len: i - old,
                    new,
                    new_len: j - new,
                });
            } else {
                i += 1;
                j += 1;
            }
        }
        groups
    }

    /// (additions, deletions).
    pub fn counts(&self) -> (u64, u64) {
        let count = |flags: &[bool]| flags.iter().filter(|f| **f).count() as u64;
        (count(self.added), count(self.removed))
    }

    /// Appends the hunks to `out`.
    pub fn write_hunks(&self, out: &mut Vec<u8>) {
        let groups = self.groups();
        let mut func: &[u8] = &[];
        let mut searched_to: isize = -1;
        let mut rest = groups.as_slice();
        while let Some(first) = rest.first() {
            let mut len = 1;
            while let (Some(prev), Some(next)) = (rest.get(len - 1), rest.get(len))
                && next.old - (prev.old + prev.old_len) <= 2 * CONTEXT
            {
                len += 1;
            }
            let (hunk, after) = rest.split_at(len);
            rest = after;
            let Some(last) = hunk.last() else {
                break;
            };
            let s1 = first.old.saturating_sub(CONTEXT);
            let s2 = first.new.saturating_sub(CONTEXT);
            let trailing = CONTEXT
                .min(self.old.len().saturating_sub(last.old + last.old_len))
                .min(self.new.len().saturating_sub(last.new + last.new_len));
            let e1 = last.old + last.old_len + trailing;
            let e2 = last.new + last.new_len + trailing;

            // git looks for the function line above the hunk, back to the previous
            // hunk's start, and keeps the previous one when it finds none.
            let mut l = s1 as isize - 1;
            while l != searched_to && l >= 0 {
                if let Some(name) = self.old.get(l as usize).and_then(|line| func_name(line)) {
                    func = name;
                    break;
                }
                l -= 1;
            }
            searched_to = s1 as isize - 1;
            header(out, (s1, e1 - s1), (s2, e2 - s2), func);

            let mut at = s2;
            for group in hunk {
                self.lines(out, b' ', self.new, at..group.new);
                self.lines(out, b'-', self.old, group.old..group.old + group.old_len);
                self.lines(out, b'+', self.new, group.new..group.new + group.new_len);
                at = group.new + group.new_len;
            }
            self.lines(out, b' ', self.new, at..e2);
        }
    }

    fn lines(&self, out: &mut Vec<u8>, sign: u8, side: &[&[u8]], range: std::ops::Range<usize>) {
        for line in side.get(range).unwrap_or_default() {
            out.push(sign);
            out.extend_from_slice(line);
            if line.last() != Some(&b'\n') {
                out.extend_from_slice(b"\n\\ No newline at end of file\n");
            }
        }
    }
}

/// `@@ -a,b +c,d @@ name`: a count of 1 is left out, and an empty side starts at the
/// line before it.
fn header(out: &mut Vec<u8>, old: (usize, usize), new: (usize, usize), func: &[u8]) {
    let start = out.len();
    out.extend_from_slice(b"@@ -");
    range(out, old);
    out.extend_from_slice(b" +");
    range(out, new);
    out.extend_from_slice(b" @@");
    if !func.is_empty() {
        out.push(b' ');
        let room = HEADER_MAX.saturating_sub(out.len() - start);
        out.extend_from_slice(func.get(..room).unwrap_or(func));
    }
    out.push(b'\n');
}

fn range(out: &mut Vec<u8>, (start, len): (usize, usize)) {
    let first = if len == 0 { start } else { start + 1 };
    // Writing to a Vec cannot fail.
    let _ = if len == 1 {
        write!(out, "{first}")
    } else {
        write!(out, "{first},{len}")
    };
}

/// git's default function line: one that starts with a letter, `_` or `$`, cut to 80
/// bytes without trailing whitespace.
fn func_name(line: &[u8]) -> Option<&[u8]> {
    let first = *line.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_' || first == b'$') {
        return None;
    }
    let mut name = line.get(..FUNC_NAME_MAX).unwrap_or(line);
    while let [rest @ .., last] = name
        && matches!(last, b' ' | b'\t' | b'\n' | b'\r')
    {
        name = rest;
    }
    Some(name)
}
