//! `svc-bench door-fixed`: the fixed cost of small requests on a small repository (a root
//! of 561 entries, 10 branches, 10 annotated tags), against git on the same bare
//! directory in the same run, p50 of `--runs` after a warm-up:
//!
//! - `git ls-remote <door URL>` (protocol v2, then v0) against `git ls-remote <bare dir>`,
//!   and the door's `GET info/refs` alone;
//! - getTree of the root against `git ls-tree HEAD`;
//! - getFile of one file against `git cat-file blob HEAD:<file>`.

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::bail;

use super::common::{
    Api, Server, bare_dir_with, git, git_door, median, print_load, print_machine, run, timed,
    work_dir,
};

/// Entries of the root: the size of the tree the issue measured.
const ROOT_ENTRIES: usize = 561;

pub struct Options {
    pub runs: usize,
    pub keep: bool,
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn ratio(ours: Duration, theirs: Duration) -> String {
    format!("{:.2}×", ours.as_secs_f64() / theirs.as_secs_f64())
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("door-fixed")?;
    let data = dir.join("data");
    let server = Server::start(&data, None, &dir.join("server.log")).await?;
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "small").await?;

    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    run(git(&work).args(["init", "-q"]))?;
    for i in 0..ROOT_ENTRIES - 1 {
        std::fs::write(
            work.join(format!("file{i:03}.txt")),
            format!("line {i}\n").repeat(20),
        )?;
    }
    std::fs::create_dir_all(work.join("src"))?;
    std::fs::write(work.join("src/lib.rs"), "pub fn f() {}\n")?;
    run(git(&work).args(["add", "-A"]))?;
    run(git(&work).args(["commit", "-q", "-m", "files"]))?;
    let sha = run(git(&work).args(["rev-parse", "HEAD"]))?;
    for i in 0..10 {
        run(git(&work).args(["branch", &format!("topic-{i}")]))?;
        run(git(&work).args(["tag", "-a", "-m", "release", &format!("v1.{i}")]))?;
    }
    run(git_door(&work, &api.token).args(["push", "-q", &url, "--all"]))?;
    run(git_door(&work, &api.token).args(["push", "-q", &url, "--tags"]))?;
    let bare = bare_dir_with(&data, &sha)?;
    println!(
        "repository: {ROOT_ENTRIES} entries at the root, 11 branches, 10 annotated tags; {} runs each",
        opts.runs
    );
    print_load();

    let ls_remote = |door: bool, version: &str| -> Command {
        let mut cmd = match door {
            true => git_door(&work, &api.token),
            false => git(&work),
        };
        cmd.args(["-c", &format!("protocol.version={version}"), "ls-remote"]);
        match door {
            true => cmd.arg(&url),
            false => cmd.arg(&bare),
        };
        cmd
    };
    for version in ["2", "0"] {
        let (door, disk) = alternate(
            opts.runs,
            || timed(&mut ls_remote(true, version)),
            || timed(&mut ls_remote(false, version)),
        )?;
        println!(
            "ls-remote v{version}: door p50 {}, `git ls-remote <bare dir>` p50 {} ({})",
            ms(door),
            ms(disk),
            ratio(door, disk)
        );
    }

    // The door's own share: `GET info/refs` alone, as a v0 client sends it.
    let client = reqwest::Client::new();
    let mut served = Vec::new();
    for run in 0..=opts.runs {
        let start = Instant::now();
        let r = client
            .get(format!("{url}/info/refs?service=git-upload-pack"))
            .bearer_auth(&api.token)
            .send()
            .await?;
        if !r.status().is_success() {
            bail!("info/refs: {}", r.status());
        }
        r.bytes().await?;
        if run > 0 {
            served.push(start.elapsed());
        }
    }
    println!("GET info/refs (v0 upload-pack): p50 {}", ms(median(served)));

    let get = |path: String| {
        let request = client
            .get(format!(
                "{}/v1/monorepos/{full}/repos/small/{path}",
                server.base
            ))
            .bearer_auth(&api.token);
        async move {
            let start = Instant::now();
            let r = request.send().await?;
            if !r.status().is_success() {
                bail!("{path}: {}", r.status());
            }
            r.bytes().await?;
            Ok::<_, anyhow::Error>(start.elapsed())
        }
    };
    let git_in_bare = |args: &[&str]| {
        let mut cmd = git(&bare);
        cmd.args(args);
        cmd
    };
    for (name, path, args) in [
        (
            "getTree of the root",
            "tree".to_owned(),
            vec!["ls-tree", "HEAD"],
        ),
        (
            "getFile",
            "file?path=file007.txt".to_owned(),
            vec!["cat-file", "blob", "HEAD:file007.txt"],
        ),
    ] {
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for run in 0..=opts.runs {
            let a = get(path.clone()).await?;
            let b = timed(&mut git_in_bare(&args))?;
            if run > 0 {
                ours.push(a);
                theirs.push(b);
            }
        }
        let (ours, theirs) = (median(ours), median(theirs));
        println!(
            "{name}: p50 {}, `git {}` p50 {} ({})",
            ms(ours),
            args.join(" "),
            ms(theirs),
            ratio(ours, theirs)
        );
    }
    server.stop();
    if !opts.keep {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// p50 of `runs` of each, alternating, after one warm-up of each.
fn alternate(
    runs: usize,
    mut a: impl FnMut() -> anyhow::Result<Duration>,
    mut b: impl FnMut() -> anyhow::Result<Duration>,
) -> anyhow::Result<(Duration, Duration)> {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for run in 0..=runs {
        let (x, y) = (a()?, b()?);
        if run > 0 {
            xs.push(x);
            ys.push(y);
        }
    }
    Ok((median(xs), median(ys)))
}
