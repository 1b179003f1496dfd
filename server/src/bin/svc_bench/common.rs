//! What the benchmarks share: the machine they ran on, a `svc-server` process of the
//! binary built beside this one, its API, a sealed `git`, timings and RSS readings.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

/// The bootstrap secret the benchmark servers start with.
pub const SECRET: &str = "svc-bench-bootstrap-secret";

/// Prints what the figures were measured on.
pub fn print_machine() {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem_kb = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:").map(kb))
        .unwrap_or(0);
    let git = Command::new("git")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|_| "git missing".into());
    println!(
        "machine: {cores} cores ({model}), {:.1} GiB RAM, {git}",
        mem_kb as f64 / 1024.0 / 1024.0
    );
    print_load();
}

/// Prints the load average: other work on the machine skews every figure.
pub fn print_load() {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    println!("load average (1, 5, 15 min): {}", load.join(" "));
}

fn kb(value: &str) -> u64 {
    value
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap_or(0)
}

/// A fresh directory for one benchmark under the system's temp dir.
pub fn work_dir(name: &str) -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("svc-bench-{name}-{}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The `svc-server` built beside this binary.
pub fn server_bin() -> anyhow::Result<PathBuf> {
    let bin = std::env::current_exe()?.with_file_name("svc-server");
    if !bin.exists() {
        bail!(
            "{} is missing: build both binaries with `cargo build --release -p svc-server --bins`",
            bin.display()
        );
    }
    Ok(bin)
}

/// A free port on the loopback (free when asked; the server binds it right after).
pub fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// VmRSS of a process, in kB.
pub fn rss_kb(pid: u32) -> Option<u64> {
    status_kb(pid, "VmRSS:")
}

/// A kB field of `/proc/<pid>/status`.
fn status_kb(pid: u32, field: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix(field).map(kb))
}

/// Every descendant of `pid` (children of all its threads, recursively).
fn descendants(pid: u32, out: &mut Vec<u32>) {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return;
    };
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
            out.push(child);
            descendants(child, out);
        }
    }
}

/// Summed VmRSS and RssAnon (not counting file pages, which processes mapping the
/// same pack share) of a process's descendants, in kB.
pub fn descendants_rss_kb(pid: u32) -> (u64, u64) {
    let mut pids = Vec::new();
    descendants(pid, &mut pids);
    pids.into_iter()
        .filter_map(|p| Some((rss_kb(p)?, status_kb(p, "RssAnon:")?)))
        .fold((0, 0), |(r, a), (pr, pa)| (r + pr, a + pa))
}

/// Peaks read by an [`RssPoller`], in kB.
#[derive(Debug, Default, Clone, Copy)]
pub struct Peaks {
    /// VmRSS of the process.
    pub rss: u64,
    /// Summed VmRSS of its descendants.
    pub children: u64,
    /// Summed RssAnon of its descendants.
    pub children_anon: u64,
}

/// Peak RSS of a process, and of its descendants together, while it runs, read every
/// 10 ms on a thread of its own.
pub struct RssPoller {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Peaks>,
}

