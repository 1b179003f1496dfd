//! The machine daemon's benchmarks (issue 7), with the real `svc` binary built beside this
//! one, each "machine" a sealed HOME of its own.
//!
//! `svc-bench daemon-follow`: two machines clone one monorepo and run `svc daemon run`;
//! each round merges a branch through the API and times, from the merge's answer, until
//! each machine's main checkout holds the merge commit. Baseline, same round: `git pull
//! --ff-only` by hand in a third clone (what keeping up costs without the daemon).
//!
//! `svc-bench daemon-idle`: one machine with `--monorepos` monorepos cloned and the daemon
//! following all of them, left alone for `--minutes`; the daemon's RSS and the CPU time
//! it used while idle. Baseline: its RSS once every monorepo is connected.
//!
//! `svc-bench sync-unchanged`: a clone whose `.svc/` holds `--files` files, synced once;
//! then `svc sync --json` runs with nothing changed (must upload nothing). Baseline: the
//! same command in a clone whose `.svc/` is empty (process start + one round trip).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::branches::{ms, percentile};
use super::common::{Api, Server, git, git_door, print_load, print_machine, rss_kb, run, work_dir};

const FOLLOW_GOAL: Duration = Duration::from_secs(1);
const IDLE_RSS_GOAL_KB: u64 = 25 * 1024;
const SYNC_GOAL: Duration = Duration::from_millis(200);

/// The `svc` built beside this binary.
fn svc_bin() -> anyhow::Result<PathBuf> {
    let bin = std::env::current_exe()?.with_file_name("svc");
    if !bin.exists() {
        bail!(
            "{} is missing: build it with `cargo build --release -p svc-cli`",
            bin.display()
        );
    }
    Ok(bin)
}

/// A sealed machine: its own HOME (config, data, daemon) speaking to one server.
struct Machine {
    name: String,
    home: PathBuf,
    base: String,
    token: String,
    daemon: Option<Child>,
}

impl Machine {
    fn new(dir: &Path, name: &str, base: &str, token: &str) -> anyhow::Result<Machine> {
        let home = dir.join(name);
        std::fs::create_dir_all(&home)?;
        std::fs::write(
            home.join(".gitconfig"),
            "[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n",
        )?;
        Ok(Machine {
            name: name.to_owned(),
            home,
            base: base.to_owned(),
            token: token.to_owned(),
            daemon: None,
        })
    }

