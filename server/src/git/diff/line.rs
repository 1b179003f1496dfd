//! Which lines changed, as `git diff --patience` decides it.
//!
//! git's patience diff: in each range, the lines that occur exactly once on each side
//! anchor the diff (their longest increasing run, found by patience sorting); matches
//! grow around the anchors and the gaps between them are diffed the same way; a range
//! without such lines falls back to git's Myers diff. Then, as git does after any
//! algorithm, groups of changes slide to their most readable place (the indent
//! heuristic). Myers and the sliding come from gix's copy of imara-diff, which follows
//! git's code; the patience part is here because the `similar` crate's patience is
//! another algorithm (anchors unique per side, Myers between them) whose output and
//! counts differ from git's.

use gix::diff::blob::{Algorithm, Diff, IndentHeuristic, IndentLevel, Token};

/// An entry's `line2` before the line is seen on the new side, and once it is seen
/// twice (or the line occurs twice on the old side).
const UNSET: u32 = u32::MAX - 1;
const NOT_UNIQUE: u32 = u32::MAX;

/// The changed lines of each side.
pub(super) struct Changed {
    pub removed: Vec<bool>,
    pub added: Vec<bool>,
}

/// Diffs the interned lines `before` and `after` (tokens below `tokens`); `indent`
/// gives a line's indentation for the slider heuristic.
pub(super) fn diff(
    before: &[Token],
    after: &[Token],
    tokens: u32,
    indent: impl Fn(Token) -> IndentLevel,
) -> Changed {
    let mut patience = Patience {
        before,
        after,
        removed: vec![false; before.len()],
        added: vec![false; after.len()],
        slot: vec![u32::MAX; tokens as usize],
        entries: Vec::new(),
        fallback: Diff::default(),
        local: Vec::new(),
    };
    let mut todo = vec![Range {
        start1: 0,
        end1: before.len(),
        start2: 0,
        end2: after.len(),
    }];
    while let Some(range) = todo.pop() {
        patience.range(range, &mut todo);
    }
    let Patience { removed, added, .. } = patience;
    slide(before, after, removed, added, indent)
}

/// A range of lines on each side.
#[derive(Debug, Clone, Copy)]
struct Range {
    start1: usize,
    end1: usize,
    start2: usize,
    end2: usize,
}

/// A line of the old side and where the same line is on the new side.
#[derive(Debug, Clone, Copy)]
struct Entry {
    line1: u32,
    line2: u32,
}

struct Patience<'a> {
    before: &'a [Token],
    after: &'a [Token],
    removed: Vec<bool>,
    added: Vec<bool>,
    /// Per token, its entry in `entries` during one range (`u32::MAX`: none).
    slot: Vec<u32>,
    /// The old side's distinct lines of one range, by first occurrence.
    entries: Vec<Entry>,
    fallback: Diff,
    local: Vec<Token>,
}