impl RssPoller {
    pub fn start(pid: u32) -> RssPoller {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut peaks = Peaks::default();
            loop {
                peaks.rss = peaks.rss.max(rss_kb(pid).unwrap_or(0));
                let (children, anon) = descendants_rss_kb(pid);
                peaks.children = peaks.children.max(children);
                peaks.children_anon = peaks.children_anon.max(anon);
                if flag.load(Ordering::Acquire) {
                    return peaks;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        RssPoller { stop, thread }
    }

    /// Stops polling; answers the peaks.
    pub fn finish(self) -> Peaks {
        self.stop.store(true, Ordering::Release);
        self.thread.join().unwrap_or_default()
    }
}

/// A running `svc-server`, killed when dropped.
pub struct Server {
    child: Child,
    pub base: String,
}

impl Server {
    /// Starts `svc-server` on `data_dir` (SQLite there unless `database_url`) and waits
    /// for `/healthz`; its log goes to `log`.
    pub async fn start(
        data_dir: &Path,
        database_url: Option<&str>,
        log: &Path,
    ) -> anyhow::Result<Server> {
        Server::start_with(data_dir, database_url, log, None).await
    }

    /// The same, with a configuration file. The request rates and the connections per
    /// address a public server keeps are switched off unless the file sets them: a bench
    /// seeds thousands of writes a minute with one credential, over hundreds of
    /// connections from one address, and measures speed, not the limits.
    pub async fn start_with(
        data_dir: &Path,
        database_url: Option<&str>,
        log: &Path,
        config: Option<&Path>,
    ) -> anyhow::Result<Server> {
        let port = free_port()?;
        let mut settings = match config {
            Some(path) => std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?,
            None => String::new(),
        };
        if !settings.contains("[rate_limits]") {
            settings.push_str(
                "\n[rate_limits]\nsign_in_per_minute = 0\ndevice_poll_per_minute = 0\nwrites_per_minute = 0\n",
            );
        }
        if !settings.contains("[connections]") {
            settings.push_str("\n[connections]\nper_address = 0\n");
        }
        let settings_file = log.with_extension("settings.toml");
        std::fs::write(&settings_file, settings)?;
        let mut cmd = Command::new(server_bin()?);
        cmd.arg("--config").arg(&settings_file);
        cmd.args(["--listen", &format!("127.0.0.1:{port}")])
            .arg("--data-dir")
            .arg(data_dir)
            .env("SVC_BOOTSTRAP_SECRET", SECRET)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log)?);
        if let Some(url) = database_url {
            cmd.args(["--database-url", url]);
        }
        let child = cmd.spawn().context("cannot start svc-server")?;
        let mut server = Server {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(r) = client.get(format!("{}/healthz", server.base)).send().await
                && r.status().is_success()
            {
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                bail!("svc-server exited ({status}); see {}", log.display());
            }
            if Instant::now() > deadline {
                bail!("svc-server did not answer /healthz; see {}", log.display());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn rss_kb(&self) -> u64 {
        rss_kb(self.pid()).unwrap_or(0)
    }

    pub fn stop(mut self) {
        self.kill();
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The API as one user of a server.
pub struct Api {
    client: reqwest::Client,
    pub base: String,
    pub token: String,
}

impl Api {
    /// Creates a user through bootstrap and speaks as it.
    pub async fn bootstrap(server: &Server) -> anyhow::Result<Api> {
        let client = reqwest::Client::new();
        let r = client
            .post(format!("{}/v1/users", server.base))
            .bearer_auth(SECRET)
            .json(&json!({"email": "bench@example.com"}))
            .send()
            .await?;
        let body = expect(r, reqwest::StatusCode::CREATED).await?;
        let token = body["credential"]["token"]
            .as_str()
            .context("no credential in the bootstrap answer")?
            .to_owned();
        Ok(Api {
            client,
            base: server.base.clone(),
            token,
        })
    }

    /// Speaks as `token` to another server process (on the same data).
    pub fn at(server: &Server, token: &str) -> Api {
        Api {
            client: reqwest::Client::new(),
            base: server.base.clone(),
            token: token.to_owned(),
        }
    }

    pub async fn post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        let r = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await?;
        expect(r, reqwest::StatusCode::CREATED).await
    }

    pub async fn get(&self, path: &str) -> anyhow::Result<Value> {
        let r = self
            .client
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send()
            .await?;
        expect(r, reqwest::StatusCode::OK).await
    }

    /// Creates monorepo `monorepo` and repo `repo` in it; answers the monorepo's full
    /// name and the repo's clone URL.
    pub async fn repo(&self, monorepo: &str, repo: &str) -> anyhow::Result<(String, String)> {
        let m = self
            .post("/v1/monorepos", json!({"name": monorepo}))
            .await?;
        let full = m["full_name"]
            .as_str()
            .context("no full_name for the monorepo")?
            .to_owned();
        let r = self
            .post(
                &format!("/v1/monorepos/{full}/repos"),
                json!({"path": repo}),
            )
            .await?;
        let url = r["clone_url"]
            .as_str()
            .context("no clone_url for the repo")?
            .to_owned();
        Ok((full, url))
    }
}

async fn expect(r: reqwest::Response, status: reqwest::StatusCode) -> anyhow::Result<Value> {
    let got = r.status();
    let text = r.text().await?;
    if got != status {
        bail!("expected {status}, got {got}: {text}");
    }
    Ok(serde_json::from_str(&text)?)
}

/// `git` in `dir` with a sealed environment: no user or system config, pinned identities.
pub fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_AUTHOR_NAME", "Bench Author")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "Bench Committer")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
        .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
        .env("LC_ALL", "C")
        .args(["-c", "init.defaultBranch=main", "-c", "protocol.version=2"]);
    cmd
}

/// `git` that speaks to the door as `token`.
pub fn git_door(dir: &Path, token: &str) -> Command {
    let mut cmd = git(dir);
    cmd.args([
        "-c",
        &format!("http.extraHeader=Authorization: Bearer {token}"),
    ]);
    cmd
}

/// Runs a command; answers its standard output, trimmed, or fails with its stderr.
pub fn run(cmd: &mut Command) -> anyhow::Result<String> {
    let out = cmd.stdin(Stdio::null()).output()?;
    if !out.status.success() {
        bail!(
            "{cmd:?} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Times a command that must succeed.
pub fn timed(cmd: &mut Command) -> anyhow::Result<Duration> {
    let start = Instant::now();
    run(cmd)?;
    Ok(start.elapsed())
}

pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

pub fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// Total size of the files under `dir`, in bytes.
pub fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / 1024.0 / 1024.0)
}

/// The bare repository under `<data dir>/repos/` whose `main` is `sha` (the pushed repo;
/// the monorepo's meta repository is the other one).
pub fn bare_dir_with(data_dir: &Path, sha: &str) -> anyhow::Result<PathBuf> {
    for entry in std::fs::read_dir(data_dir.join("repos"))?.flatten() {
        let path = entry.path();
        let main = git(&path)
            .args(["rev-parse", "--verify", "-q", "refs/heads/main"])
            .stderr(Stdio::null())
            .output()?;
        if String::from_utf8_lossy(&main.stdout).trim() == sha {
            return Ok(path);
        }
    }
    bail!(
        "no repository under {}/repos has main at {sha}",
        data_dir.display()
    )
}

/// A small, fast, seeded generator (PCG-style LCG) for reproducible "random" data.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() >> 33) as usize % n
    }

    /// Incompressible bytes (xorshift-mixed high bits of the LCG).
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let mut x = self.next_u64();
            x ^= x >> 29;
            x = x.wrapping_mul(0xbf58476d1ce4e5b9);
            x ^= x >> 32;
            let bytes = x.to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

/// Feeds a `git fast-import` stream to the repository at `dir`.
pub fn fast_import(dir: &Path, stream: &[u8]) -> anyhow::Result<()> {
    let mut import = git(dir)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()?;
    import
        .stdin
        .take()
        .context("no stdin for fast-import")?
        .write_all(stream)?;
    if !import.wait()?.success() {
        bail!("git fast-import failed");
    }
    Ok(())
}
