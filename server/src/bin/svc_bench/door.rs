//! `svc-bench door`: a repository of incompressible content (120 MiB by default) pushed
//! through the git door in steps under the 64 MiB push limit (`main` first, then one
//! branch per step), then, in one run:
//!
//! - `git clone --no-local <bare dir on disk>` against `git clone <door URL>` (median of
//!   `--runs`, alternating, after one warm-up of each), and the same with `--bare`;
//! - the RSS `svc-server` adds during a door clone (VmRSS read every 10 ms, peak minus
//!   the reading just before the clone), with `git upload-pack` and its children (not
//!   part of the server process) shown apart;
//! - `--concurrent` door clones started at once: how many succeed, and the wall time.
//!
//! All of it twice: on the repository as the pushes left it (one pack per push, no
//! bitmap: git's `pack-objects` searches deltas across all of it for every clone), and
//! after `git repack -adb` in the bare directory (one pack with a bitmap, as `git gc`
//! would leave it: a clone then sends the pack nearly verbatim, so git's own work is
//! small and the door's share of the time is largest).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use super::common::{
    Api, Lcg, Peaks, RssPoller, Server, bare_dir_with, dir_size, git, git_door, median, mib,
    print_load, print_machine, run, secs, timed, work_dir,
};

/// Bytes each commit (and each push) adds.
const STEP_BYTES: usize = 20 * 1024 * 1024;
/// Size of each generated file: 160 files a step, over `receive.unpackLimit` (100), so
/// the server keeps each push as a pack as it would for any big push.
const FILE_BYTES: usize = 128 * 1024;

pub struct Options {
    pub size_mib: usize,
    pub runs: usize,
    pub concurrent: usize,
    pub keep: bool,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("door")?;
    let data = dir.join("data");
    let server = Server::start(&data, None, &dir.join("server.log")).await?;
    let started_rss = server.rss_kb();
    let api = Api::bootstrap(&server).await?;
    let (_, url) = api.repo("bench", "big").await?;
    println!(
        "server pid {}, RSS after start: {started_rss} kB",
        server.pid()
    );

    // The repository: one commit per step, each adding STEP_BYTES of random files.
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    run(git(&work).args(["init", "-q"]))?;
    let steps = (opts.size_mib * 1024 * 1024).div_ceil(STEP_BYTES);
    let mut rng = Lcg(7);
    let mut buf = vec![0u8; FILE_BYTES];
    let mut shas = Vec::new();
    let start = Instant::now();
    for step in 1..=steps {
        let folder = work.join(format!("data/c{step}"));
        std::fs::create_dir_all(&folder)?;
        for file in 0..STEP_BYTES / FILE_BYTES {
            rng.fill(&mut buf);
            std::fs::write(folder.join(format!("f{file:03}.bin")), &buf)?;
        }
        run(git(&work).args(["add", "-A"]))?;
        run(git(&work).args(["commit", "-q", "-m", &format!("step {step}")]))?;
        shas.push(run(git(&work).args(["rev-parse", "HEAD"]))?);
    }
    println!(
        "generated {steps} commits of {} random data each ({} in all) in {}",
        mib(STEP_BYTES as u64),
        mib((steps * STEP_BYTES) as u64),
        secs(start.elapsed())
    );

    // Pushed in steps: main once (it is refused after), then a branch per step.
    for (i, sha) in shas.iter().enumerate() {
        let target = if i == 0 {
            "refs/heads/main".to_owned()
        } else {
            format!("refs/heads/b{}", i + 1)
        };
        let took = timed(git_door(&work, &api.token).args([
            "push",
            "-q",
            &url,
            &format!("{sha}:{target}"),
        ]))?;
        println!("push {sha:.12} -> {target}: {}", secs(took));
    }
    let bare = bare_dir_with(&data, &shas[0])?;
    let counts = run(git(&bare).args(["count-objects", "-v"]))?.replace('\n', ", ");
    println!(
        "on disk: {} ({}): {counts}",
        bare.display(),
        mib(dir_size(&bare))
    );

