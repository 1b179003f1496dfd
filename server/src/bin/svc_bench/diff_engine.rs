//! `svc-bench diff-engine`: a branch that edits 5,000 text files (40-200 lines each,
//! a few edited hunks per file), made with `git fast-import` and repacked, then:
//!
//! - `git diff --patience <base> <head>`, its output read into a sink;
//! - the diff engine (`svc_server::git::diff`) giving every file with its patch, limits
//!   raised so that nothing is left out, and the time to its first file;
//! - their answers compared: the engine's counts must sum to `git diff --numstat`'s,
//!   and its patches must have as many bytes as git's hunks.
//!
//! Both run warm (one untimed run first); p50 and min of `--runs` runs are reported.

use std::io::{Read, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use gix::ObjectId;
use svc_server::git::diff::{self, Options as DiffOptions};
use svc_server::git::read::Repo;

use super::common::{
    Lcg, fast_import, git, median, print_load, print_machine, run, secs, work_dir,
};

pub struct Options {
    pub files: usize,
    pub runs: usize,
    pub keep: bool,
}

pub fn bench(opts: Options) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("diff-engine")?;
    let bare = dir.join("diff.git");
    let start = Instant::now();
    generate(&bare, opts.files)?;
    let base = run(git(&bare).args(["rev-parse", "main"]))?;
    let head = run(git(&bare).args(["rev-parse", "work"]))?;
    println!(
        "generated with git fast-import + repack in {}: {} files edited between {base:.12} and {head:.12}",
        secs(start.elapsed()),
        opts.files
    );

    let git_run = || git_diff(&bare, &base, &head);
    let want_bytes = git_run()?;
    let (added, deleted) = numstat(&bare, &base, &head)?;

    let repo = Repo::open(&bare)?;
    let (main_id, head_id) = (parse(&base)?, parse(&head)?);
    let engine_run = || engine(&repo, main_id, head_id);
    let first = engine_run()?;
    if first.files != opts.files || (first.additions, first.deletions) != (added, deleted) {
        bail!(
            "the engine gave {} files, +{} -{}; git {} files, +{added} -{deleted}",
            first.files,
            first.additions,
            first.deletions,
            opts.files
        );
    }
    println!(
        "answers agree: {} files, +{added} -{deleted}; patch text: engine {} bytes, git's hunks {} bytes",
        first.files, first.patch_bytes, want_bytes.hunks
    );
    if first.patch_bytes != want_bytes.hunks {
        bail!("the engine's patches and git's hunks differ in size");
    }

    print_load();
    let mut git_times = Vec::new();
    let mut engine_times = Vec::new();
    let mut firsts = Vec::new();
    for _ in 0..opts.runs {
        let start = Instant::now();
        git_run()?;
        git_times.push(start.elapsed());
        let got = engine_run()?;
        engine_times.push(got.total);
        firsts.push(got.first_file);
    }
    let report = |name: &str, times: &[Duration]| {
        let min = times.iter().min().copied().unwrap_or_default();
        println!(
            "{name}: p50 {}, min {}",
            secs(median(times.to_vec())),
            secs(min)
        );
    };
    report("git diff --patience", &git_times);
    report("engine, every patch", &engine_times);
    report("engine, first file", &firsts);
    let ratio = median(engine_times).as_secs_f64() / median(git_times).as_secs_f64();
    println!("engine / git (p50): {ratio:.2}");
    print_load();
    if opts.keep {
        println!("kept {}", dir.display());
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

fn parse(sha: &str) -> anyhow::Result<ObjectId> {
    Ok(ObjectId::from_hex(sha.as_bytes())?)
}

/// What one run of the engine gave.
struct EngineRun {
    total: Duration,
    first_file: Duration,
    files: usize,
    additions: u64,
    deletions: u64,
    patch_bytes: usize,
}

fn engine(repo: &Repo, main: ObjectId, head: ObjectId) -> anyhow::Result<EngineRun> {
    let start = Instant::now();
    let options = DiffOptions {
        max_files: usize::MAX,
        max_patch_bytes: usize::MAX,
        max_blob_bytes: usize::MAX,
        ..DiffOptions::stream()
    };
    let plan = diff::plan(repo, Some(main), head, options)?;
    let mut first_file = None;
    let mut files = 0;
    let mut patch_bytes = 0;
    let outcome = plan.files(repo, |file| {
        first_file.get_or_insert_with(|| start.elapsed());
        files += 1;
        patch_bytes += file.patch.as_ref().map_or(0, String::len);
        ControlFlow::Continue(())
    })?;
    if outcome.truncated {
        bail!("the engine left something out");
    }
    Ok(EngineRun {
        total: start.elapsed(),
        first_file: first_file.unwrap_or_default(),
        files,
        additions: outcome.stats.additions,
        deletions: outcome.stats.deletions,
        patch_bytes,
    })
}

/// The size of git's output and of its hunks (the lines from each `@@` on).
struct GitBytes {
    hunks: usize,
}

fn git_diff(bare: &Path, base: &str, head: &str) -> anyhow::Result<GitBytes> {
    let mut child = git(bare)
        .args(["diff", "--patience", "--no-color", base, head])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .context("no stdout for git diff")?
        .read_to_end(&mut out)?;
    if !child.wait()?.success() {
        bail!("git diff failed");
    }
    let mut hunks = 0;
    let mut in_hunk = false;
    for line in out.split_inclusive(|b| *b == b'\n') {
        if line.starts_with(b"diff --git ") {
            in_hunk = false;
        } else if line.starts_with(b"@@ ") {
            in_hunk = true;
        }
        if in_hunk {
            hunks += line.len();
        }
    }
    Ok(GitBytes { hunks })
}

/// Lines added and deleted in all, by `git diff --patience --numstat`.
pub fn numstat(bare: &Path, base: &str, head: &str) -> anyhow::Result<(u64, u64)> {
    let out = run(git(bare).args(["diff", "--patience", "--numstat", base, head]))?;
    let mut sums = (0, 0);
    for line in out.lines() {
        let mut fields = line.split('\t');
        let mut count =
            || -> anyhow::Result<u64> { Ok(fields.next().context("short numstat line")?.parse()?) };
        sums.0 += count()?;
        sums.1 += count()?;
    }
    Ok(sums)
}

/// Main with `files` source-like files (and as many untouched ones), and branch
/// `work` editing each of the first ones in 1 to 4 places.
pub fn generate(bare: &Path, files: usize) -> anyhow::Result<()> {
    let parent = bare.parent().context("no parent")?;
    let name = bare.file_name().context("no name")?;
    run(git(parent).args(["init", "-q", "--bare"]).arg(name))?;
    let mut rng = Lcg(42);
    let mut stream = Vec::new();
    let mut edited = Vec::with_capacity(files);
    write!(
        stream,
        "commit refs/heads/main\nmark :1\ncommitter A <a@example.com> 1600000000 +0000\ndata 6\nimport\n"
    )?;
    for i in 0..2 * files {
        let lines: Vec<String> = (0..40 + rng.below(161))
            .map(|n| source_line(&mut rng, n))
            .collect();
        let path = format!("src/m{:02}/f{i:05}.rs", i % 50);
        blob(&mut stream, &path, &lines.concat())?;
        if i < files {
            edited.push((path, edit(&mut rng, lines)));
        }
    }
    write!(
        stream,
        "commit refs/heads/work\nmark :2\ncommitter A <a@example.com> 1600000060 +0000\ndata 5\nedit\nfrom :1\n"
    )?;
    for (path, lines) in &edited {
        blob(&mut stream, path, &lines.concat())?;
    }
    fast_import(bare, &stream)?;
    run(git(bare).args(["repack", "-adfq"]))?;
    Ok(())
}

fn blob(stream: &mut Vec<u8>, path: &str, text: &str) -> std::io::Result<()> {
    write!(
        stream,
        "M 100644 inline {path}\ndata {}\n{text}\n",
        text.len()
    )
}

/// A line of Rust-like code: mostly distinct statements, with the braces and blank
/// lines that repeat in real code.
fn source_line(rng: &mut Lcg, n: usize) -> String {
    match rng.below(10) {
        0 => "}\n".to_owned(),
        1 => "\n".to_owned(),
        2 => format!("pub fn item_{n}_{}(arg: u32) -> u32 {{\n", rng.below(1_000)),
        3 => format!("    // step {n}: keep the {} in order\n", rng.below(1_000)),
        4 => format!("        if arg > {} {{\n", rng.below(100)),
        _ => format!(
            "    let value_{n} = compute(arg, {}, \"{}\");\n",
            rng.below(10_000),
            rng.below(10_000)
        ),
    }
}

/// `lines` with 1 to 4 hunks replaced, inserted or deleted.
fn edit(rng: &mut Lcg, old: Vec<String>) -> Vec<String> {
    let mut lines = old.clone();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(lines.len());
        let len = (1 + rng.below(4)).min(lines.len() - at);
        let new: Vec<String> = (0..rng.below(5))
            .map(|_| source_line(rng, at + 100_000))
            .collect();
        match rng.below(3) {
            0 => {
                lines.splice(at..at, new);
            }
            1 => {
                lines.drain(at..at + len);
            }
            _ => {
                lines.splice(at..at + len, new);
            }
        }
    }
    if lines == old {
        lines.push("// edited\n".to_owned());
    }
    lines
}
