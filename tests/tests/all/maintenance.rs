//! Repository maintenance with real git: pushes and merges leave loose objects and packs;
//! maintenance (in the background, or `svc-server maintain`) packs them under a
//! multi-pack index with a bitmap, writes a commit-graph with Bloom filters, and leaves
//! a repository that clones, fetches and fscks, even when it is killed mid-way.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::Value;
use svc_server::git::maintain;
use svc_tests::{Cloned, TestApp, expect_json, workspace_bin};

/// `ann/mono` with repo `app`: main from a first push, then `branches` branches pushed
/// one small push each (git unpacks them as loose objects) and merged by the API (merges
/// write loose objects too). Answers the repo's directory and the most loose objects
/// seen right after a merge (the server maintains the repo once it is quiet).
async fn busy(branches: usize) -> (Cloned, PathBuf, u64) {
    let c = Cloned::new("mono", "app").await;
    c.git
        .commit(&c.work, "first", &[(MARKER, b"hello\n".as_slice())]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    let dir = repo_dir(&c.app);
    let mut most_loose = 0;
    for i in 0..branches {
        let branch = format!("b{i}");
        c.git
            .ok(&c.work, &["checkout", "-q", "-b", &branch, "main"]);
        let path = format!("dir{i}/file.txt");
        let body = format!("branch {i}\n");
        c.git
            .commit(&c.work, &branch, &[(path.as_str(), body.as_bytes())]);
        c.git.ok(&c.work, &["push", "-q", "origin", &branch]);
        let r = c
            .app
            .as_user(
                Method::POST,
                &format!("/v1/monorepos/ann/mono/repos/app/branches/{branch}/merge"),
                &c.token,
            )
            .send()
            .await
            .unwrap();
        let _: Value = expect_json(r, StatusCode::OK).await;
        most_loose = most_loose.max(loose_objects(&dir));
    }
    (c, dir, most_loose)
}

/// A file only the repo `app` has.
const MARKER: &str = "app-marker.txt";

/// The repo `app`'s bare repository (repos are named by id on disk).
fn repo_dir(app: &TestApp) -> PathBuf {
    let repos = app.data_dir.path().join("repos");
    std::fs::read_dir(&repos)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            git(p, &["cat-file", "-e", &format!("main:{MARKER}")])
                .status
                .success()
        })
        .expect("the app repo")
}

