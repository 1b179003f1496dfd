//! One changed file as `git diff` prints it: the `diff --git` header built from the
//! DiffFile, then the server's hunks, coloured like git when asked.

use std::io::{self, Write};

use svc_protocol::branch::{DiffFile, FileStatus, PatchOmitted};

/// git's default diff colours, or none.
pub struct Palette {
    pub(super) meta: &'static str,
    pub(super) frag: &'static str,
    pub(super) old: &'static str,
    pub(super) new: &'static str,
    pub(super) reset: &'static str,
}

impl Palette {
    pub fn new(color: bool) -> Palette {
        if color {
            Palette {
                meta: "\x1b[1m",
                frag: "\x1b[36m",
                old: "\x1b[31m",
                new: "\x1b[32m",
                reset: "\x1b[m",
            }
        } else {
            Palette {
                meta: "",
                frag: "",
                old: "",
                new: "",
                reset: "",
            }
        }
    }
}

/// git's 7-character abbreviation, zeros for the side where the file does not exist.
fn abbrev(sha: Option<&str>) -> &str {
    sha.map_or("0000000", |s| s.get(..7).unwrap_or(s))
}

/// The header lines git prints before the hunks, in git's order.
fn header(f: &DiffFile) -> Vec<String> {
    let old_path = f.old_path.as_deref().unwrap_or(&f.path);
    let mode = |m: &Option<String>| m.clone().unwrap_or_default();
    let mut lines = vec![format!("diff --git a/{old_path} b/{}", f.path)];
    match f.status {
        FileStatus::Added => lines.push(format!("new file mode {}", mode(&f.new_mode))),
        FileStatus::Deleted => lines.push(format!("deleted file mode {}", mode(&f.old_mode))),
        FileStatus::Modified | FileStatus::Renamed if f.old_mode != f.new_mode => {
            lines.push(format!("old mode {}", mode(&f.old_mode)));
            lines.push(format!("new mode {}", mode(&f.new_mode)));
        }
        FileStatus::Modified | FileStatus::Renamed => {}
    }
    if f.status == FileStatus::Renamed {
        lines.push("similarity index 100%".to_owned());
        lines.push(format!("rename from {old_path}"));
        lines.push(format!("rename to {}", f.path));
    }
    if f.old_sha != f.new_sha {
        let mut index = format!(
            "index {}..{}",
            abbrev(f.old_sha.as_deref()),
            abbrev(f.new_sha.as_deref())
        );
        if f.old_mode == f.new_mode {
            index.push_str(&format!(" {}", mode(&f.new_mode)));
        }
        lines.push(index);
    }
    lines
}

/// Writes one file: header, then its patch or why there is none.
pub fn write_file(out: &mut dyn Write, f: &DiffFile, p: &Palette) -> io::Result<()> {
    for line in header(f) {
        writeln!(out, "{}{line}{}", p.meta, p.reset)?;
    }
    let old_path = f.old_path.as_deref().unwrap_or(&f.path);
    let a = match f.status {
        FileStatus::Added => "/dev/null".to_owned(),
        _ => format!("a/{old_path}"),
    };
    let b = match f.status {
        FileStatus::Deleted => "/dev/null".to_owned(),
        _ => format!("b/{}", f.path),
    };
    if f.binary {
        if f.old_sha != f.new_sha {
            writeln!(out, "Binary files {a} and {b} differ")?;
        }
        return Ok(());
    }
    if let Some(omitted) = f.patch_omitted {
        let why = match omitted {
            PatchOmitted::TooLarge => "too large",
            PatchOmitted::Budget => "past the diff's size budget",
        };
        return writeln!(out, "(patch omitted: {why})");
    }
    let Some(patch) = f.patch.as_deref().filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    writeln!(out, "{}--- {a}{}", p.meta, p.reset)?;
    writeln!(out, "{}+++ {b}{}", p.meta, p.reset)?;
    for line in patch.lines() {
        write_patch_line(out, line, p)?;
    }
    Ok(())
}

