#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;

use gix::ObjectId;
use svc_protocol::branch::{BranchDiffLine, DiffFile, FileStatus, PatchOmitted};
use svc_protocol::event::ZERO_SHA;

use super::{Options, branch_diff, diff_from, plan};
use crate::git::read::fixture::{Fixture, git_in, git_text, standard};

fn id(sha: &str) -> ObjectId {
    ObjectId::from_hex(sha.as_bytes()).unwrap()
}

/// Limits high enough that nothing is left out.
fn everything() -> Options {
    Options {
        max_files: usize::MAX,
        max_patch_bytes: usize::MAX,
        ..Options::patches()
    }
}

/// What git says about one file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct GitFile {
    status: String,
    old_path: Option<String>,
    /// None for binary files (`-` in `--numstat`).
    counts: Option<(u64, u64)>,
    /// The hunks after the header lines; sections of a type change are joined.
    hunks: String,
}

/// `git diff --patience -M100%` between `from` and `to`, by new path.
fn git_diff(bare: &Path, from: &str, to: &str) -> HashMap<String, GitFile> {
    let base = [
        "diff",
        "--patience",
        "-M100%",
        "--no-color",
        "--no-ext-diff",
    ];
    let run = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&[from, to]);
        git_in(bare, &args)
    };
    let mut files: HashMap<String, GitFile> = HashMap::new();
    let statuses = String::from_utf8(run(&["--name-status", "-z"])).unwrap();
    let mut fields = statuses.split('\0').filter(|f| !f.is_empty());
    while let Some(status) = fields.next() {
        let first = fields.next().unwrap().to_owned();
        let (path, old_path) = if status.starts_with('R') {
            (fields.next().unwrap().to_owned(), Some(first))
        } else {
            (first, None)
        };
        files.insert(
            path,
            GitFile {
                status: status.chars().take(1).collect(),
                old_path,
                ..GitFile::default()
            },
        );
    }
    let numstat = String::from_utf8(run(&["--numstat", "-z"])).unwrap();
    let mut fields = numstat.split('\0');
    while let Some(record) = fields.next() {
        if record.is_empty() {
            continue;
        }
        let mut parts = record.splitn(3, '\t');
        let (added, deleted, path) = (parts.next().unwrap(), parts.next().unwrap(), parts.next());
        let path = match path {
            Some(p) if !p.is_empty() => p.to_owned(),
            _ => {
                fields.next();
                fields.next().unwrap().to_owned()
            }
        };
        let counts = (added != "-").then(|| (added.parse().unwrap(), deleted.parse().unwrap()));
        files.get_mut(&path).unwrap().counts = counts;
    }
    let patch = String::from_utf8(run(&[])).unwrap();
    for section in patch.split("diff --git ").filter(|s| !s.is_empty()) {
        let (header, hunks) = match section.find("\n@@ ") {
            Some(at) => section.split_at(at + 1),
            None => (section, ""),
        };
        let mut lines = header.lines();
        let names = lines.next().unwrap();
        let mut path = names[(names.len() + 5) / 2..].to_owned();
        for line in lines {
            if let Some(p) = line
                .strip_prefix("rename to ")
                .or_else(|| line.strip_prefix("+++ b/"))
            {
                path = p.trim_end_matches('\t').to_owned();
            }
        }
        files.get_mut(&path).unwrap().hunks.push_str(hunks);
    }
    files
}

