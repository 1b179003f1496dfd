//! `--stat`: the diffstat `git diff --stat` prints, laid out by git's rules for a
//! terminal `COLUMNS` wide (80 by default). Binary files show `Bin`, without sizes.

use svc_protocol::branch::{DiffFile, DiffStats};

use super::patch::Palette;

struct Row {
    name: String,
    changes: Option<(u64, u64)>,
}

/// The width git lays the stat out in.
pub fn columns() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&c| c > 0)
        .unwrap_or(80)
}

fn decimal_width(n: u64) -> usize {
    n.to_string().len()
}

/// git's `scale_linear`: 0 stays 0, anything else gets at least one column.
fn scale(it: u64, width: u64, max: u64) -> u64 {
    if it == 0 {
        0
    } else {
        1 + it * (width - 1) / max
    }
}

/// A rename as git shows it in a stat: the common folders and suffix outside braces.
pub fn rename_name(old: &str, new: &str) -> String {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = 0;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y {
            break;
        }
        if *x == b'/' {
            prefix = i + 1;
        }
    }
    // The suffix starts at a slash and may reach back into the prefix's last slash only.
    let floor = prefix.saturating_sub(1);
    let mut suffix = 0;
    let (mut i, mut j) = (a.len(), b.len());
    while i > floor && j > floor && a[i - 1] == b[j - 1] {
        i -= 1;
        j -= 1;
        if a[i] == b'/' {
            suffix = a.len() - i;
        }
    }
    let a_mid = &old[prefix..old.len().saturating_sub(suffix).max(prefix)];
    let b_mid = &new[prefix..new.len().saturating_sub(suffix).max(prefix)];
    if prefix + suffix == 0 {
        return format!("{old} => {new}");
    }
    format!(
        "{}{{{a_mid} => {b_mid}}}{}",
        &old[..prefix],
        &old[old.len() - suffix..]
    )
}

/// The stat lines and the summary line, each ending in a newline.
pub fn render(files: &[DiffFile], totals: &DiffStats, width: usize, p: &Palette) -> String {
    let rows: Vec<Row> = files
        .iter()
        .map(|f| Row {
            name: match &f.old_path {
                Some(old) if old != &f.path => rename_name(old, &f.path),
                _ => f.path.clone(),
            },
            changes: (!f.binary).then(|| (f.additions.unwrap_or(0), f.deletions.unwrap_or(0))),
        })
        .collect();
    let max_len = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0);
    let max_change = rows
        .iter()
        .filter_map(|r| r.changes.map(|(a, d)| a + d))
        .max()
        .unwrap_or(0);
    let binary_width = if rows.iter().any(|r| r.changes.is_none()) {
        3
    } else {
        0
    };
    let number_width = decimal_width(max_change).max(binary_width);
    let width = width.max(16 + 6 + number_width);
    let mut graph_width = usize::try_from(max_change).unwrap_or(usize::MAX);
    let mut name_width = max_len;
    if name_width + number_width + 6 + graph_width > width {
        let cap = (width * 3 / 8).saturating_sub(number_width + 6);
        if graph_width > cap {
            graph_width = cap.max(6);
        }
        if name_width > width - number_width - 6 - graph_width {
            name_width = width.saturating_sub(number_width + 6 + graph_width);
        } else {
            graph_width = width - number_width - 6 - name_width;
        }
    }
    let mut out = String::new();
    for row in &rows {
        let (prefix, name) = fit(&row.name, name_width);
        let pad = name_width.saturating_sub(prefix.len() + name.chars().count());
        out.push_str(&format!(" {prefix}{name}{:pad$} | ", ""));
        let Some((add, del)) = row.changes else {
            out.push_str(&format!("{:>number_width$}\n", "Bin"));
            continue;
        };
        let total = add + del;
        out.push_str(&format!("{total:>number_width$}"));
        let (mut add_cols, mut del_cols) = (add, del);
        let graph = graph_width as u64;
        if graph <= max_change {
            let mut cols = scale(total, graph, max_change);
            if cols < 2 && add > 0 && del > 0 {
                cols = 2;
            }
            if add < del {
                add_cols = scale(add, graph, max_change);
                del_cols = cols - add_cols;
            } else {
                del_cols = scale(del, graph, max_change);
                add_cols = cols - del_cols;
            }
        }
        if total > 0 {
            out.push(' ');
        }
        for (n, color, c) in [(add_cols, p.new, "+"), (del_cols, p.old, "-")] {
            if n > 0 {
                let n = usize::try_from(n).unwrap_or(0);
                out.push_str(&format!("{color}{}{}", c.repeat(n), p.reset));
            }
        }
        out.push('\n');
    }
    out.push_str(&summary(totals));
    out
}