    let transfer = dir_size(&bare.join("objects/pack"));
    let bench = Bench {
        clones: dir.join("clones"),
        bare_arg: bare.to_string_lossy().into_owned(),
        url: url.clone(),
        token: api.token.clone(),
        tip: shas.last().context("no commits")?.clone(),
        steps,
        server: &server,
    };
    std::fs::create_dir_all(&bench.clones)?;
    let pushed = bench.measure("as pushed", &opts)?;
    let took = timed(git(&bare).args(["repack", "-adbq"]))?;
    let counts = run(git(&bare).args(["count-objects", "-v"]))?.replace('\n', ", ");
    println!("git repack -adb in the bare dir: {}; {counts}", secs(took));
    let repacked = bench.measure("repacked", &opts)?;

    println!();
    print_load();
    println!(
        "repository: {} pushed in {steps} steps; a clone transfers {} of packs",
        mib((steps * STEP_BYTES) as u64),
        mib(transfer)
    );
    let ok = pushed.print(&opts) && repacked.print(&opts);
    server.stop();
    if opts.keep {
        println!(
            "kept {} (clone URL {url}, token {})",
            dir.display(),
            api.token
        );
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    if !ok {
        bail!("some concurrent clones failed");
    }
    Ok(())
}

/// What one state of the repository is measured with.
struct Bench<'a> {
    clones: PathBuf,
    bare_arg: String,
    url: String,
    token: String,
    /// The last pushed commit, which every clone must hold.
    tip: String,
    /// Branches every clone must hold.
    steps: usize,
    server: &'a Server,
}

/// The figures of one state of the repository.
struct Figures {
    state: &'static str,
    /// Per kind of clone: its label and the medians on disk and through the door.
    medians: Vec<(&'static str, Duration, Duration)>,
    /// Server RSS peak minus the reading before, per door clone, in kB.
    overheads: Vec<u64>,
    concurrent_ok: usize,
    concurrent_wall: Duration,
    concurrent_first: Duration,
    concurrent_idle: u64,
    concurrent_peaks: Peaks,
}

impl Bench<'_> {
    fn clone_cmd(&self, door: bool, dest: &Path, extra: &[&str]) -> Command {
        let mut cmd = if door {
            git_door(&self.clones, &self.token)
        } else {
            git(&self.clones)
        };
        cmd.args(["clone", "-q"]);
        if door {
            cmd.args(extra).arg(&self.url);
        } else {
            cmd.arg("--no-local").args(extra).arg(&self.bare_arg);
        }
        cmd.arg(dest);
        cmd
    }

    /// Checks that a clone holds every branch, the last step's commit among them.
    fn check(&self, dest: &Path, bare_clone: bool) -> anyhow::Result<()> {
        let prefix = if bare_clone {
            "refs/heads/"
        } else {
            "refs/remotes/origin/"
        };
        let refs = run(git(dest).args(["for-each-ref", "--format=%(objectname)", prefix]))?;
        if !refs.lines().any(|l| l == self.tip) || refs.lines().count() < self.steps {
            bail!("clone at {} lacks branches: {refs}", dest.display());
        }
        Ok(())
    }