/// Our diff with everything in it, checked file by file against git's.
fn check_against_git(
    bare: &Path,
    repo: &crate::git::read::Repo,
    main: &str,
    head: &str,
) -> Vec<DiffFile> {
    let (main, head) = (
        git_text(bare, &["rev-parse", main]),
        git_text(bare, &["rev-parse", head]),
    );
    let diff = branch_diff(repo, id(&main), id(&head), everything()).unwrap();
    let merge_base = git_text(bare, &["merge-base", &main, &head]);
    assert_eq!(diff.merge_base, merge_base);
    let want = git_diff(bare, &merge_base, &head);
    let mut got_paths: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    let mut want_paths: Vec<&str> = want.keys().map(String::as_str).collect();
    got_paths.sort_unstable();
    want_paths.sort_unstable();
    assert_eq!(got_paths, want_paths);
    let mut mismatches = Vec::new();
    for file in &diff.files {
        let git = &want[&file.path];
        let status = match file.status {
            FileStatus::Added => "A",
            FileStatus::Deleted => "D",
            FileStatus::Renamed => "R",
            FileStatus::Modified if git.status == "T" => "T",
            FileStatus::Modified => "M",
        };
        assert_eq!(status, git.status, "{}", file.path);
        assert_eq!(file.old_path, git.old_path, "{}", file.path);
        assert_eq!(file.binary, git.counts.is_none(), "{}", file.path);
        let counts = file.additions.zip(file.deletions);
        let patch = file.patch.as_deref().unwrap_or_default();
        assert_eq!(file.patch.is_none(), file.binary, "{}", file.path);
        if counts != git.counts || patch != git.hunks {
            mismatches.push(format!(
                "{}: ours {counts:?}\n{}\ngit's {:?}\n{}",
                file.path,
                file.patch.as_deref().unwrap_or("<none>"),
                git.counts,
                git.hunks
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} files differ from git; the first:\n{}",
        mismatches.len(),
        diff.files.len(),
        mismatches[0]
    );
    assert_eq!(diff.files_total, diff.files.len() as u64);
    assert!(!diff.truncated && !diff.too_many_files);
    assert_eq!(
        diff.stats.additions,
        diff.files.iter().filter_map(|f| f.additions).sum::<u64>()
    );
    diff.files
}

#[test]
fn standard_history_matches_git() {
    let f = standard();
    let (bare, repo) = f.bare();
    let root = git_text(&bare, &["rev-list", "--max-parents=0", "main"]);
    let files = check_against_git(&bare, &repo, &root, "main");
    let find = |path: &str| files.iter().find(|f| f.path == path).unwrap();
    // Edited, then moved: no exact rename from the root.
    assert_eq!(find("docs/manual.md").status, FileStatus::Added);
    assert_eq!(find("docs/guide.md").status, FileStatus::Deleted);
    let merge = git_text(&bare, &["rev-parse", ":/Merge feature"]);
    let files = check_against_git(&bare, &repo, &merge, "main");
    let find = |path: &str| files.iter().find(|f| f.path == path).unwrap();
    let manual = find("docs/manual.md");
    assert_eq!(manual.status, FileStatus::Renamed);
    assert_eq!(manual.old_path.as_deref(), Some("docs/guide.md"));
    let run = find("scripts/run.sh");
    assert_eq!(run.status, FileStatus::Modified);
    assert_eq!(
        (run.old_mode.as_deref(), run.new_mode.as_deref()),
        (Some("100644"), Some("100755"))
    );
    assert_eq!(run.patch.as_deref(), Some(""));
    assert_eq!(find("thing").status, FileStatus::Deleted);
    assert_eq!(find("thing/inner.txt").status, FileStatus::Added);
    let sub = find("vendor/sub");
    assert_eq!(sub.new_mode.as_deref(), Some("160000"));
    assert!(
        sub.patch
            .as_deref()
            .unwrap()
            .starts_with("@@ -0,0 +1 @@\n+Subproject commit ")
    );
    // The other branch forked before the merge: three-dot leaves main's work out.
    let files = check_against_git(&bare, &repo, "main", "other");
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["other.txt"]);
}

/// A deterministic source of pseudo-random numbers.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// A line of code-like text: many repeat (braces, blank lines), some start a function,
/// some are longer than git's 80-byte function names.
fn code_line(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 | 1 => "}\n".to_owned(),
        2 => "\n".to_owned(),
        3 => "    }\n".to_owned(),
        4 => format!("fn f{}() {{\n", rng.below(40)),
        5 => format!("    let v{} = {};\n", rng.below(20), rng.below(4)),
        6 => format!("\tif x{} {{\n", rng.below(8)),
        7 => format!(
            "impl {} {}\n",
            "LongName".repeat(rng.below(14)),
            rng.below(9)
        ),
        8 => "        \n".to_owned(),
        9 => format!("    call({});\r\n", rng.below(30)),
        _ => format!("    work({});\n", rng.below(400)),
    }
}

