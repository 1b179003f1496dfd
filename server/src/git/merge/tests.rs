//! Facts, dry runs, merges and ref edits, each checked against the `git` CLI.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use super::{Error, MergeCheck, Person};
use crate::git::read::fixture::{Fixture, git_command, git_in, git_text};
use crate::git::read::{self, Repo};
use gix::ObjectId;

fn oid(sha: &str) -> ObjectId {
    ObjectId::from_hex(sha.trim().as_bytes()).unwrap()
}

/// 20 numbered lines, with some replaced.
fn lines(edits: &[(usize, &str)]) -> String {
    (1..=20)
        .map(|i| match edits.iter().find(|(n, _)| *n == i) {
            Some((_, text)) => format!("{text}\n"),
            None => format!("line {i}\n"),
        })
        .collect()
}

/// Every branch of [`cases`] but main.
const BRANCHES: [&str; 9] = [
    "clean", "conflict", "tangle", "internal", "cross", "ff", "merged", "same", "orphan",
];

/// One branch per case, against `main`:
///
/// - `clean`: edits apart from main's, and an edit of a file main renamed
/// - `conflict`: a content conflict, modify/delete, add/add and a binary conflict
/// - `tangle`: main and it rename a file apart, and it makes a folder of a file main edits
/// - `internal`: a merge of its own side branch, and a merge of main into it
/// - `cross`: a criss-cross with main (two merge bases)
/// - `ff`: main's head plus two commits; `merged`: an old commit of main;
///   `same`: main's head; `orphan`: unrelated history
fn cases() -> Fixture {
    let mut f = Fixture::new();
    f.write("a.txt", lines(&[]));
    f.write("ren.txt", lines(&[(20, "to be renamed")]));
    f.write("del.txt", "delete me\n");
    f.write("bin.dat", b"\x00base\x00".as_slice());
    f.write("dir/c.txt", "c\n");
    let base = f.commit("Base");
    f.git(&["branch", "merged"]);

    f.git(&["checkout", "-q", "-b", "clean", &base]);
    f.write("a.txt", lines(&[(19, "clean tail")]));
    f.write("new.txt", "new\n");
    f.commit("Clean: tail edit");
    f.write(
        "ren.txt",
        lines(&[(5, "clean edit"), (20, "to be renamed")]),
    );
    f.commit("Clean: edit the file main renames\n\nSvc-Agent: codex\nSvc-Machine: m1");

    f.git(&["checkout", "-q", "-b", "conflict", &base]);
    f.write("a.txt", lines(&[(1, "conflict side")]));
    f.remove("del.txt");
    f.write("add.txt", "theirs\n");
    f.write("bin.dat", b"\x00theirs\x00".as_slice());
    f.commit("Conflict: everything");

    f.git(&["checkout", "-q", "-b", "tangle", &base]);
    f.git(&["mv", "ren.txt", "elsewhere.txt"]);
    f.remove("del.txt");
    f.write("del.txt/inside.txt", "a folder now\n");
    f.commit("Tangle: rename/rename and file/folder");

    f.git(&["checkout", "-q", "-b", "internal", &base]);
    f.write("dir/c.txt", "c internal\n");
    f.commit("x1");
    f.git(&["checkout", "-q", "-b", "side"]);
    f.write("side.txt", "s1\n");
    f.commit("s1");
    f.write("side.txt", "s2\n");
    f.commit("s2");
    f.git(&["checkout", "-q", "internal"]);
    f.write("x2.txt", "x2\n");
    f.commit("x2");
    f.git_dated(&["merge", "-q", "--no-ff", "side", "-m", "Merge side"]);
    f.write("x2.txt", "x3\n");
    f.commit("x3");

    f.git(&["checkout", "-q", "main"]);
    f.write("a.txt", lines(&[(1, "main side")]));
    f.write("del.txt", "main keeps me\n");
    f.write("add.txt", "ours\n");
    f.write("bin.dat", b"\x00ours\x00".as_slice());
    f.git(&["mv", "ren.txt", "moved.txt"]);
    f.commit("Main: edits");

    f.git(&["checkout", "-q", "internal"]);
    f.git_dated(&[
        "merge",
        "-q",
        "--no-ff",
        "main",
        "-m",
        "Merge main into internal",
    ]);
    f.write("x4.txt", "x4\n");
    f.commit("x4");

    f.git(&["checkout", "-q", "main"]);
    f.write("dir/other.txt", "other\n");
    f.commit("Main: other");

    f.git(&["checkout", "-q", "-b", "cross"]);
    let c1 = f.commit_file("a.txt", &lines(&[(1, "main side"), (10, "cross")]), "c1");
    f.git(&["checkout", "-q", "main"]);
    let m3 = f.commit_file("dir/m3.txt", "m3\n", "m3");
    f.git_dated(&["merge", "-q", "--no-ff", &c1, "-m", "Merge c1 into main"]);
    f.git(&["checkout", "-q", "cross"]);
    f.git_dated(&["merge", "-q", "--no-ff", &m3, "-m", "Merge m3 into cross"]);
    f.commit_file("cross.txt", "c2\n", "c2");

    f.git(&["checkout", "-q", "main"]);
    f.git(&["branch", "same"]);
    f.git(&["checkout", "-q", "-b", "ff"]);
    f.commit_file("ff.txt", "f1\n", "f1");
    f.commit_file("ff.txt", "f2\n", "f2");

    f.git(&["checkout", "-q", "--orphan", "orphan"]);
    f.git(&["rm", "-rfq", "."]);
    f.commit_file("o.txt", "o\n", "Orphan root");
    f.git(&["checkout", "-q", "-f", "main"]);
    f
}