fn write_patch_line(out: &mut dyn Write, line: &str, p: &Palette) -> io::Result<()> {
    if p.reset.is_empty() {
        return writeln!(out, "{line}");
    }
    if let Some(rest) = line.strip_prefix("@@")
        && let Some(end) = rest.find("@@")
    {
        let (frag, context) = rest.split_at(end + 2);
        return writeln!(out, "{}@@{frag}{}{context}", p.frag, p.reset);
    }
    let color = match line.as_bytes().first() {
        Some(b'+') => p.new,
        Some(b'-') => p.old,
        _ => return writeln!(out, "{line}"),
    };
    writeln!(out, "{color}{line}{}", p.reset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(status: FileStatus) -> DiffFile {
        DiffFile {
            path: "d/new.txt".to_owned(),
            old_path: None,
            status,
            old_sha: Some("1111111aaaa".to_owned()),
            new_sha: Some("2222222bbbb".to_owned()),
            old_mode: Some("100644".to_owned()),
            new_mode: Some("100644".to_owned()),
            binary: false,
            additions: Some(1),
            deletions: Some(1),
            patch: Some("@@ -1 +1 @@ ctx\n-a\n+b\n".to_owned()),
            patch_omitted: None,
        }
    }

    fn text(f: &DiffFile, color: bool) -> String {
        let mut out = Vec::new();
        write_file(&mut out, f, &Palette::new(color)).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn modified_added_deleted_renamed_as_git_prints_them() {
        let f = file(FileStatus::Modified);
        assert_eq!(
            text(&f, false),
            "diff --git a/d/new.txt b/d/new.txt\nindex 1111111..2222222 100644\n\
             --- a/d/new.txt\n+++ b/d/new.txt\n@@ -1 +1 @@ ctx\n-a\n+b\n"
        );
        let added = DiffFile {
            old_sha: None,
            old_mode: None,
            ..file(FileStatus::Added)
        };
        assert!(text(&added, false).starts_with(
            "diff --git a/d/new.txt b/d/new.txt\nnew file mode 100644\n\
             index 0000000..2222222\n--- /dev/null\n+++ b/d/new.txt\n"
        ));
        let deleted = DiffFile {
            new_sha: None,
            new_mode: None,
            ..file(FileStatus::Deleted)
        };
        assert!(text(&deleted, false).contains(
            "deleted file mode 100644\nindex 1111111..0000000\n--- a/d/new.txt\n+++ /dev/null\n"
        ));
        let renamed = DiffFile {
            old_path: Some("old.txt".to_owned()),
            new_sha: f.old_sha.clone(),
            new_mode: Some("100755".to_owned()),
            patch: None,
            ..file(FileStatus::Renamed)
        };
        assert_eq!(
            text(&renamed, false),
            "diff --git a/old.txt b/d/new.txt\nold mode 100644\nnew mode 100755\n\
             similarity index 100%\nrename from old.txt\nrename to d/new.txt\n"
        );
    }

    #[test]
    fn binary_and_omitted_patches_say_so() {
        let binary = DiffFile {
            binary: true,
            patch: None,
            ..file(FileStatus::Modified)
        };
        assert!(
            text(&binary, false).ends_with("Binary files a/d/new.txt and b/d/new.txt differ\n")
        );
        let big = DiffFile {
            patch: None,
            patch_omitted: Some(PatchOmitted::TooLarge),
            ..file(FileStatus::Modified)
        };
        assert!(text(&big, false).ends_with("100644\n(patch omitted: too large)\n"));
    }

    #[test]
    fn colours_follow_git() {
        let out = text(&file(FileStatus::Modified), true);
        assert!(out.contains("\x1b[1mdiff --git a/d/new.txt b/d/new.txt\x1b[m\n"));
        assert!(
            out.contains("\x1b[36m@@ -1 +1 @@\x1b[m ctx\n\x1b[31m-a\x1b[m\n\x1b[32m+b\x1b[m\n")
        );
    }
}