/// `lines` after a few random edits: insertions, deletions, replacements, moved and
/// copied blocks.
fn edit(rng: &mut Rng, mut lines: Vec<String>) -> Vec<String> {
    for _ in 0..1 + rng.below(6) {
        let at = rng.below(lines.len() + 1);
        let len = (1 + rng.below(8)).min(lines.len() - at.min(lines.len()));
        match rng.below(5) {
            0 => {
                let new: Vec<String> = (0..1 + rng.below(6)).map(|_| code_line(rng)).collect();
                lines.splice(at..at, new);
            }
            1 => {
                lines.drain(at..at + len);
            }
            2 => {
                let new: Vec<String> = (0..rng.below(5)).map(|_| code_line(rng)).collect();
                lines.splice(at..at + len, new);
            }
            3 => {
                let block: Vec<String> = lines.drain(at..at + len).collect();
                let to = rng.below(lines.len() + 1);
                lines.splice(to..to, block);
            }
            _ => {
                let block: Vec<String> = lines[at..at + len].to_vec();
                let to = rng.below(lines.len() + 1);
                lines.splice(to..to, block);
            }
        }
    }
    lines
}

fn text(lines: &[String], final_newline: bool) -> String {
    let mut text = lines.concat();
    if !final_newline && text.ends_with('\n') {
        text.pop();
    }
    text
}

#[test]
fn edited_files_match_git_patience() {
    let mut f = Fixture::new();
    let mut rng = Rng(7);
    let mut versions = Vec::new();
    for i in 0..400 {
        let len = rng.below(90);
        let old: Vec<String> = (0..len).map(|_| code_line(&mut rng)).collect();
        let new = edit(&mut rng, old.clone());
        let path = format!("gen/d{}/f{i}.rs", i % 7);
        f.write(&path, text(&old, rng.below(6) != 0));
        versions.push((path, new));
    }
    let old = f.commit("Old versions");
    for (path, new) in &versions {
        f.write(path, text(new, rng.below(6) != 0));
    }
    let new = f.commit("Edits");
    let (bare, repo) = f.bare();
    let files = check_against_git(&bare, &repo, &old, &new);
    assert!(files.len() > 350, "{}", files.len());
}

#[test]
fn renames_binary_and_type_changes_match_git() {
    let mut f = Fixture::new();
    f.write("a/same.txt", "twin\n");
    f.write("b/same.txt", "twin\n");
    f.write("c/other.txt", "twin\n");
    f.write("empty", "");
    f.write("data.bin", b"\x00\x01binary".as_slice());
    f.write("late-nul.txt", format!("{}\x00\n", "x".repeat(8_000)));
    f.write("early-nul.txt", "text\n");
    f.write("tool.sh", "#!/bin/sh\n");
    f.write("link-me", "line one\nline two\n");
    let main = f.commit("Start");
    f.git(&["checkout", "-q", "-b", "work"]);
    for (from, to) in [
        ("a/same.txt", "x/same.txt"),
        ("c/other.txt", "x/moved.txt"),
        ("b/same.txt", "y/renamed.txt"),
        ("empty", "empty-moved"),
        ("data.bin", "moved.bin"),
        ("tool.sh", "bin/tool.sh"),
    ] {
        let bytes = std::fs::read(f.work.join(from)).unwrap();
        f.remove(from);
        f.write(to, bytes);
    }
    std::fs::set_permissions(
        f.work.join("bin/tool.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    f.write("early-nul.txt", "te\x00xt\n");
    f.remove("link-me");
    std::os::unix::fs::symlink("target/path", f.work.join("link-me")).unwrap();
    f.write("late-nul.txt", format!("{}\x00\nmore\n", "x".repeat(8_000)));
    f.git(&["add", "-A"]);
    let head = f.git_dated(&["commit", "-q", "-m", "Moves"]);
    let (bare, repo) = f.bare();
    let files = check_against_git(&bare, &repo, &main, &head);
    let find = |path: &str| files.iter().find(|f| f.path == path).unwrap();
    let bin = find("moved.bin");
    assert_eq!(
        (bin.status, bin.binary, bin.additions),
        (FileStatus::Renamed, true, None)
    );
    assert_eq!(bin.patch, None);
    assert!(find("early-nul.txt").binary);
    assert!(!find("late-nul.txt").binary);
    let tool = find("bin/tool.sh");
    assert_eq!(tool.old_path.as_deref(), Some("tool.sh"));
    assert_eq!(tool.new_mode.as_deref(), Some("100755"));
    let link = find("link-me");
    assert_eq!(link.new_mode.as_deref(), Some("120000"));
    assert_eq!((link.additions, link.deletions), (Some(1), Some(2)));
}

#[test]
fn file_tree_order() {
    let mut f = Fixture::new();
    f.write("keep", "k\n");
    let main = f.commit("Start");
    for path in [
        "z.txt",
        "a.txt",
        "B.txt",
        "b/a.txt",
        "b/c/d.txt",
        "a/z.txt",
        "a-b.txt",
        "a/b-c/x",
    ] {
        f.write(path, "new\n");
    }
    let head = f.commit("Files");
    let (_, repo) = f.bare();
    let diff = branch_diff(&repo, id(&main), id(&head), Options::patches()).unwrap();
    let paths: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "a/b-c/x",
            "a/z.txt",
            "b/c/d.txt",
            "b/a.txt",
            "B.txt",
            "a-b.txt",
            "a.txt",
            "z.txt"
        ]
    );
}