impl Fixture {
    fn commit_file(&mut self, path: &str, text: &str, message: &str) -> String {
        self.write(path, text);
        self.commit(message)
    }
}

struct Case {
    bare: std::path::PathBuf,
    repo: Repo,
    _f: Fixture,
}

impl Case {
    fn new() -> Case {
        let f = cases();
        let (bare, repo) = f.bare();
        Case { bare, repo, _f: f }
    }

    fn id(&self, rev: &str) -> ObjectId {
        oid(&git_text(&self.bare, &["rev-parse", rev]))
    }

    fn git(&self, args: &[&str]) -> String {
        git_text(&self.bare, args)
    }

    fn loose_objects(&self) -> String {
        let out = self.git(&["count-objects", "-v"]);
        out.lines().take(2).collect::<Vec<_>>().join(",")
    }
}

/// `git merge-tree --write-tree main head`: the tree and the conflicted paths, or None
/// when git refuses (unrelated histories).
fn merge_tree(bare: &Path, main: &str, head: &str) -> Option<(ObjectId, Vec<String>)> {
    let out = git_command(bare)
        .args(["merge-tree", "--write-tree", "--name-only", main, head])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut parts = text.lines();
    match out.status.code() {
        Some(0 | 1) => {
            let tree = oid(parts.next().unwrap());
            let paths = parts.take_while(|l| !l.is_empty()).map(str::to_owned);
            Some((tree, paths.collect()))
        }
        _ => None,
    }
}

#[test]
fn merge_base_matches_git() {
    let c = Case::new();
    let mut names = vec!["main"];
    names.extend(BRANCHES);
    for a in &names {
        for b in &names {
            let got = c.repo.merge_base(c.id(a), c.id(b)).unwrap();
            let out = git_command(&c.bare)
                .args(["merge-base", "--all", a, b])
                .output()
                .unwrap();
            let all: Vec<ObjectId> = String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(oid)
                .collect();
            match got {
                None => assert!(all.is_empty(), "{a} {b}"),
                Some(base) if all.len() == 1 => assert_eq!(base, all[0], "{a} {b}"),
                Some(base) => assert!(all.contains(&base), "{a} {b}: {base} not in {all:?}"),
            }
        }
    }
    let cross = c.git(&["merge-base", "--all", "main", "cross"]);
    assert_eq!(cross.lines().count(), 2, "cross has two merge bases");
    let absent = oid("0123456789abcdef0123456789abcdef01234567");
    assert!(matches!(
        c.repo.merge_base(c.id("main"), absent),
        Err(read::Error::NotFound(_))
    ));
}

