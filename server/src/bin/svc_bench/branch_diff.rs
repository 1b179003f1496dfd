//! `svc-bench branch-diff`: the change of `diff-engine` (5,000 edited text files) pushed
//! through the git door as `main` and branch `topic`, then in each run:
//!
//! - (a) `git diff --patience main...<head>` in a door clone, its output to a sink (and
//!   `git diff --patience <merge base> <head>` when the merge base is not main);
//! - (b) `GET {r}/branches/topic/diff?patches=1&stream=1` computed: wall time, and the
//!   time to the first byte of the body;
//! - (c) the same request again, replayed from the kept answer;
//! - (d) `?patches=1` as JSON (1,000 files at most).
//!
//! The server keeps a finished stream by (main, head), so each run first pushes a new
//! head: an empty commit on the last one (the same tree, so the same diff), and waits for
//! its background facts so they do not share the CPU with the timed requests. One
//! untimed run first; p50 and min of `--runs` runs are reported.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use reqwest::header::{CACHE_CONTROL, ETAG};
use svc_protocol::branch::{Branch, BranchDiff, BranchDiffLine};

use super::branches::{Client, ms};
use super::common::{
    Api, Server, git, git_door, median, print_load, print_machine, run, secs, timed, work_dir,
};
use super::diff_engine::{generate, numstat};

/// How long the facts of a new head may take.
const FACTS_WAIT: Duration = Duration::from_secs(300);
/// Files the JSON form lists at most.
const JSON_FILES: usize = 1_000;

pub struct Options {
    pub files: usize,
    pub runs: usize,
    pub keep: bool,
}

/// The timings of one run.
#[derive(Default)]
struct Run {
    facts: Duration,
    git: Duration,
    git_base: Option<Duration>,
    stream: Duration,
    first_byte: Duration,
    headers: Duration,
    replay: Duration,
    json: Duration,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("branch-diff")?;
    let generated = dir.join("gen.git");
    let start = Instant::now();
    generate(&generated, opts.files)?;
    println!(
        "generated with git fast-import + repack in {}: {} files edited",
        secs(start.elapsed()),
        opts.files
    );