/// git over a bare repo the server owns, with no configuration of this machine's.
fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .arg("--git-dir")
        .arg(dir)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git runs")
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    let out = git(dir, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `git count-objects -v`'s loose object count (`count:`).
fn loose_objects(dir: &Path) -> u64 {
    let out = git_ok(dir, &["count-objects", "-v"]);
    out.lines()
        .find_map(|l| l.strip_prefix("count: "))
        .and_then(|n| n.parse().ok())
        .expect("count-objects -v says count")
}

/// `svc-server maintain [repo]` over the test server's data dir and database.
fn maintain_command(app: &TestApp, repo: Option<&str>) -> Command {
    let mut cmd = Command::new(workspace_bin("svc-server"));
    cmd.arg("maintain")
        .args(repo)
        .arg("--data-dir")
        .arg(app.data_dir.path())
        .args(["--database-url", &app.config.database_url])
        .env_remove("SVC_CONFIG")
        .env_remove("SVC_CRASH_AT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn maintain(app: &TestApp, repo: Option<&str>) -> String {
    let out = maintain_command(app, repo).output().unwrap();
    assert!(
        out.status.success(),
        "svc-server maintain: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The repository is maintained: a multi-pack index covering every
/// pack with its bitmap, a commit-graph with Bloom filters that git verifies; and git
/// finds nothing wrong with it.
fn assert_maintained(dir: &Path) {
    let survey = maintain::survey(dir, std::time::SystemTime::now()).unwrap();
    assert_eq!(survey.midx_packs, Some(survey.packs), "{survey:?}");
    let pack_dir = dir.join("objects/pack");
    let names: Vec<String> = std::fs::read_dir(&pack_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n == "multi-pack-index"), "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("multi-pack-index-") && n.ends_with(".bitmap")),
        "a multi-pack bitmap: {names:?}"
    );
    git_ok(dir, &["multi-pack-index", "verify"]);
    git_ok(dir, &["commit-graph", "verify"]);
    let chain_dir = dir.join("objects/info/commit-graphs");
    let chain = std::fs::read_to_string(chain_dir.join("commit-graph-chain")).unwrap();
    for layer in chain.lines() {
        let graph = std::fs::read(chain_dir.join(format!("graph-{layer}.graph"))).unwrap();
        assert!(
            maintain::graph_has_bloom(&graph),
            "layer {layer} has BIDX and BDAT"
        );
    }
    git_ok(dir, &["fsck", "--strict", "--no-progress"]);
}

/// Clones and fetches still work, and bring main's whole history.
fn assert_serves(c: &Cloned, commits: usize) {
    let url = c.git.ok(&c.work, &["remote", "get-url", "origin"]);
    let url = url.trim();
    let name = format!("clone-{}", rand_suffix());
    c.git.ok(c.git.home.path(), &["clone", "-q", url, &name]);
    let clone = c.git.path(&name);
    let count = c.git.ok(&clone, &["rev-list", "--count", "HEAD"]);
    assert_eq!(count.trim(), commits.to_string());
    c.git.ok(&clone, &["fsck", "--strict", "--no-progress"]);
    c.git.ok(&c.work, &["fetch", "-q", "origin"]);
    let main = c.git.ok(&c.work, &["rev-parse", "origin/main"]);
    assert_eq!(c.git.ok(&clone, &["rev-parse", "HEAD"]), main);
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// main's commits after `busy(n)`: the first, then per branch its commit and the merge.
fn commits(branches: usize) -> usize {
    1 + 2 * branches
}

#[tokio::test]
async fn maintain_packs_pushes_and_merges_under_an_index_with_bitmap_and_graph() {
    let (c, dir, most_loose) = busy(8).await;
    assert!(most_loose > 0, "pushes and merges leave loose objects");
    let said = maintain(&c.app, Some("ann/mono/app"));
    let line = said.lines().next().unwrap();
    assert!(line.starts_with("ann/mono/app: "), "{said}");
    assert!(line.contains("full repack"), "{said}");
    assert!(line.contains("commit-graph rewritten"), "{said}");
    assert_eq!(said.lines().count(), 1, "only the named repo: {said}");
    assert_eq!(loose_objects(&dir), 0);
    assert_maintained(&dir);
    assert_serves(&c, commits(8));
    // More work after it, and maintenance again (the heuristics: nothing but what the
    // new objects need).
    c.git
        .ok(&c.work, &["checkout", "-q", "-b", "later", "origin/main"]);
    c.git
        .commit(&c.work, "later", &[("later.txt", b"later\n".as_slice())]);
    c.git.ok(&c.work, &["push", "-q", "origin", "later"]);
    assert!(loose_objects(&dir) > 0);
    maintain(&c.app, Some("ann/mono/app"));
    assert_eq!(loose_objects(&dir), 0);
    assert_maintained(&dir);
    assert_serves(&c, commits(8));
}

#[tokio::test]
async fn maintain_without_a_repo_does_every_repo_and_refuses_unknown_ones() {
    let (c, dir, _) = busy(2).await;
    let said = maintain(&c.app, None);
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 2, "the meta repo and app: {said}");
    assert!(lines.iter().all(|l| l.starts_with("ann/mono/")), "{said}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("ann/mono/app: ") && l.contains("full repack")),
        "{said}"
    );
    assert_eq!(loose_objects(&dir), 0);
    assert_maintained(&dir);
    let out = maintain_command(&c.app, Some("ann/mono/nope"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no repo nope in ann/mono"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn the_server_maintains_a_repo_after_pushes_and_merges() {
    let (c, dir, _) = busy(6).await;
    // The worker runs once the repo has been quiet a moment; wait for it (a bound on
    // how long, not a speed: the debounce is seconds). Maintained means nothing is left
    // for the heuristic to do. A few loose objects may stay (as after `git gc --auto`):
    // when the machine is slow, the worker runs between merges, and the last merges'
    // objects are too few for a repack of their own.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let now = std::time::SystemTime::now();
        let s = maintain::survey(&dir, now).unwrap();
        let graph = s.graph.as_ref().is_some_and(|g| g.split && g.bloom);
        if s.midx_packs.is_some() && s.bitmap && graph && maintain::plan(&s, now).is_empty() {
            assert!(s.loose <= maintain::LOOSE_LIMIT, "{s:?}");
            break;
        }
        assert!(Instant::now() < deadline, "never maintained: {s:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_maintained(&dir);
    assert_serves(&c, commits(6));
}

#[tokio::test]
async fn a_maintenance_killed_mid_repack_leaves_a_repo_that_clones_and_fscks() {
    let (c, dir, _) = busy(4).await;
    let out = maintain_command(&c.app, Some("ann/mono/app"))
        .env("SVC_CRASH_AT", "maintain.repack")
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "killed at the crash point");
    // Whatever git had written when it died, and what a git killed later leaves: locks
    // and a temporary pack.
    for leftover in [
        "objects/pack/multi-pack-index.lock",
        "objects/pack/tmp_pack_killed",
        "objects/info/commit-graphs/commit-graph-chain.lock",
    ] {
        let path = dir.join(leftover);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"partial").unwrap();
    }
    git_ok(&dir, &["fsck", "--strict", "--no-progress"]);
    assert_serves(&c, commits(4));
    // The next maintenance clears what was left and finishes the job.
    let said = maintain(&c.app, Some("ann/mono/app"));
    assert!(said.contains("full repack"), "{said}");
    assert!(!dir.join("objects/pack/multi-pack-index.lock").exists());
    assert!(!dir.join("objects/pack/tmp_pack_killed").exists());
    assert_eq!(loose_objects(&dir), 0);
    assert_maintained(&dir);
    assert_serves(&c, commits(4));
}