#[test]
fn ahead_behind_matches_rev_list() {
    let c = Case::new();
    for b in BRANCHES {
        let counts = c.git(&[
            "rev-list",
            "--left-right",
            "--count",
            &format!("main...{b}"),
        ]);
        let (behind, ahead) = counts.split_once('\t').unwrap();
        let got = c.repo.ahead_behind(c.id("main"), c.id(b)).unwrap();
        assert_eq!(
            got,
            (ahead.parse().unwrap(), behind.parse().unwrap()),
            "{b}"
        );
    }
    let got = c.repo.ahead_behind(c.id("main"), c.id("internal")).unwrap();
    assert_eq!(got, (8, 4), "x1 s1 s2 x2 x3 x4 and two merges");
}

/// All pages of `own_commits`, `limit` at a time, as shas.
fn all_own(c: &Case, main: Option<ObjectId>, head: ObjectId, limit: usize) -> Vec<String> {
    let mut shas = Vec::new();
    let mut skip = 0;
    loop {
        let (items, more) = c.repo.own_commits(main, head, skip, limit).unwrap();
        assert!(items.len() <= limit.max(1));
        skip += items.len();
        for item in items {
            assert_eq!(item, c.repo.commit(oid(&item.sha)).unwrap());
            shas.push(item.sha);
        }
        if !more {
            return shas;
        }
    }
}

#[test]
fn own_commits_follow_topo_order() {
    let c = Case::new();
    for b in BRANCHES {
        let want = c.git(&["rev-list", "--topo-order", &format!("main..{b}")]);
        let want: Vec<&str> = want.lines().collect();
        for limit in [0, 1, 2, 3, 100] {
            let got = all_own(&c, Some(c.id("main")), c.id(b), limit);
            assert_eq!(got, want, "{b} by {limit}");
        }
        let whole = c.git(&["rev-list", "--topo-order", b]);
        let got = all_own(&c, None, c.id(b), 4);
        assert_eq!(got, whole.lines().collect::<Vec<_>>(), "{b} without main");
    }
    // The side branch comes right after the merge that brings it, each before its parents.
    let titles: Vec<String> = c
        .repo
        .own_commits(Some(c.id("main")), c.id("internal"), 0, 100)
        .unwrap()
        .0
        .into_iter()
        .map(|i| i.title)
        .collect();
    assert_eq!(
        titles,
        [
            "x4",
            "Merge main into internal",
            "x3",
            "Merge side",
            "s2",
            "s1",
            "x2",
            "x1"
        ]
    );
    let (clean, more) = c
        .repo
        .own_commits(Some(c.id("main")), c.id("clean"), 0, 1)
        .unwrap();
    assert_eq!(clean[0].trailers.agent.as_deref(), Some("codex"));
    assert!(more);
    let (past, more) = c
        .repo
        .own_commits(Some(c.id("main")), c.id("clean"), 5, 1)
        .unwrap();
    assert_eq!((past.len(), more), (0, false));
}

#[test]
fn dry_run_matches_merge_tree_and_writes_nothing() {
    let c = Case::new();
    let before = c.loose_objects();
    let checks: Vec<MergeCheck> = BRANCHES
        .iter()
        .map(|b| c.repo.dry_run(c.id("main"), c.id(b)).unwrap())
        .collect();
    assert_eq!(c.loose_objects(), before, "a dry run writes no object");
    // `git merge-tree` writes its trees: after ours.
    for (b, got) in BRANCHES.into_iter().zip(checks) {
        let want = match merge_tree(&c.bare, "main", b) {
            Some((_, paths)) => MergeCheck {
                clean: paths.is_empty(),
                conflicts: paths,
                unrelated: false,
            },
            None => MergeCheck {
                clean: false,
                conflicts: Vec::new(),
                unrelated: true,
            },
        };
        assert_eq!(got, want, "{b}");
    }
    let conflict = c.repo.dry_run(c.id("main"), c.id("conflict")).unwrap();
    assert_eq!(
        conflict.conflicts,
        ["a.txt", "add.txt", "bin.dat", "del.txt"]
    );
    assert!(c.repo.dry_run(c.id("main"), c.id("cross")).unwrap().clean);
    // As git names them: the file main edited moves aside for the folder.
    let tangle = c.repo.dry_run(c.id("main"), c.id("tangle")).unwrap();
    let want = ["del.txt~main", "elsewhere.txt", "moved.txt", "ren.txt"];
    assert_eq!(tangle.conflicts, want);
}