    fn measure(&self, state: &'static str, opts: &Options) -> anyhow::Result<Figures> {
        // Warm-up (page cache, first-run effects), then alternating timed runs.
        for door in [false, true] {
            let dest = self.clones.join("warm");
            run(&mut self.clone_cmd(door, &dest, &[]))?;
            self.check(&dest, false)?;
            std::fs::remove_dir_all(&dest)?;
        }
        let mut medians = Vec::new();
        let mut overheads = Vec::new();
        for (label, extra) in [
            ("git clone", &[][..]),
            ("git clone --bare", &["--bare"][..]),
        ] {
            let bare_clone = !extra.is_empty();
            let (mut disk, mut door) = (Vec::new(), Vec::new());
            for i in 0..opts.runs {
                let dest = self.clones.join(format!("disk-{i}"));
                disk.push(timed(&mut self.clone_cmd(false, &dest, extra))?);
                self.check(&dest, bare_clone)?;
                std::fs::remove_dir_all(&dest)?;

                let dest = self.clones.join(format!("door-{i}"));
                let idle = self.server.rss_kb();
                let poll = RssPoller::start(self.server.pid());
                let took = timed(&mut self.clone_cmd(true, &dest, extra));
                let peaks = poll.finish();
                door.push(took?);
                self.check(&dest, bare_clone)?;
                std::fs::remove_dir_all(&dest)?;
                let overhead = peaks.rss.saturating_sub(idle);
                overheads.push(overhead);
                println!(
                    "[{state}] {label} run {}: disk {}, door {}; server RSS before {idle} kB, \
                     peak {} kB (+{overhead} kB); git upload-pack & children: peak RSS {} kB \
                     ({} kB anon)",
                    i + 1,
                    secs(disk[i]),
                    secs(door[i]),
                    peaks.rss,
                    peaks.children,
                    peaks.children_anon,
                );
            }
            medians.push((label, median(disk), median(door)));
        }

        // Door clones started at once.
        let conc = self.clones.join("concurrent");
        std::fs::create_dir_all(&conc)?;
        let idle = self.server.rss_kb();
        let poll = RssPoller::start(self.server.pid());
        let start = Instant::now();
        let mut running = Vec::new();
        for i in 0..opts.concurrent {
            let dest = conc.join(format!("c{i:02}"));
            let child = self
                .clone_cmd(true, &dest, &[])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(conc.join(format!("c{i:02}.err")))?)
                .spawn()?;
            running.push((i, dest, child));
        }
        let mut done = Vec::new();
        while !running.is_empty() {
            let mut still = Vec::new();
            for (i, dest, mut child) in running {
                match child.try_wait()? {
                    Some(status) => done.push((i, dest, status, start.elapsed())),
                    None => still.push((i, dest, child)),
                }
            }
            running = still;
            std::thread::sleep(Duration::from_millis(10));
        }
        let wall = start.elapsed();
        let peaks = poll.finish();
        let first = done.iter().map(|d| d.3).min().unwrap_or_default();
        let mut ok = 0;
        for (i, dest, status, _) in &done {
            match self.check(dest, false) {
                Ok(()) if status.success() => ok += 1,
                checked => {
                    let err = std::fs::read_to_string(conc.join(format!("c{i:02}.err")))
                        .unwrap_or_default();
                    println!(
                        "[{state}] concurrent clone {i} failed: {status}, {checked:?}, {}",
                        err.trim()
                    );
                }
            }
        }
        std::fs::remove_dir_all(&conc)?;
        Ok(Figures {
            state,
            medians,
            overheads,
            concurrent_ok: ok,
            concurrent_wall: wall,
            concurrent_first: first,
            concurrent_idle: idle,
            concurrent_peaks: peaks,
        })
    }
}

impl Figures {
    /// Prints the summary; answers whether every concurrent clone succeeded.
    fn print(&self, opts: &Options) -> bool {
        let state = self.state;
        for (label, disk, door) in &self.medians {
            let ratio = door.as_secs_f64() / disk.as_secs_f64();
            println!(
                "[{state}] {label}: median of {} disk {}, door {}, door/disk {ratio:.3} \
                 (goal <= 1.10: {})",
                opts.runs,
                secs(*disk),
                secs(*door),
                if ratio <= 1.10 { "met" } else { "MISSED" }
            );
        }
        let max = self.overheads.iter().copied().max().unwrap_or(0);
        println!(
            "[{state}] server RSS overhead during a door clone: max +{:.1} MB over {} clones \
             (goal <= 30 MB: {})",
            max as f64 / 1024.0,
            self.overheads.len(),
            if max <= 30 * 1024 { "met" } else { "MISSED" }
        );
        let peaks = self.concurrent_peaks;
        println!(
            "[{state}] {} concurrent door clones: {}/{} succeeded, all done in {} (first \
             done at {}); server RSS before {} kB, peak {} kB (+{:.1} MB); git processes' \
             summed peak RSS {:.1} MB ({:.1} MB anon)",
            opts.concurrent,
            self.concurrent_ok,
            opts.concurrent,
            secs(self.concurrent_wall),
            secs(self.concurrent_first),
            self.concurrent_idle,
            peaks.rss,
            peaks.rss.saturating_sub(self.concurrent_idle) as f64 / 1024.0,
            peaks.children as f64 / 1024.0,
            peaks.children_anon as f64 / 1024.0
        );
        self.concurrent_ok == opts.concurrent
    }
}