impl Patience<'_> {
    /// Diffs one range, leaving the gaps between its anchors in `todo`.
    fn range(&mut self, r: Range, todo: &mut Vec<Range>) {
        if r.start1 == r.end1 || r.start2 == r.end2 {
            mark(&mut self.removed, r.start1..r.end1);
            mark(&mut self.added, r.start2..r.end2);
            return;
        }
        let has_matches = self.fill(r);
        let anchors = if has_matches {
            self.anchors()
        } else {
            Vec::new()
        };
        for entry in &self.entries {
            if let Some(t) = self.before.get(entry.line1 as usize)
                && let Some(s) = self.slot.get_mut(t.0 as usize)
            {
                *s = u32::MAX;
            }
        }
        self.entries.clear();
        if !has_matches {
            mark(&mut self.removed, r.start1..r.end1);
            mark(&mut self.added, r.start2..r.end2);
        } else if anchors.is_empty() {
            self.myers(r);
        } else {
            self.walk(r, &anchors, todo);
        }
    }

    /// Records the range's lines; true when any line occurs on both sides.
    fn fill(&mut self, r: Range) -> bool {
        for line in r.start1..r.end1 {
            let Some(&t) = self.before.get(line) else {
                continue;
            };
            let Some(slot) = self.slot.get_mut(t.0 as usize) else {
                continue;
            };
            match self.entries.get_mut(*slot as usize) {
                Some(entry) => entry.line2 = NOT_UNIQUE,
                None => {
                    *slot = self.entries.len() as u32;
                    self.entries.push(Entry {
                        line1: line as u32,
                        line2: UNSET,
                    });
                }
            }
        }
        let mut has_matches = false;
        for line in r.start2..r.end2 {
            let Some(&t) = self.after.get(line) else {
                continue;
            };
            let slot = self.slot.get(t.0 as usize).copied().unwrap_or(u32::MAX);
            if let Some(entry) = self.entries.get_mut(slot as usize) {
                has_matches = true;
                entry.line2 = if entry.line2 == UNSET {
                    line as u32
                } else {
                    NOT_UNIQUE
                };
            }
        }
        has_matches
    }

    /// The longest run of lines unique on both sides whose order agrees, by patience
    /// sorting: (old line, new line) pairs, in order.
    fn anchors(&self) -> Vec<(usize, usize)> {
        // `tops[k]`: the entry ending the best run of length k+1 so far.
        let mut tops: Vec<usize> = Vec::new();
        let mut previous: Vec<Option<usize>> = vec![None; self.entries.len()];
        let line2 = |i: usize| self.entries.get(i).map_or(0, |e| e.line2);
        for (i, entry) in self.entries.iter().enumerate() {
            if entry.line2 >= UNSET {
                continue;
            }
            let k = tops.partition_point(|&top| line2(top) < entry.line2);
            if let Some(p) = previous.get_mut(i) {
                *p = k.checked_sub(1).and_then(|j| tops.get(j).copied());
            }
            match tops.get_mut(k) {
                Some(top) => *top = i,
                None => tops.push(i),
            }
        }
        let mut run = Vec::with_capacity(tops.len());
        let mut at = tops.last().copied();
        while let Some(i) = at {
            if let Some(e) = self.entries.get(i) {
                run.push((e.line1 as usize, e.line2 as usize));
            }
            at = previous.get(i).copied().flatten();
        }
        run.reverse();
        run
    }

    /// Matches the anchors, grows the matches around them, and leaves the gaps in `todo`.
    fn walk(&mut self, r: Range, anchors: &[(usize, usize)], todo: &mut Vec<Range>) {
        let (mut line1, mut line2) = (r.start1, r.start2);
        let mut next_anchor = 0;
        loop {
            let anchor = anchors.get(next_anchor).copied();
            let (mut next1, mut next2) = anchor.unwrap_or((r.end1, r.end2));
            if anchor.is_some() {
                while next1 > line1 && next2 > line2 && self.same(next1 - 1, next2 - 1) {
                    next1 -= 1;
                    next2 -= 1;
                }
            }
            while line1 < next1 && line2 < next2 && self.same(line1, line2) {
                line1 += 1;
                line2 += 1;
            }
            if next1 > line1 || next2 > line2 {
                todo.push(Range {
                    start1: line1,
                    end1: next1,
                    start2: line2,
                    end2: next2,
                });
            }
            let Some(mut last) = anchor else {
                return;
            };
            while let Some(&following) = anchors.get(next_anchor + 1)
                && following == (last.0 + 1, last.1 + 1)
            {
                last = following;
                next_anchor += 1;
            }
            line1 = last.0 + 1;
            line2 = last.1 + 1;
            next_anchor += 1;
        }
    }

    fn same(&self, line1: usize, line2: usize) -> bool {
        self.before.get(line1).is_some() && self.before.get(line1) == self.after.get(line2)
    }

    /// git's fallback for a range without unique lines: its Myers diff of the range as
    /// two files of their own (tokens renumbered so that its tables fit the range).
    fn myers(&mut self, r: Range) {
        let old = self.before.get(r.start1..r.end1).unwrap_or_default();
        let new = self.after.get(r.start2..r.end2).unwrap_or_default();
        self.local.clear();
        let mut distinct = 0u32;
        for t in old.iter().chain(new) {
            if let Some(slot) = self.slot.get_mut(t.0 as usize) {
                if *slot == u32::MAX {
                    *slot = distinct;
                    distinct += 1;
                }
                self.local.push(Token(*slot));
            }
        }
        for t in old.iter().chain(new) {
            if let Some(slot) = self.slot.get_mut(t.0 as usize) {
                *slot = u32::MAX;
            }
        }
        let (local_old, local_new) = self.local.split_at(old.len().min(self.local.len()));
        self.fallback
            .compute_with(Algorithm::Myers, local_old, local_new, distinct);
        for (i, line) in (r.start1..r.end1).enumerate() {
            if self.fallback.is_removed(i as u32)
                && let Some(flag) = self.removed.get_mut(line)
            {
                *flag = true;
            }
        }
        for (i, line) in (r.start2..r.end2).enumerate() {
            if self.fallback.is_added(i as u32)
                && let Some(flag) = self.added.get_mut(line)
            {
                *flag = true;
            }
        }
    }
}

fn mark(flags: &mut [bool], range: std::ops::Range<usize>) {
    if let Some(flags) = flags.get_mut(range) {
        flags.fill(true);
    }
}

/// git's compaction of the groups of changed lines (`xdl_change_compact`), with the
/// indent heuristic, applied to the patience result.
///
/// imara-diff's postprocessing works on its own `Diff`, which only its algorithms
/// fill. Renumbering the lines so that each unchanged pair shares a token of its own
/// and each changed line has a token no other line has makes its minimal Myers diff
/// reproduce the patience result exactly (the only common subsequence of maximal
/// length is the unchanged pairs), in linear time: its preprocessing drops the changed
/// lines, and what remains is equal on both sides.
fn slide(
    before: &[Token],
    after: &[Token],
    removed: Vec<bool>,
    added: Vec<bool>,
    indent: impl Fn(Token) -> IndentLevel,
) -> Changed {
    let unchanged = removed.iter().filter(|r| !**r).count() as u32;
    let mut next_changed = unchanged;
    let mut renumber = |flags: &[bool]| -> Vec<Token> {
        let mut pair = 0u32;
        flags
            .iter()
            .map(|&changed| {
                let counter = if changed {
                    &mut next_changed
                } else {
                    &mut pair
                };
                *counter += 1;
                Token(*counter - 1)
            })
            .collect()
    };
    let old = renumber(&removed);
    let new = renumber(&added);
    let mut diff = Diff::default();
    diff.compute_with(Algorithm::MyersMinimal, &old, &new, next_changed);
    diff.postprocess_with(before, after, IndentHeuristic::new(indent));
    let removed = (0..before.len() as u32)
        .map(|i| diff.is_removed(i))
        .collect();
    let added = (0..after.len() as u32).map(|i| diff.is_added(i)).collect();
    Changed { removed, added }
}