/// A history with three files changed on a branch, for the limits.
fn three_files() -> (Fixture, String, String) {
    let mut f = Fixture::new();
    f.write("big.txt", "1\n2\n3\n");
    f.write("docs/a.md", "a\n");
    f.write("docs/b.md", "b\n");
    let main = f.commit("Start");
    f.write("big.txt", "one\ntwo\nthree\nfour\n");
    f.write("docs/a.md", "A\n");
    f.write("docs/b.md", "B\n");
    let head = f.commit("Edits");
    (f, main, head)
}

#[test]
fn without_a_main_every_file_of_head_is_added() {
    let (f, _, head) = three_files();
    let (_, repo) = f.bare();
    let diff = diff_from(&repo, None, id(&head), Options::patches()).unwrap();
    assert_eq!(
        (diff.base.as_str(), diff.merge_base.as_str()),
        (ZERO_SHA, ZERO_SHA)
    );
    let files: Vec<_> = diff
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.status))
        .collect();
    let added = FileStatus::Added;
    assert_eq!(
        files,
        [
            ("docs/a.md", added),
            ("docs/b.md", added),
            ("big.txt", added)
        ]
    );
    assert_eq!((diff.stats.additions, diff.stats.deletions), (6, 0));
}

#[test]
fn too_large_files_have_no_patch_and_no_counts() {
    let (f, main, head) = three_files();
    let (_, repo) = f.bare();
    let options = Options {
        max_blob_bytes: 10,
        ..Options::patches()
    };
    let diff = branch_diff(&repo, id(&main), id(&head), options).unwrap();
    let big = &diff.files[2];
    assert_eq!(big.path, "big.txt");
    assert_eq!(big.patch_omitted, Some(PatchOmitted::TooLarge));
    assert_eq!(
        (big.additions, big.deletions, big.patch.as_deref()),
        (None, None, None)
    );
    assert!(!big.binary);
    assert_eq!(
        diff.files[0].patch.as_deref(),
        Some("@@ -1 +1 @@\n-a\n+A\n")
    );
    assert!(diff.truncated);
    assert_eq!(diff.stats.files, 3);
    assert_eq!((diff.stats.additions, diff.stats.deletions), (2, 2));
}

#[test]
fn patch_budgets_leave_out_what_does_not_fit() {
    let (f, main, head) = three_files();
    let (_, repo) = f.bare();
    let small = "@@ -1 +1 @@\n-a\n+A\n".len();
    // Room for one small patch: the second small one is left out, with its counts.
    for options in [
        Options {
            max_patch_bytes: small + 5,
            ..Options::patches()
        },
        Options {
            max_bytes: Some(small + 5),
            ..Options::patches()
        },
    ] {
        let diff = branch_diff(&repo, id(&main), id(&head), options).unwrap();
        let omitted: Vec<Option<PatchOmitted>> =
            diff.files.iter().map(|f| f.patch_omitted).collect();
        assert_eq!(
            omitted,
            [None, Some(PatchOmitted::Budget), Some(PatchOmitted::Budget)]
        );
        assert_eq!(diff.files[1].additions, Some(1));
        assert_eq!(diff.files[1].patch, None);
        assert!(diff.truncated);
    }
    // The big patch does not fit, the later small one does.
    let options = Options {
        max_bytes: Some(2 * small),
        ..Options::patches()
    };
    let (mut f2, main2, _) = three_files();
    f2.write("docs/a.md", "long line\n".repeat(20));
    f2.write("z.txt", "z\n");
    let head2 = f2.commit("More");
    let (_, repo2) = f2.bare();
    let diff = branch_diff(&repo2, id(&main2), id(&head2), options).unwrap();
    let given: Vec<(&str, bool)> = diff
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.patch.is_some()))
        .collect();
    assert_eq!(
        given,
        [
            ("docs/a.md", false),
            ("docs/b.md", true),
            ("big.txt", false),
            ("z.txt", true)
        ]
    );
    // Counts only.
    let options = Options {
        patches: false,
        ..Options::patches()
    };
    let diff = branch_diff(&repo, id(&main), id(&head), options).unwrap();
    assert!(
        diff.files
            .iter()
            .all(|f| f.patch.is_none() && f.patch_omitted.is_none())
    );
    assert_eq!(
        (diff.files[2].additions, diff.files[2].deletions),
        (Some(4), Some(3))
    );
    assert!(!diff.truncated);
}