    let server = Server::start(&dir.join("data"), None, &dir.join("server.log")).await?;
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "diff").await?;
    for (from, to) in [("main", "main"), ("work", "topic")] {
        let took = timed(git_door(&generated, &api.token).args([
            "push",
            "-q",
            &url,
            &format!("{from}:refs/heads/{to}"),
        ]))?;
        println!("push of {to} through the door: {}", secs(took));
    }
    let clone = dir.join("clone");
    run(git_door(&dir, &api.token)
        .args(["clone", "-q", &url])
        .arg(&clone))?;
    let main = run(git(&clone).args(["rev-parse", "origin/main"]))?;
    let mut head = run(git(&clone).args(["rev-parse", "origin/topic"]))?;
    let merge_base = run(git(&clone).args(["merge-base", &main, &head]))?;
    let (added, deleted) = numstat(&clone, &merge_base, &head)?;
    println!(
        "main {main:.12}, topic {head:.12}, merge base {}; git: {} files, +{added} -{deleted}",
        if merge_base == main {
            "= main"
        } else {
            &merge_base
        },
        opts.files
    );

    let client = Client::new(&server, &api.token);
    let r = format!("/v1/monorepos/{full}/repos/diff");
    let want = Want {
        files: opts.files,
        added,
        deleted,
    };
    print_load();
    let mut runs = Vec::new();
    for i in 0..=opts.runs {
        head = new_head(&clone, &api.token, &url, &head, i)?;
        let mut got = Run {
            facts: wait_fresh(&client, &r, &head).await?,
            ..Run::default()
        };
        got.git = git_sink(&clone, &[&format!("{main}...{head}")])?;
        if merge_base != main {
            got.git_base = Some(git_sink(&clone, &[&merge_base, &head])?);
        }
        let stream = format!("{r}/branches/topic/diff?patches=1&stream=1");
        let (computed, body) = get_stream(&client, &stream, false).await?;
        want.check_stream(&body, &main, &head)?;
        got.stream = computed.total;
        got.first_byte = computed.first_byte;
        got.headers = computed.headers;
        let (replayed, again) = get_stream(&client, &stream, true).await?;
        if again != body {
            bail!("the replayed stream differs from the computed one");
        }
        got.replay = replayed.total;
        let start = Instant::now();
        let json = client
            .send(&format!("{r}/branches/topic/diff?patches=1"))
            .await?
            .bytes()
            .await?;
        got.json = start.elapsed();
        want.check_json(&serde_json::from_slice(&json)?)?;
        println!(
            "{} {head:.12}: facts {}, git {}, stream {} (first byte {}, headers {}, {} bytes), \
             replay {}, JSON {} ({} bytes)",
            if i == 0 { "warm-up" } else { "run" },
            secs(got.facts),
            secs(got.git),
            secs(got.stream),
            ms(got.first_byte),
            ms(got.headers),
            body.len(),
            secs(got.replay),
            secs(got.json),
            json.len()
        );
        if i > 0 {
            runs.push(got);
        }
    }
    print_load();
    report(&runs);
    server.stop();
    if opts.keep {
        println!("kept {} (clone URL {url})", dir.display());
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

fn report(runs: &[Run]) {
    let line = |label: &str, pick: &dyn Fn(&Run) -> Duration| {
        let times: Vec<Duration> = runs.iter().map(pick).collect();
        let min = times.iter().min().copied().unwrap_or_default();
        println!(
            "{label}: p50 {}, min {}",
            secs(median(times.clone())),
            secs(min)
        );
        median(times)
    };
    println!("{} runs:", runs.len());
    let git = line("(a) git diff --patience main...head", &|r| r.git);
    if runs.iter().any(|r| r.git_base.is_some()) {
        line("(a) git diff --patience <merge base> head", &|r| {
            r.git_base.unwrap_or_default()
        });
    }
    let stream = line("(b) stream, computed", &|r| r.stream);
    let first = line("(b) stream, first byte of the body", &|r| r.first_byte);
    line("(b) stream, response headers", &|r| r.headers);
    line("(c) stream, replayed", &|r| r.replay);
    line("(d) JSON ?patches=1", &|r| r.json);
    line("facts of a new head after its push", &|r| r.facts);
    let ratio = stream.as_secs_f64() / git.as_secs_f64();
    println!(
        "computed stream / git (p50): {ratio:.2} (goal <= 1.3: {})",
        if ratio <= 1.3 { "met" } else { "MISSED" }
    );
    println!(
        "first byte p50 {} (goal < 100 ms: {})",
        ms(first),
        if first < Duration::from_millis(100) {
            "met"
        } else {
            "MISSED"
        }
    );
}

/// Makes an empty commit on `head` in the clone and pushes it as `topic`.
fn new_head(clone: &Path, token: &str, url: &str, head: &str, i: usize) -> anyhow::Result<String> {
    let message = format!("bench run {i}");
    let sha = run(git(clone).args([
        "commit-tree",
        &format!("{head}^{{tree}}"),
        "-p",
        head,
        "-m",
        &message,
    ]))?;
    run(git_door(clone, token).args(["push", "-q", url, &format!("{sha}:refs/heads/topic")]))?;
    Ok(sha)
}

/// Waits until `topic` is at `head` with fresh facts; answers how long it took.
async fn wait_fresh(client: &Client, r: &str, head: &str) -> anyhow::Result<Duration> {
    let start = Instant::now();
    loop {
        let b: Branch = client.json(&format!("{r}/branches/topic")).await?;
        if b.head == head && !b.stale {
            return Ok(start.elapsed());
        }
        if start.elapsed() > FACTS_WAIT {
            bail!(
                "the facts of {head} were not computed in {}",
                secs(FACTS_WAIT)
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `git diff --patience` of `ends` in `dir`, its output read into a sink; answers its
/// wall time.
fn git_sink(dir: &Path, ends: &[&str]) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let mut child = git(dir)
        .args(["diff", "--patience", "--no-color"])
        .args(ends)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut out = child.stdout.take().context("no stdout for git diff")?;
    std::io::copy(&mut out, &mut std::io::sink())?;
    if !child.wait()?.success() {
        bail!("git diff failed");
    }
    Ok(start.elapsed())
}

/// The timings of one streamed request.
struct Streamed {
    headers: Duration,
    first_byte: Duration,
    total: Duration,
}

/// GETs a stream whole; checks that it was computed (`no-store`) or replayed (`ETag`).
async fn get_stream(
    client: &Client,
    path: &str,
    replay: bool,
) -> anyhow::Result<(Streamed, Vec<u8>)> {
    let start = Instant::now();
    let mut r = client.send(path).await?;
    let headers = start.elapsed();
    let kept = r.headers().contains_key(ETAG);
    let no_store = r
        .headers()
        .get(CACHE_CONTROL)
        .is_some_and(|v| v == "no-store");
    if (kept, no_store) != (replay, !replay) {
        bail!(
            "expected a {} stream",
            if replay { "kept" } else { "computed" }
        );
    }
    let mut body = Vec::new();
    let mut first_byte = None;
    while let Some(chunk) = r.chunk().await? {
        first_byte.get_or_insert_with(|| start.elapsed());
        body.extend_from_slice(&chunk);
    }
    let timings = Streamed {
        headers,
        first_byte: first_byte.unwrap_or_default(),
        total: start.elapsed(),
    };
    Ok((timings, body))
}

/// What git says the diff is.
struct Want {
    files: usize,
    added: u64,
    deleted: u64,
}

impl Want {
    /// A stream must start at (main, head), list every file with its patch, and end with
    /// git's counts, not truncated.
    fn check_stream(&self, body: &[u8], main: &str, head: &str) -> anyhow::Result<()> {
        let mut files = 0;
        let mut ended = false;
        for line in body.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            match serde_json::from_slice(line)? {
                BranchDiffLine::Start {
                    base,
                    head: h,
                    files_total,
                    ..
                } => {
                    if base != main || h != head || files_total != self.files as u64 {
                        bail!("start line: {base} {h} {files_total}");
                    }
                }
                BranchDiffLine::File(f) => {
                    if f.patch.is_none() {
                        bail!("{} has no patch", f.path);
                    }
                    files += 1;
                }
                BranchDiffLine::End { stats, truncated } => {
                    if truncated || (stats.additions, stats.deletions) != (self.added, self.deleted)
                    {
                        bail!(
                            "end line: +{} -{} truncated {truncated}; git +{} -{}",
                            stats.additions,
                            stats.deletions,
                            self.added,
                            self.deleted
                        );
                    }
                    ended = true;
                }
                BranchDiffLine::Error { message } => bail!("the stream failed: {message}"),
            }
        }
        if files != self.files || !ended {
            bail!("the stream has {files} files (end line: {ended})");
        }
        Ok(())
    }

    /// The JSON form lists the first 1,000 files of all.
    fn check_json(&self, d: &BranchDiff) -> anyhow::Result<()> {
        if d.files_total != self.files as u64 || d.files.len() != self.files.min(JSON_FILES) {
            bail!(
                "JSON: {} files listed of {}, git {}",
                d.files.len(),
                d.files_total,
                self.files
            );
        }
        Ok(())
    }
}