fn person(name: &str) -> Person {
    Person {
        name: name.to_owned(),
        email: format!("{}@example.com", name.to_lowercase()),
    }
}

fn unix_now() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.unwrap().as_secs()
}

#[test]
fn merge_writes_a_two_parent_commit_with_gits_tree() {
    let c = Case::new();
    let (author, committer) = (person("Ada"), person("Svc"));
    let message = "Clean work\n\nThe description.\n\nSvc-Agent: claude";
    for b in ["clean", "internal", "cross", "ff"] {
        let (main, head) = (c.id("main"), c.id(b));
        let before = unix_now();
        let merged = c
            .repo
            .merge(main, head, &author, &committer, message)
            .unwrap();
        let after = unix_now();
        let (want_tree, paths) = merge_tree(&c.bare, "main", b).unwrap();
        assert!(paths.is_empty());
        let sha = merged.to_string();
        assert_eq!(c.id(&format!("{sha}^{{tree}}")), want_tree, "{b}");
        assert_eq!(
            c.git(&["log", "-1", "--format=%P", &sha]),
            format!("{main} {head}")
        );
        assert_eq!(
            c.git(&[
                "log",
                "-1",
                "--format=%an <%ae>|%cn <%ce>|%ad|%cd",
                "--date=raw",
                &sha
            ]),
            format!(
                "Ada <ada@example.com>|Svc <svc@example.com>|{0}|{0}",
                c.git(&["log", "-1", "--format=%at +0000", &sha])
            )
        );
        let at: u64 = c.git(&["log", "-1", "--format=%at", &sha]).parse().unwrap();
        assert!((before..=after).contains(&at));
        let raw = c.git(&["cat-file", "commit", &sha]);
        assert!(raw.ends_with(&format!("\n\n{message}")), "{raw}");
        let commit = c.repo.commit(merged).unwrap();
        assert_eq!(commit.message, message);
        assert_eq!(commit.trailers.agent.as_deref(), Some("claude"));
        // Reachable from a ref, the new objects must be whole.
        git_in(&c.bare, &["update-ref", &format!("refs/merges/{b}"), &sha]);
    }
    let merged = c
        .repo
        .merge(c.id("main"), c.id("ff"), &author, &committer, "x")
        .unwrap();
    let tree = c.id(&format!("{merged}^{{tree}}"));
    assert_eq!(
        tree,
        c.id("ff^{tree}"),
        "a fast-forward merge takes the head's tree"
    );
    assert_eq!(
        c.git(&["cat-file", "-p", &merged.to_string()])
            .lines()
            .last(),
        Some("x")
    );
    git_in(&c.bare, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn names_git_refuses_are_left_out_of_the_signature() {
    let c = Case::new();
    let author = Person {
        name: " Eve <evil>\nInjected: yes\u{7} ".into(),
        email: "eve@example.com>\n<x".into(),
    };
    let merged = c
        .repo
        .merge(c.id("main"), c.id("clean"), &author, &person("Svc"), "m")
        .unwrap();
    let sha = merged.to_string();
    assert_eq!(
        c.git(&["log", "-1", "--format=%an|%ae", &sha]),
        "Eve evilInjected: yes|eve@example.comx"
    );
    git_in(&c.bare, &["update-ref", "refs/merges/eve", &sha]);
    git_in(&c.bare, &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn an_author_whose_name_or_email_has_nothing_git_can_write_is_their_login() {
    let user = crate::store::users::UserRow {
        id: "u_1".into(),
        login: "eve".into(),
        email: Some("<>".into()),
        email_verified: true,
        name: Some(" <\n> ".into()),
        picture_url: None,
        password_hash: None,
        created_at: 0,
        site_admin: false,
        disabled_at: None,
    };
    assert_eq!(
        Person::author(&user),
        Person {
            name: "eve".into(),
            email: "eve@users.noreply".into()
        }
    );
    let user = crate::store::users::UserRow {
        name: Some("Ada <Lovelace>".into()),
        email: Some("ada@example.com\n".into()),
        ..user
    };
    assert_eq!(
        Person::author(&user),
        Person {
            name: "Ada Lovelace".into(),
            email: "ada@example.com".into()
        }
    );
}

#[test]
fn merge_refuses_conflicts_unrelated_and_nothing_to_merge_writing_nothing() {
    let c = Case::new();
    let sig = person("Ada");
    let before = c.loose_objects();
    match c
        .repo
        .merge(c.id("main"), c.id("conflict"), &sig, &sig, "m")
    {
        Err(Error::Conflicts(paths)) => {
            assert_eq!(paths, ["a.txt", "add.txt", "bin.dat", "del.txt"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        c.repo.merge(c.id("main"), c.id("orphan"), &sig, &sig, "m"),
        Err(Error::Unrelated { .. })
    ));
    // Main has them already: a merge would be an empty commit.
    for b in ["merged", "same"] {
        assert!(
            matches!(
                c.repo.merge(c.id("main"), c.id(b), &sig, &sig, "m"),
                Err(Error::NothingToMerge { .. })
            ),
            "{b}"
        );
    }
    let tree = c.id("main^{tree}");
    assert!(matches!(
        c.repo.merge(c.id("main"), tree, &sig, &sig, "m"),
        Err(Error::NotFound(_))
    ));
    assert_eq!(c.loose_objects(), before);
}

fn moved(result: Result<(), Error>) -> bool {
    matches!(result, Err(Error::RefMoved(_)))
}

fn exists(result: Result<(), Error>) -> bool {
    matches!(result, Err(Error::RefExists(_)))
}

#[test]
fn ref_edits_compare_and_swap() {
    let c = Case::new();
    let (x, y) = (c.id("main"), c.id("ff"));
    let name = "refs/heads/new";
    c.repo.create_ref(name, x).unwrap();
    assert_eq!(c.id("new"), x);
    assert!(exists(c.repo.create_ref(name, x)), "the same target");
    assert!(exists(c.repo.create_ref(name, y)));
    assert!(moved(c.repo.update_ref(name, y, x)));
    assert_eq!(c.id("new"), x);
    c.repo.update_ref(name, x, y).unwrap();
    assert_eq!(c.id("new"), y);
    assert!(moved(c.repo.delete_ref(name, x)));
    // git moves it behind our back.
    git_in(&c.bare, &["update-ref", name, &x.to_string()]);
    assert!(moved(c.repo.update_ref(name, y, x)));
    c.repo.delete_ref(name, x).unwrap();
    let gone = git_command(&c.bare)
        .args(["show-ref", "--verify", "--quiet", name])
        .status()
        .unwrap();
    assert!(!gone.success());
    assert!(moved(c.repo.update_ref(name, x, y)), "gone");
    assert!(moved(c.repo.delete_ref(name, x)), "gone");
}

#[test]
fn ref_edits_work_on_packed_refs() {
    let c = Case::new();
    git_in(&c.bare, &["pack-refs", "--all"]);
    let packed = std::fs::read_to_string(c.bare.join("packed-refs")).unwrap();
    assert!(packed.contains("refs/heads/clean"));
    assert!(!c.bare.join("refs/heads/clean").exists());
    let (clean, main) = (c.id("clean"), c.id("main"));
    assert!(moved(c.repo.update_ref("refs/heads/clean", main, main)));
    assert!(exists(c.repo.create_ref("refs/heads/clean", clean)));
    c.repo.update_ref("refs/heads/clean", clean, main).unwrap();
    assert_eq!(c.id("clean"), main);
    assert!(moved(c.repo.delete_ref("refs/heads/ff", main)));
    c.repo.delete_ref("refs/heads/ff", c.id("ff")).unwrap();
    let refs = c.git(&["for-each-ref", "--format=%(refname)"]);
    assert!(!refs.contains("refs/heads/ff"), "{refs}");
    // Packed and unpacked again; `-A` keeps the clean commit, which no ref names now.
    git_in(&c.bare, &["repack", "-Adq"]);
    git_in(&c.bare, &["pack-refs", "--all"]);
    c.repo.update_ref("refs/heads/clean", main, clean).unwrap();
    c.repo.create_ref("refs/heads/ff", main).unwrap();
    assert_eq!((c.id("clean"), c.id("ff")), (clean, main));
    git_in(&c.bare, &["fsck", "--strict"]);
}

#[test]
fn ref_edits_refuse_bad_names_and_missing_objects() {
    let c = Case::new();
    let main = c.id("main");
    for bad in [
        "main",
        "HEAD",
        "refs/heads/a..b",
        "refs/heads/x.lock",
        "refs/heads/",
        "",
    ] {
        assert!(
            matches!(c.repo.create_ref(bad, main), Err(Error::BadRefName(_))),
            "{bad:?}"
        );
    }
    let absent = oid("0123456789abcdef0123456789abcdef01234567");
    assert!(matches!(
        c.repo.create_ref("refs/heads/x", absent),
        Err(Error::NotFound(_))
    ));
    assert!(matches!(
        c.repo.update_ref("refs/heads/main", main, absent),
        Err(Error::NotFound(_))
    ));
    assert_eq!(c.id("main"), main);
}

/// The cost of a dry run per branch on a repository of a few thousand files (debug
/// build): printed, not asserted. Run with `--nocapture` to see it.
#[test]
fn dry_run_cost_on_thousands_of_files() {
    let mut f = Fixture::new();
    for d in 0..60 {
        for i in 0..50 {
            f.write(
                &format!("d{d:02}/s/f{i:02}.txt"),
                lines(&[(1, &format!("{d} {i}"))]),
            );
        }
    }
    let base = f.commit("3,000 files");
    f.git(&["checkout", "-q", "-b", "topic"]);
    for d in 0..10 {
        f.write(
            &format!("d{d:02}/s/f00.txt"),
            lines(&[(1, &format!("{d} 0")), (20, "topic")]),
        );
    }
    f.commit("Topic edits");
    f.git(&["checkout", "-q", "-b", "clash", &base]);
    f.write("d00/s/f00.txt", lines(&[(1, "clash")]));
    f.commit("Clash");
    f.git(&["checkout", "-q", "main"]);
    for d in 0..10 {
        f.write(&format!("d{d:02}/s/f00.txt"), lines(&[(1, "main")]));
        f.write(&format!("d{:02}/s/f01.txt", d + 30), "main\n");
    }
    f.commit("Main edits");
    let (bare, repo) = f.bare();
    let main = oid(&git_text(&bare, &["rev-parse", "main"]));
    for b in ["topic", "clash"] {
        let head = oid(&git_text(&bare, &["rev-parse", b]));
        let (_, paths) = merge_tree(&bare, "main", b).unwrap();
        let start = std::time::Instant::now();
        let got = repo.dry_run(main, head).unwrap();
        let took = start.elapsed();
        assert_eq!(got.conflicts, paths, "{b}");
        eprintln!(
            "dry run of {b} over 3,000 files: {took:?} (clean: {})",
            got.clean
        );
    }
}

/// `git merge-tree` with exact renames only (`find-renames=100%`) or git's default
/// similarity detection: the conflicted paths, or None when clean.
fn merge_tree_renames(bare: &Path, exact: bool, main: &str, head: &str) -> Vec<String> {
    let mut cmd = git_command(bare);
    cmd.arg("merge-tree");
    if exact {
        cmd.args(["-X", "find-renames=100%"]);
    }
    let out = cmd
        .args(["--write-tree", "--name-only", main, head])
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let paths = text.lines().skip(1).take_while(|l| !l.is_empty());
    paths.map(str::to_owned).collect()
}

/// A file the branch renames and edits while main edits it elsewhere: without
/// similarity detection that is a delete and an add, so main's edit conflicts with the
/// delete (as git with `find-renames=100%`), where git's default would follow the
/// rename. A rename without an edit is still followed, and so is a rename on main.
#[test]
fn renames_are_exact_only() {
    let mut f = Fixture::new();
    f.write("doc.txt", lines(&[]));
    f.write("keep.txt", lines(&[(1, "keep")]));
    let base = f.commit("Base");
    f.git(&["checkout", "-q", "-b", "edited", &base]);
    f.git(&["mv", "doc.txt", "moved.txt"]);
    f.write("moved.txt", lines(&[(20, "edited in the move")]));
    f.commit("Move and edit");
    f.git(&["checkout", "-q", "-b", "exact", &base]);
    f.git(&["mv", "doc.txt", "exact.txt"]);
    f.commit("Move");
    f.git(&["checkout", "-q", "-b", "theirs-edit", &base]);
    f.write("keep.txt", lines(&[(1, "keep"), (20, "branch")]));
    f.commit("Edit keep");
    f.git(&["checkout", "-q", "main"]);
    f.write("doc.txt", lines(&[(1, "main edit")]));
    f.git(&["mv", "keep.txt", "kept.txt"]);
    f.commit("Main edits doc and moves keep");
    let (bare, repo) = f.bare();
    let id = |rev: &str| oid(&git_text(&bare, &["rev-parse", rev]));

    assert!(merge_tree_renames(&bare, false, "main", "edited").is_empty());
    let want = merge_tree_renames(&bare, true, "main", "edited");
    assert_eq!(want, ["doc.txt"]);
    let check = repo.dry_run(id("main"), id("edited")).unwrap();
    assert_eq!(check.conflicts, want);
    let sig = person("Ada");
    match repo.merge(id("main"), id("edited"), &sig, &sig, "m") {
        Err(Error::Conflicts(paths)) => assert_eq!(paths, want),
        other => panic!("{other:?}"),
    }

    // Exact renames on either side take the other side's edit along.
    for b in ["exact", "theirs-edit"] {
        assert!(repo.dry_run(id("main"), id(b)).unwrap().clean, "{b}");
        let merged = repo.merge(id("main"), id(b), &sig, &sig, "m").unwrap();
        let (tree, paths) = merge_tree(&bare, "main", b).unwrap();
        assert!(paths.is_empty());
        assert_eq!(id(&format!("{merged}^{{tree}}")), tree, "{b}");
    }
    let merged = repo
        .merge(id("main"), id("exact"), &sig, &sig, "m")
        .unwrap();
    let text = git_text(&bare, &["show", &format!("{merged}:exact.txt")]);
    assert!(text.starts_with("main edit\n"), "{text}");
}

/// A head whose merge base is main merges to exactly its own tree, whatever it did
/// (renames with edits, deletes, adds), and the facts need no tree merge.
#[test]
fn a_head_based_on_main_merges_to_its_own_tree() {
    let mut f = Fixture::new();
    f.write("doc.txt", lines(&[]));
    f.write("gone.txt", "gone\n");
    f.commit("Base");
    f.git(&["checkout", "-q", "-b", "ahead"]);
    f.git(&["mv", "doc.txt", "moved.txt"]);
    f.write("moved.txt", lines(&[(3, "edited")]));
    f.remove("gone.txt");
    f.commit("Move, edit, delete");
    f.write("new/file.txt", "new\n");
    f.commit("Add");
    f.git(&["checkout", "-q", "main"]);
    let (bare, repo) = f.bare();
    let id = |rev: &str| oid(&git_text(&bare, &["rev-parse", rev]));
    let (main, head) = (id("main"), id("ahead"));
    let facts = repo.branch_facts(main, head).unwrap();
    assert_eq!(
        facts,
        super::BranchFacts {
            base: Some(main),
            ahead: 2,
            behind: 0,
            check: MergeCheck::CLEAN,
        }
    );
    let sig = person("Ada");
    let merged = repo.merge(main, head, &sig, &sig, "m").unwrap();
    assert_eq!(id(&format!("{merged}^{{tree}}")), id("ahead^{tree}"));
    assert_eq!(
        git_text(&bare, &["log", "-1", "--format=%P", &merged.to_string()]),
        format!("{main} {head}")
    );
    git_in(
        &bare,
        &["update-ref", "refs/heads/merged", &merged.to_string()],
    );
    git_in(&bare, &["fsck", "--strict", "--no-dangling"]);
}

/// The facts in one call agree with each part asked for alone, on every case.
#[test]
fn branch_facts_agree_with_their_parts() {
    let c = Case::new();
    let main = c.id("main");
    for b in BRANCHES {
        let head = c.id(b);
        let facts = c.repo.branch_facts(main, head).unwrap();
        assert_eq!(facts.base, c.repo.merge_base(main, head).unwrap(), "{b}");
        let (ahead, behind) = c.repo.ahead_behind(main, head).unwrap();
        assert_eq!((facts.ahead, facts.behind), (ahead, behind), "{b}");
        assert_eq!(facts.check, c.repo.dry_run(main, head).unwrap(), "{b}");
    }
}