/// A name cut from the left to `width` columns, at a folder when it can be, as git does.
fn fit(name: &str, width: usize) -> (&'static str, &str) {
    let len = name.chars().count();
    if len <= width {
        return ("", name);
    }
    let keep = width.saturating_sub(3);
    let start = name
        .char_indices()
        .nth(len - keep)
        .map_or(name.len(), |(i, _)| i);
    let tail = &name[start..];
    ("...", tail.find('/').map_or(tail, |s| &tail[s..]))
}

/// ` N files changed, X insertions(+), Y deletions(-)`; a zero side is left out unless
/// both are zero.
fn summary(t: &DiffStats) -> String {
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let mut line = format!(" {} file{} changed", t.files, plural(t.files));
    if t.additions > 0 || t.deletions == 0 {
        line.push_str(&format!(
            ", {} insertion{}(+)",
            t.additions,
            plural(t.additions)
        ));
    }
    if t.deletions > 0 || t.additions == 0 {
        line.push_str(&format!(
            ", {} deletion{}(-)",
            t.deletions,
            plural(t.deletions)
        ));
    }
    line + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_protocol::branch::FileStatus;

    #[test]
    fn renames_keep_common_folders_outside_the_braces() {
        assert_eq!(rename_name("a/b.txt", "a/c.txt"), "a/{b.txt => c.txt}");
        assert_eq!(rename_name("x/f.txt", "y/f.txt"), "{x => y}/f.txt");
        assert_eq!(rename_name("f", "g"), "f => g");
        assert_eq!(rename_name("a/b/c/f", "a/c/f"), "a/{b => }/c/f");
        assert_eq!(rename_name("a/f", "a/b/f"), "a/{ => b}/f");
    }

    fn file(path: &str, add: u64, del: u64) -> DiffFile {
        DiffFile {
            path: path.to_owned(),
            old_path: None,
            status: FileStatus::Modified,
            old_sha: None,
            new_sha: None,
            old_mode: None,
            new_mode: None,
            binary: false,
            additions: Some(add),
            deletions: Some(del),
            patch: None,
            patch_omitted: None,
        }
    }

    #[test]
    fn small_stats_are_not_scaled_and_big_ones_fit_the_width() {
        let totals = DiffStats {
            files: 2,
            additions: 3,
            deletions: 1,
        };
        let files = [file("a.txt", 1, 1), file("dir/long.txt", 2, 0)];
        assert_eq!(
            render(&files, &totals, 80, &Palette::new(false)),
            " a.txt        | 2 +-\n dir/long.txt | 2 ++\n 2 files changed, 3 insertions(+), 1 deletion(-)\n"
        );
        let big = [file("a", 1000, 0)];
        let text = render(&big, &totals, 80, &Palette::new(false));
        let first = text.lines().next().unwrap();
        assert_eq!(
            first.chars().count(),
            79,
            "git leaves the last column: {first}"
        );
        assert!(first.starts_with(" a | 1000 +++"));
    }

    #[test]
    fn summary_leaves_out_a_zero_side() {
        let t = |files, additions, deletions| {
            summary(&DiffStats {
                files,
                additions,
                deletions,
            })
        };
        assert_eq!(t(1, 2, 0), " 1 file changed, 2 insertions(+)\n");
        assert_eq!(t(3, 0, 1), " 3 files changed, 1 deletion(-)\n");
        assert_eq!(
            t(1, 0, 0),
            " 1 file changed, 0 insertions(+), 0 deletions(-)\n"
        );
    }
}