    fn svc(&self, args: &[&str]) -> anyhow::Result<Command> {
        let mut cmd = Command::new(svc_bin()?);
        cmd.current_dir(&self.home)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("SVC_CONFIG_DIR", self.home.join("config"))
            .env("SVC_SERVER", &self.base)
            .env("SVC_TOKEN", &self.token)
            .env("SVC_MACHINE", &self.name)
            .env("GIT_CONFIG_GLOBAL", self.home.join(".gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .args(args);
        Ok(cmd)
    }

    fn start_daemon(&mut self) -> anyhow::Result<()> {
        let child = self
            .svc(&["daemon", "run"])?
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot start svc daemon run")?;
        self.daemon = Some(child);
        Ok(())
    }

    fn daemon_pid(&self) -> Option<u32> {
        self.daemon.as_ref().map(Child::id)
    }

    /// Waits until the daemon follows `n` monorepos, all connected.
    fn wait_connected(&self, n: usize) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let status = run(&mut self.svc(&["daemon", "status", "--json"])?)?;
            let status: Value = serde_json::from_str(&status)?;
            let followed = status["monorepos"]
                .as_array()
                .map_or(&[][..], Vec::as_slice);
            let connected = followed
                .iter()
                .filter(|f| f["connection"] == "connected")
                .count();
            if connected == n {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("{}: the daemon did not connect: {status}", self.name);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        if let Some(mut child) = self.daemon.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The commit the checkout at `dir` is on, read from its files (no process to start, so
/// polling does not load the machine); `git rev-parse` when the ref is packed.
fn checkout_head(dir: &Path) -> anyhow::Result<String> {
    match std::fs::read_to_string(dir.join(".git/refs/heads/main")) {
        Ok(sha) => Ok(sha.trim().to_owned()),
        Err(_) => run(git(dir).args(["rev-parse", "HEAD"])),
    }
}

/// Prints the machine, starts a server on a fresh work dir and bootstraps its user.
async fn start(name: &str, database_url: Option<&str>) -> anyhow::Result<(PathBuf, Server, Api)> {
    print_machine();
    let dir = work_dir(name)?;
    let server = Server::start(&dir.join("data"), database_url, &dir.join("server.log")).await?;
    let api = Api::bootstrap(&server).await?;
    Ok((dir, server, api))
}

/// A monorepo `name` with repo `api`, main pushed once from `work`.
async fn seeded(api: &Api, dir: &Path, name: &str) -> anyhow::Result<(String, PathBuf)> {
    let (full, url) = api.repo(name, "api").await?;
    let work = dir.join(format!("seed-{name}"));
    std::fs::create_dir_all(&work)?;
    run(git(&work).args(["init", "-q"]))?;
    std::fs::write(work.join("README"), "daemon bench\n")?;
    run(git(&work).args(["add", "README"]))?;
    run(git(&work).args(["commit", "-q", "-m", "base"]))?;
    run(git_door(&work, &api.token).args(["push", "-q", &url, "main"]))?;
    run(git(&work).args(["remote", "add", "origin", &url]))?;
    Ok((full, work))
}

pub struct FollowOptions {
    pub merges: usize,
    pub database_url: Option<String>,
}

pub async fn follow(opts: FollowOptions) -> anyhow::Result<()> {
    let (dir, server, api) = start("daemon-follow", opts.database_url.as_deref()).await?;
    let (full, work) = seeded(&api, &dir, "mono").await?;
    let mut machines = Vec::new();
    for name in ["laptop", "desktop"] {
        let mut m = Machine::new(&dir, name, &server.base, &api.token)?;
        run(&mut m.svc(&["clone", &full])?)?;
        m.start_daemon()?;
        machines.push(m);
    }
    for m in &machines {
        m.wait_connected(1)?;
    }
    let by_hand = dir.join("by-hand");
    run(git_door(&dir, &api.token).args(["clone", "-q", &remote(&work)?, "by-hand"]))?;
    let http = reqwest::Client::new();
    let (mut followed, mut pulled) = (Vec::new(), Vec::new());
    for round in 0..opts.merges {
        let branch = format!("change-{round}");
        run(git(&work).args(["checkout", "-q", "-B", &branch, "main"]))?;
        std::fs::write(work.join(format!("f{round}")), format!("{round}\n"))?;
        run(git(&work).args(["add", "."]))?;
        run(git(&work).args(["commit", "-q", "-m", &branch]))?;
        run(git_door(&work, &api.token).args(["push", "-q", "origin", &branch]))?;
        let merged = merge(&http, &api, &full, &branch).await?;
        let start = Instant::now();
        let mut waiting: Vec<PathBuf> = machines
            .iter()
            .map(|m| m.home.join(full_name_dir(&full)).join("api"))
            .collect();
        while !waiting.is_empty() {
            let mut still = Vec::new();
            for checkout in waiting {
                if checkout_head(&checkout)? == merged {
                    followed.push(start.elapsed());
                } else {
                    still.push(checkout);
                }
            }
            waiting = still;
            if start.elapsed() > Duration::from_secs(30) {
                bail!("round {round}: a machine's main did not reach {merged} within 30 s");
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let pull = Instant::now();
        run(git_door(&by_hand, &api.token).args(["pull", "-q", "--ff-only"]))?;
        pulled.push(pull.elapsed());
        // The next branch starts from the new main.
        run(git(&work).args(["checkout", "-q", "main"]))?;
        run(git_door(&work, &api.token).args(["pull", "-q", "--ff-only", "origin", "main"]))?;
    }
    print_load();
    report("merge → each machine's main (2 daemons)", &followed);
    report("git pull --ff-only by hand (baseline)", &pulled);
    let p50 = percentile(&followed, 50);
    println!(
        "goal p50 < {}: {}",
        ms(FOLLOW_GOAL),
        if p50 < FOLLOW_GOAL { "met" } else { "MISSED" }
    );
    drop(machines);
    server.stop();
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// `<owner>/<name>` is cloned into `<name>`.
fn full_name_dir(full: &str) -> String {
    full.rsplit('/').next().unwrap_or(full).to_owned()
}

fn remote(work: &Path) -> anyhow::Result<String> {
    run(git(work).args(["remote", "get-url", "origin"]))
}

/// Merges `branch` of repo `api` (forced: no checks are configured); answers the merge
/// commit.
async fn merge(
    http: &reqwest::Client,
    api: &Api,
    full: &str,
    branch: &str,
) -> anyhow::Result<String> {
    let r = http
        .post(format!(
            "{}/v1/monorepos/{full}/repos/api/branches/{branch}/merge?force=1",
            api.base
        ))
        .bearer_auth(&api.token)
        .json(&json!({}))
        .send()
        .await?;
    let status = r.status();
    let body: Value = r.json().await?;
    if !status.is_success() {
        bail!("merge of {branch}: {status} {body}");
    }
    body["sha"]
        .as_str()
        .map(str::to_owned)
        .context("no sha in the merge answer")
}

fn report(what: &str, samples: &[Duration]) {
    println!(
        "{what}: {} samples, p50 {} p99 {} max {}",
        samples.len(),
        ms(percentile(samples, 50)),
        ms(percentile(samples, 99)),
        ms(percentile(samples, 100)),
    );
}

pub struct IdleOptions {
    pub monorepos: usize,
    pub minutes: u64,
    pub database_url: Option<String>,
}

pub async fn idle(opts: IdleOptions) -> anyhow::Result<()> {
    let (dir, server, api) = start("daemon-idle", opts.database_url.as_deref()).await?;
    let mut m = Machine::new(&dir, "idle", &server.base, &api.token)?;
    for i in 0..opts.monorepos {
        let (full, _) = seeded(&api, &dir, &format!("mono{i}")).await?;
        run(&mut m.svc(&["clone", &full])?)?;
    }
    m.start_daemon()?;
    m.wait_connected(opts.monorepos)?;
    let pid = m.daemon_pid().context("no daemon")?;
    let connected_rss = rss_kb(pid).unwrap_or(0);
    let cpu_before = super::events::cpu_ms(pid);
    println!(
        "daemon following {} monorepos; idle for {} min…",
        opts.monorepos, opts.minutes
    );
    tokio::time::sleep(Duration::from_secs(opts.minutes * 60)).await;
    let idle_rss = rss_kb(pid).unwrap_or(0);
    let cpu = super::events::cpu_ms(pid).saturating_sub(cpu_before);
    m.wait_connected(opts.monorepos)?;
    print_load();
    println!(
        "daemon RSS: {:.1} MiB once connected (baseline), {:.1} MiB after {} min idle",
        connected_rss as f64 / 1024.0,
        idle_rss as f64 / 1024.0,
        opts.minutes
    );
    println!(
        "daemon CPU while idle: {cpu} ms over {} min ({:.3}% of one core)",
        opts.minutes,
        cpu as f64 / (opts.minutes as f64 * 600.0)
    );
    println!(
        "goal RSS < {} MiB: {}",
        IDLE_RSS_GOAL_KB / 1024,
        if idle_rss < IDLE_RSS_GOAL_KB {
            "met"
        } else {
            "MISSED"
        }
    );
    drop(m);
    server.stop();
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

pub struct SyncOptions {
    pub files: usize,
    pub runs: usize,
    pub database_url: Option<String>,
}

pub async fn sync_unchanged(opts: SyncOptions) -> anyhow::Result<()> {
    let (dir, server, api) = start("sync-unchanged", opts.database_url.as_deref()).await?;
    let m = Machine::new(&dir, "syncer", &server.base, &api.token)?;
    let (full, _) = seeded(&api, &dir, "full").await?;
    let (empty, _) = seeded(&api, &dir, "empty").await?;
    run(&mut m.svc(&["clone", &full])?)?;
    run(&mut m.svc(&["clone", &empty])?)?;
    let svc_dir = m.home.join("full/.svc");
    for i in 0..opts.files {
        let sub = svc_dir.join(format!("notes/{:02}", i % 50));
        std::fs::create_dir_all(&sub)?;
        std::fs::write(
            sub.join(format!("note-{i}.md")),
            format!("# note {i}\n\n{}\n", "text ".repeat(40)),
        )?;
    }
    let first = sync(&m, "full")?;
    let uploaded = first.1["uploaded"].as_u64().unwrap_or(0);
    println!(
        "first sync of {} files: {} ({uploaded} uploaded)",
        opts.files,
        ms(first.0)
    );
    let (mut unchanged, mut baseline) = (Vec::new(), Vec::new());
    for _ in 0..opts.runs {
        let (took, report) = sync(&m, "full")?;
        let saved = report["saved"].as_array().map_or(0, Vec::len);
        if report["uploaded"] != 0 || saved != 0 {
            bail!("an unchanged sync sent something: {report}");
        }
        unchanged.push(took);
        baseline.push(sync(&m, "empty")?.0);
    }
    print_load();
    report(
        &format!("svc sync, {} unchanged files", opts.files),
        &unchanged,
    );
    report("svc sync, empty .svc/ (baseline)", &baseline);
    let p50 = percentile(&unchanged, 50);
    println!(
        "goal < {} with no uploads: {}",
        ms(SYNC_GOAL),
        if p50 < SYNC_GOAL { "met" } else { "MISSED" }
    );
    drop(m);
    server.stop();
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// Times one `svc sync --json` in the clone `clone`; answers its report.
fn sync(m: &Machine, clone: &str) -> anyhow::Result<(Duration, Value)> {
    let mut cmd = m.svc(&["--json", "sync"])?;
    cmd.current_dir(m.home.join(clone));
    let start = Instant::now();
    let out = run(&mut cmd)?;
    let took = start.elapsed();
    Ok((took, serde_json::from_str(&out)?))
}