#[test]
fn paths_filter_and_file_limit() {
    let (f, main, head) = three_files();
    let (_, repo) = f.bare();
    let with_paths = |paths: &[&str]| Options {
        paths: paths.iter().map(|p| (*p).to_owned()).collect(),
        ..Options::patches()
    };
    let listed = |options: Options| {
        let diff = branch_diff(&repo, id(&main), id(&head), options).unwrap();
        let paths: Vec<String> = diff.files.into_iter().map(|f| f.path).collect();
        (paths, diff.files_total)
    };
    assert_eq!(
        listed(with_paths(&["docs/"])),
        (vec!["docs/a.md".into(), "docs/b.md".into()], 2)
    );
    assert_eq!(listed(with_paths(&["docs/b.md", "big.txt"])).1, 2);
    assert_eq!(listed(with_paths(&["doc"])).1, 0);
    assert_eq!(listed(with_paths(&["."])).1, 3);
    let options = Options {
        max_files: 2,
        ..Options::patches()
    };
    let diff = branch_diff(&repo, id(&main), id(&head), options).unwrap();
    assert_eq!((diff.files.len(), diff.files_total), (2, 3));
    assert!(diff.too_many_files && diff.truncated);
    assert_eq!(diff.stats.files, 2);
}

#[test]
fn unrelated_histories_diff_from_the_empty_tree() {
    let mut f = Fixture::new();
    f.write("main.txt", "main\n");
    let main = f.commit("Main");
    f.git(&["checkout", "-q", "--orphan", "alone"]);
    f.git(&["rm", "-q", "-r", "--cached", "."]);
    f.remove("main.txt");
    f.write("alone.txt", "one\ntwo\n");
    let head = f.commit("Alone");
    let (_, repo) = f.bare();
    let diff = branch_diff(&repo, id(&main), id(&head), Options::patches()).unwrap();
    assert_eq!(diff.merge_base, ZERO_SHA);
    assert_eq!(diff.files.len(), 1);
    assert_eq!(diff.files[0].status, FileStatus::Added);
    assert_eq!(
        diff.files[0].patch.as_deref(),
        Some("@@ -0,0 +1,2 @@\n+one\n+two\n")
    );
    assert!(matches!(
        plan(
            &repo,
            Some(id(&main)),
            id(&"1".repeat(40)),
            Options::patches()
        ),
        Err(super::Error::NotFound(_))
    ));
}

#[test]
fn streaming_hands_over_files_one_by_one_and_stops() {
    let (f, main, head) = three_files();
    let (_, repo) = f.bare();
    let plan = plan(&repo, Some(id(&main)), id(&head), Options::stream()).unwrap();
    assert_eq!(
        plan.start_line(),
        BranchDiffLine::Start {
            base: main.clone(),
            head: head.clone(),
            merge_base: main.clone(),
            files_total: 3,
            too_many_files: false,
        }
    );
    let mut seen = Vec::new();
    let outcome = plan
        .files(&repo, |file| {
            seen.push(file.path);
            if seen.len() == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
    assert_eq!(seen, ["docs/a.md", "docs/b.md"]);
    assert_eq!(outcome.stats.files, 2);
    let all = plan.files(&repo, |_| ControlFlow::Continue(())).unwrap();
    assert_eq!(
        all.end_line(),
        BranchDiffLine::End {
            stats: svc_protocol::branch::DiffStats {
                files: 3,
                additions: 6,
                deletions: 5
            },
            truncated: false
        }
    );
}
