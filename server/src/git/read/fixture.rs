//! Test repositories built with the `git` CLI, and `git`'s own answers to compare with.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Repo;

/// A work tree whose commits get pinned names and dates, cloned bare for reading.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub work: PathBuf,
    clock: i64,
}

/// `git` with pinned identity and configuration, none of the user's.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Ada Author")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Cy Committer")
        .env("GIT_COMMITTER_EMAIL", "cy@example.com")
        .env("GIT_LITERAL_PATHSPECS", "1")
        .env("LC_ALL", "C")
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "core.quotePath=false",
        ]);
    cmd
}

/// Runs `git` in `dir` and answers its standard output; panics when it fails.
pub fn git_in(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = git_command(dir).args(args).output().expect("run git");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The same, as text without the final newline.
pub fn git_text(dir: &Path, args: &[&str]) -> String {
    let out = String::from_utf8(git_in(dir, args)).expect("utf-8");
    out.trim_end_matches('\n').to_owned()
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let work = dir.path().join("work");
        std::fs::create_dir(&work).expect("mkdir");
        git_in(&work, &["init", "-q"]);
        Fixture {
            dir,
            work,
            clock: 1_700_000_000,
        }
    }

    pub fn git(&self, args: &[&str]) -> String {
        git_text(&self.work, args)
    }

    /// Runs `git` with the next pinned date, for commits and merges.
    pub fn git_dated(&mut self, args: &[&str]) -> String {
        self.clock += 3_600;
        // An offset other than UTC checks that dates travel as the same instant.
        let date = format!("@{} +0200", self.clock);
        let out = git_command(&self.work)
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .args(args)
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.git(&["rev-parse", "HEAD"])
    }

    pub fn write(&self, path: &str, bytes: impl AsRef<[u8]>) {
        let file = self.work.join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(file, bytes).expect("write");
    }

    pub fn remove(&self, path: &str) {
        let file = self.work.join(path);
        if file.is_dir() {
            std::fs::remove_dir_all(file).expect("rm -r");
        } else {
            std::fs::remove_file(file).expect("rm");
        }
    }

    /// Commits everything in the work tree; answers the new commit's sha.
    pub fn commit(&mut self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git_dated(&["commit", "-q", "--allow-empty", "-m", message])
    }

    /// A bare clone (packed, as pushes arrive) opened with [`Repo::open`].
    pub fn bare(&self) -> (PathBuf, Repo) {
        let bare = self.dir.path().join("bare.git");
        if !bare.exists() {
            // `--no-local` packs the objects, as a push would.
            git_in(
                self.dir.path(),
                &["clone", "-q", "--bare", "--no-local", "work", "bare.git"],
            );
        }
        let repo = Repo::open(&bare).expect("open bare repo");
        (bare, repo)
    }
}

/// The repository most tests read. Its history, oldest first (main unless told):
///
/// 1. root: files at several depths, a symlink, a binary file, `thing` (a file), `many/`
/// 2. edit `src/main.rs`
/// 3. an empty commit
/// 4. (`feature`) edit `src/lib/util.rs`, add `src/lib/new.rs`
/// 5. (`feature`) edit `docs/guide.md`
/// 6. edit `README.md`
/// 7. merge `feature` (`--no-ff`), with trailers
/// 8. make `scripts/run.sh` executable (mode only)
/// 9. rename `docs/guide.md` to `docs/manual.md` (exact)
/// 10. delete `bin.dat`
/// 11. add `bin.dat` back, same bytes
/// 12. `thing` becomes a folder
/// 13. edit `a/b/c/d.txt` and a name with spaces, with a trailer among others
/// 14. add a submodule entry `vendor/sub`
///
/// Branch `other` forks at 6 with one commit of its own.
pub fn standard() -> Fixture {
    let mut f = Fixture::new();
    f.write("README.md", "# Project\n");
    f.write("src/main.rs", "fn main() {}\n");
    f.write("src/lib/util.rs", "pub fn util() {}\n");
    f.write("docs/guide.md", "Guide\n");
    f.write("docs/spaced name.md", "spaces\n");
    f.write("docs/ünïcode.md", "unicode\n");
    f.write("bin.dat", b"\x00\x01\x02binary\xff\xfe\x00".as_slice());
    f.write("scripts/run.sh", "#!/bin/sh\necho run\n");
    f.write("thing", "a file for now\n");
    f.write("a/b/c/d.txt", "deep\n");
    f.write("a/top.txt", "top\n");
    for i in 0..25 {
        f.write(&format!("many/file-{i:02}.txt"), format!("{i}\n"));
    }
    for i in 0..5 {
        f.write(&format!("many/dir-{i}/x.txt"), format!("{i}\n"));
    }
    std::os::unix::fs::symlink("README.md", f.work.join("link")).expect("symlink");
    f.commit("Initial import\n\nWith a body.");

    f.write("src/main.rs", "fn main() { println!(\"hi\"); }\n");
    f.commit("Say hi");
    f.commit("Nothing at all");

    f.git(&["checkout", "-q", "-b", "feature"]);
    f.write("src/lib/util.rs", "pub fn util() -> u8 { 1 }\n");
    f.write("src/lib/new.rs", "pub fn new() {}\n");
    f.commit("Feature: util and new");
    f.write("docs/guide.md", "Guide, improved\n");
    f.commit("Feature: guide");

    f.git(&["checkout", "-q", "main"]);
    f.write("README.md", "# Project\n\nNow with words.\n");
    f.commit("Readme words");

    f.git(&["branch", "other"]);
    f.git_dated(&[
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "Merge feature",
        "-m",
        "Svc-Agent: claude\nSvc-Worktree: wt-1\nSvc-Machine: box",
    ]);

    f.git(&["update-index", "--chmod=+x", "scripts/run.sh"]);
    f.git_dated(&["commit", "-q", "-m", "Make run.sh executable"]);
    std::fs::set_permissions(
        f.work.join("scripts/run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");

    f.git(&["mv", "docs/guide.md", "docs/manual.md"]);
    f.commit("Rename the guide");

    f.remove("bin.dat");
    f.commit("Drop bin.dat");
    f.write("bin.dat", b"\x00\x01\x02binary\xff\xfe\x00".as_slice());
    f.commit("Bring bin.dat back");

    f.remove("thing");
    f.write("thing/inner.txt", "now a folder\n");
    f.commit("thing is a folder");

    f.write("a/b/c/d.txt", "deeper\n");
    f.write("docs/spaced name.md", "more spaces\n");
    f.commit("Deep edit\n\nBody line.\n\nSvc-Agent: codex\nSigned-off-by: Ada <ada@example.com>");

    // Last: `git add -A` would take the entry out again, having no checkout of it.
    let sub = f.git(&["rev-parse", "HEAD~1"]);
    f.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{sub},vendor/sub"),
    ]);
    f.git_dated(&["commit", "-q", "-m", "Add a submodule"]);

    f.git(&["checkout", "-q", "other"]);
    f.write("other.txt", "other\n");
    f.commit("Other work");
    f.git(&["checkout", "-q", "main"]);
    f
}
