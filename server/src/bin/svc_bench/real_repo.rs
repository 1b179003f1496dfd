//! `svc-bench real-repo <bare repo>`: a real project's whole history (git's own, say)
//! brought into svc and into a baseline server, `git http-backend` behind nginx (see
//! [`peer`]), then the same operations timed on both in one run:
//!
//! - the import (`POST .../imports` + the bundle of every ref, or door pushes in steps
//!   where the server has no import yet) against `git push --mirror` to the peer;
//! - full and blobless (`--filter=blob:none`) bare clones, and their bytes;
//! - `git ls-remote` (p50);
//! - getTree of the root against `git ls-tree`, getHistory of a busy file (first page)
//!   against `git log --first-parent -n <page>`, getLastCommits of the root on a fresh
//!   server process against `git log -1` per entry (a sample, extrapolated);
//! - branchDiff between two releases against `git diff --patience`;
//! - listBranches right after main moves (a one-commit merge) with `--far-branches`
//!   branches each ~`--far-commits` commits ahead of main;
//! - mergeBranch of the project's head, ~`--far-commits` commits ahead of main, against
//!   `git merge-tree --write-tree` + `commit-tree` + `update-ref`;
//! - the server's private memory (not the packs it maps) through all of it.
//!
//! To have far branches, `main` is set to an old release (`vX.Y.0`, the one about
//! `--far-commits` commits behind the head) and the project's head branch stays a branch.
//! A measure that fails prints its error and the bench goes on.

mod history;
mod memory;
mod peer;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::Value;

use super::common::{
    Server, bare_dir_with, dir_size, git, git_door, median, mib, print_load, print_machine, run,
    secs, timed, work_dir,
};
use memory::MemoryPoller;
use peer::Peer;

pub struct Options {
    pub repo: PathBuf,
    /// How far ahead of main the far branches are, in commits.
    pub far_commits: usize,
    pub far_branches: usize,
    /// Timed clones of each kind (the median is reported).
    pub runs: usize,
    /// Timed requests of the quick reads (p50 is reported).
    pub samples: usize,
    /// Root entries timed with `git log -1` (spread over the root), extrapolated to all.
    pub sample: usize,
    pub busy_path: String,
    pub keep: bool,
}

/// The repo's path in the monorepo.
const REPO: &str = "git";

/// One line of the table.
struct Row {
    measure: String,
    svc: String,
    baseline: String,
    ratio: Option<f64>,
    goal: String,
    pass: Option<bool>,
}

impl Row {
    /// svc against a baseline time, passing when the ratio is at most `goal`.
    fn timed(measure: &str, svc: Duration, baseline: Duration, goal: f64) -> Row {
        let ratio = svc.as_secs_f64() / baseline.as_secs_f64().max(1e-9);
        Row {
            measure: measure.to_owned(),
            svc: ms(svc),
            baseline: ms(baseline),
            ratio: Some(ratio),
            goal: format!("<= {goal}x"),
            pass: Some(ratio <= goal),
        }
    }
}

impl Row {
    /// The row as a line of the table.
    fn line(&self) -> String {
        let ratio = self
            .ratio
            .map_or_else(|| "-".to_owned(), |r| format!("{r:.3}"));
        let pass = match self.pass {
            Some(true) => "pass",
            Some(false) => "FAIL",
            None => "-",
        };
        format!(
            "{:<52} {:>14} {:>14} {:>8} {:>10}  {pass}",
            self.measure, self.svc, self.baseline, ratio, self.goal
        )
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("real-repo")?;
    let mut bench = Bench::prepare(&opts, &dir).await?;
    let result = bench.run(&opts).await;
    bench.print_table();
    drop(bench);
    if opts.keep {
        println!("kept {}", dir.display());
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    result
}

struct Bench {
    dir: PathBuf,
    src: PathBuf,
    data: PathBuf,
    server: Server,
    client: reqwest::Client,
    token: String,
    full: String,
    url: String,
    /// Serves the baseline for as long as the bench runs.
    _peer: Peer,
    peer_repo: PathBuf,
    peer_url: String,
    memory: MemoryPoller,
    /// The old release main is set to, the next one, and the project's head branch.
    base_tag: String,
    next_tag: String,
    far: String,
    rows: Vec<Row>,
    peaks: Vec<(String, u64)>,
}

impl Bench {
    async fn prepare(opts: &Options, dir: &Path) -> anyhow::Result<Bench> {
        let src = dir.join("src.git");
        let took = timed(
            git(dir)
                .args(["clone", "-q", "--bare"])
                .arg(&opts.repo)
                .arg(&src),
        )?;
        println!(
            "copied {} (branches and tags) in {}",
            opts.repo.display(),
            secs(took)
        );
        let head_ref = run(git(&src).args(["symbolic-ref", "--short", "HEAD"]))?;
        let far = if head_ref == "main" {
            run(git(&src).args(["branch", "-m", "main", "project-main"]))?;
            "project-main".to_owned()
        } else {
            head_ref
        };
        let (base_tag, next_tag, ahead) = releases(&src, &far, opts.far_commits)?;
        run(git(&src).args([
            "update-ref",
            "refs/heads/main",
            &format!("{base_tag}^{{commit}}"),
        ]))?;
        run(git(&src).args(["symbolic-ref", "HEAD", "refs/heads/main"]))?;
        let commits = run(git(&src).args(["rev-list", "--count", "--all"]))?;
        let refs = run(git(&src).args(["for-each-ref", "--format=x"]))?
            .lines()
            .count();
        println!(
            "repository: {commits} commits, {refs} refs, {} of packs; main at {base_tag}, \
             {far} {ahead} commits ahead of it; releases compared: {base_tag}..{next_tag}",
            mib(dir_size(&src.join("objects")))
        );

        let data = dir.join("data");
        let server = Server::start(&data, None, &dir.join("server.log")).await?;
        let memory = MemoryPoller::start(server.pid());
        let client = reqwest::Client::new();
        let api = super::common::Api::bootstrap(&server).await?;
        let m = api
            .post("/v1/monorepos", serde_json::json!({"name": "bench"}))
            .await?;
        let full = m["full_name"].as_str().context("no full_name")?.to_owned();
        let peer_root = dir.join("peer-repos");
        std::fs::create_dir_all(&peer_root)?;
        let peer = Peer::start(&dir.join("nginx"), &peer_root)?;
        let peer_repo = peer.init("git.git")?;
        let peer_url = peer.url("git.git");
        println!("svc-server pid {}, nginx at {}", server.pid(), peer.url(""));
        Ok(Bench {
            dir: dir.to_owned(),
            src,
            data,
            server,
            client,
            token: api.token,
            full,
            url: String::new(),
            _peer: peer,
            peer_repo,
            peer_url,
            memory,
            base_tag,
            next_tag,
            far,
            rows: Vec::new(),
            peaks: Vec::new(),
        })
    }

    async fn run(&mut self, opts: &Options) -> anyhow::Result<()> {
        // Without the history in, nothing else can be measured.
        let import = self.import().await;
        let imported = import.is_ok();
        self.record("import", import);
        if !imported {
            bail!("the history did not come in");
        }
        if let Err(e) = self.settle() {
            println!("could not wait for the server's repack: {e:#}");
        }
        if let Err(e) = self.settle_facts().await {
            println!("could not wait for the branches' facts: {e:#}");
        }
        let r = self.clones(opts);
        self.record("clones", r);
        let r = self.ls_remote(opts);
        self.record("ls-remote", r);
        let r = self.tree(opts).await;
        self.record("getTree", r);
        let r = self.history(opts).await;
        self.record("getHistory", r);
        let r = self.last_commits(opts).await;
        self.record("getLastCommits", r);
        let r = self.branch_diff().await;
        self.record("branchDiff", r);
        let r = self.branch_list(opts).await;
        self.record("listBranches", r);
        let r = self.merge().await;
        self.record("merge", r);
        let peak = self.memory.overall_peak();
        self.rows.push(Row {
            measure: "server private memory, peak".into(),
            svc: format!("{:.1} MiB", peak as f64 / 1024.0),
            baseline: "-".into(),
            ratio: None,
            goal: "-".into(),
            pass: None,
        });
        print_load();
        Ok(())
    }

    /// Adds a measure's rows, or its error, and the memory peak while it ran.
    fn record(&mut self, name: &str, result: anyhow::Result<Vec<Row>>) {
        match result {
            Ok(rows) => {
                for row in &rows {
                    println!("[{name}] {}", row.line());
                }
                self.rows.extend(rows);
            }
            Err(e) => {
                println!("{name} FAILED: {e:#}");
                self.rows.push(Row {
                    measure: name.to_owned(),
                    svc: "error".into(),
                    baseline: "-".into(),
                    ratio: None,
                    goal: "-".into(),
                    pass: Some(false),
                });
            }
        }
        let peak = self.memory.take_peak();
        println!(
            "[{name}] server private memory peak: {:.1} MiB",
            peak as f64 / 1024.0
        );
        self.peaks.push((name.to_owned(), peak));
    }

    fn print_table(&self) {
        println!();
        println!(
            "{:<52} {:>14} {:>14} {:>8} {:>10}  result",
            "measure", "svc", "baseline", "ratio", "goal"
        );
        for row in &self.rows {
            println!("{}", row.line());
        }
        let peaks: Vec<String> = self
            .peaks
            .iter()
            .map(|(n, kb)| format!("{n} {:.0}", *kb as f64 / 1024.0))
            .collect();
        println!(
            "server private memory peak per measure (MiB): {}",
            peaks.join(", ")
        );
    }

    /// `{server}/v1/monorepos/{full}/repos/git`.
    fn api(&self) -> String {
        format!(
            "{}/v1/monorepos/{}/repos/{REPO}",
            self.server.base, self.full
        )
    }

    async fn get(&self, url: &str) -> anyhow::Result<(Duration, Value)> {
        let start = Instant::now();
        let r = self.client.get(url).bearer_auth(&self.token).send().await?;
        let status = r.status();
        let text = r.text().await?;
        let took = start.elapsed();
        if !status.is_success() {
            bail!("GET {url}: {status}: {text}");
        }
        Ok((took, serde_json::from_str(&text)?))
    }

    async fn import(&mut self) -> anyhow::Result<Vec<Row>> {
        let mirror = timed(git(&self.src).args(["push", "-q", "--mirror", &self.peer_url]))?;
        println!("git push --mirror to nginx: {}", secs(mirror));
        let imported = history::import(
            &self.client,
            &self.server.base,
            &self.token,
            &self.full,
            REPO,
            &self.src,
        )
        .await?;
        println!("into svc by {}: {}", imported.how, secs(imported.took));
        self.url = imported.clone_url;
        let svc_refs = run(git_door(&self.dir, &self.token).args(["ls-remote", &self.url]))?;
        let peer_refs = run(git(&self.dir).args(["ls-remote", &self.peer_url]))?;
        let (a, b) = (branches_and_tags(&svc_refs), branches_and_tags(&peer_refs));
        if a != b {
            println!(
                "WARNING: svc and nginx advertise different refs ({} against {})",
                a.len(),
                b.len()
            );
        }
        let mut row = Row::timed(
            &format!("import ({})", short_how(&imported.how)),
            imported.took,
            mirror,
            1.2,
        );
        row.svc = secs(imported.took);
        row.baseline = secs(mirror);
        Ok(vec![row])
    }

    /// Waits for the server's background repack (started when pushes leave 4 packs or
    /// more) so it does not run under the clones; then gives the peer's repository the
    /// same shape (one pack with a bitmap) when the server's has it, as `git gc` would.
    fn settle(&self) -> anyhow::Result<()> {
        let main = run(git(&self.src).args(["rev-parse", "refs/heads/main"]))?;
        let bare = bare_dir_with(&self.data, &main)?;
        let packs = |dir: &Path, ext: &str| {
            std::fs::read_dir(dir.join("objects/pack")).map_or(0, |d| {
                d.flatten()
                    .filter(|e| e.path().extension().is_some_and(|x| x == ext))
                    .count()
            })
        };
        let start = Instant::now();
        while packs(&bare, "pack") >= 4 && start.elapsed() < Duration::from_secs(300) {
            std::thread::sleep(Duration::from_secs(2));
        }
        println!(
            "svc's repository {}: {} packs, {} bitmaps (waited {} for repacks)",
            bare.display(),
            packs(&bare, "pack"),
            packs(&bare, "bitmap"),
            secs(start.elapsed())
        );
        if packs(&bare, "bitmap") > 0 {
            let took = timed(git(&self.peer_repo).args(["repack", "-adbq"]))?;
            println!("git repack -adb in nginx's copy, to match: {}", secs(took));
        }
        Ok(())
    }

    fn clone_cmd(&self, svc: bool, dest: &Path, extra: &[&str]) -> Command {
        let mut cmd = if svc {
            git_door(&self.dir, &self.token)
        } else {
            git(&self.dir)
        };
        cmd.args(["clone", "-q", "--bare"]).args(extra);
        cmd.arg(if svc { &self.url } else { &self.peer_url })
            .arg(dest);
        cmd
    }

    fn clones(&self, opts: &Options) -> anyhow::Result<Vec<Row>> {
        let mut rows = Vec::new();
        let mut full_bytes = 0;
        for (label, extra) in [
            ("full clone", &[][..]),
            ("blobless clone", &["--filter=blob:none"][..]),
        ] {
            let (mut svc, mut peer) = (Vec::new(), Vec::new());
            let (mut svc_bytes, mut peer_bytes) = (0, 0);
            for i in 0..opts.runs {
                for on_svc in [false, true] {
                    let dest = self.dir.join(format!("clone-{on_svc}-{i}"));
                    let took = timed(&mut self.clone_cmd(on_svc, &dest, extra))?;
                    let bytes = dir_size(&dest.join("objects"));
                    println!(
                        "{label} run {} from {}: {}, {}",
                        i + 1,
                        if on_svc { "svc" } else { "nginx" },
                        secs(took),
                        mib(bytes)
                    );
                    std::fs::remove_dir_all(&dest)?;
                    if on_svc {
                        svc.push(took);
                        svc_bytes = bytes;
                    } else {
                        peer.push(took);
                        peer_bytes = bytes;
                    }
                }
            }
            let (svc, peer) = (median(svc), median(peer));
            let mut row = Row::timed(label, svc, peer, 1.0);
            row.svc = secs(svc);
            row.baseline = secs(peer);
            rows.push(row);
            println!("{label}: svc {}, nginx {}", mib(svc_bytes), mib(peer_bytes));
            if extra.is_empty() {
                full_bytes = svc_bytes;
            } else {
                let ratio = svc_bytes as f64 / full_bytes.max(1) as f64;
                rows.push(Row {
                    measure: "blobless clone bytes / full clone bytes".into(),
                    svc: mib(svc_bytes),
                    baseline: mib(full_bytes),
                    ratio: Some(ratio),
                    goal: "< 0.25".into(),
                    pass: Some(ratio < 0.25),
                });
            }
        }
        Ok(rows)
    }

    fn ls_remote(&self, opts: &Options) -> anyhow::Result<Vec<Row>> {
        let (mut svc, mut peer) = (Vec::new(), Vec::new());
        for _ in 0..opts.samples {
            peer.push(timed(git(&self.dir).args(["ls-remote", &self.peer_url]))?);
            svc.push(timed(
                git_door(&self.dir, &self.token).args(["ls-remote", &self.url]),
            )?);
        }
        Ok(vec![Row::timed(
            "git ls-remote, p50",
            median(svc),
            median(peer),
            0.6,
        )])
    }

    /// p50 of `samples` runs of a git command in the peer's repository (after one).
    fn git_p50(&self, samples: usize, args: &[&str]) -> anyhow::Result<(Duration, String)> {
        let out = run(git(&self.peer_repo).args(args))?;
        let mut times = Vec::new();
        for _ in 0..samples {
            times.push(timed(git(&self.peer_repo).args(args))?);
        }
        Ok((median(times), out))
    }

    async fn tree(&self, opts: &Options) -> anyhow::Result<Vec<Row>> {
        let (git_p50, listing) = self.git_p50(opts.samples, &["ls-tree", "main"])?;
        let mut times = Vec::new();
        let mut entries = 0;
        for _ in 0..=opts.samples {
            let start = Instant::now();
            let mut cursor: Option<String> = None;
            entries = 0;
            loop {
                let mut url = format!("{}/tree?ref=main&path=", self.api());
                if let Some(c) = &cursor {
                    url.push_str(&format!("&cursor={c}"));
                }
                let (_, page) = self.get(&url).await?;
                entries += page["items"].as_array().map_or(0, Vec::len);
                match page["next_cursor"].as_str() {
                    Some(c) => cursor = Some(c.to_owned()),
                    None => break,
                }
            }
            times.push(start.elapsed());
        }
        times.remove(0);
        let want = listing.lines().count();
        if entries != want {
            println!("WARNING: getTree gave {entries} entries, git ls-tree {want}");
        }
        Ok(vec![Row::timed(
            &format!("getTree of the root ({entries} entries), p50"),
            median(times),
            git_p50,
            2.0,
        )])
    }

    async fn history(&self, opts: &Options) -> anyhow::Result<Vec<Row>> {
        let path = &opts.busy_path;
        let url = format!("{}/history?ref=main&path={path}", self.api());
        let (_, first) = self.get(&url).await?;
        let page = first["items"].as_array().map_or(0, Vec::len);
        let n = format!("-n{}", page.max(1));
        let args = [
            "log",
            "--first-parent",
            n.as_str(),
            "--format=%H",
            "main",
            "--",
            path.as_str(),
        ];
        let (git_p50, shas) = self.git_p50(opts.samples, &args)?;
        let got: Vec<&str> = first["items"]
            .as_array()
            .map(|items| items.iter().filter_map(|c| c["sha"].as_str()).collect())
            .unwrap_or_default();
        if got != shas.lines().collect::<Vec<_>>() {
            println!("WARNING: getHistory's first page differs from git log --first-parent");
        }
        let whole = timed(git(&self.peer_repo).args([
            "log",
            "--first-parent",
            "--format=%H",
            "main",
            "--",
            path,
        ]))?;
        println!(
            "git log --first-parent -- {path} (the whole history, for reference): {}",
            secs(whole)
        );
        let mut times = Vec::new();
        for _ in 0..opts.samples {
            times.push(self.get(&url).await?.0);
        }
        Ok(vec![Row::timed(
            &format!("getHistory {path}, first page ({page}), p50"),
            median(times),
            git_p50,
            1.0,
        )])
    }

    async fn last_commits(&mut self, opts: &Options) -> anyhow::Result<Vec<Row>> {
        // Cold: a fresh server process on the same data.
        let old = self.server.base.clone();
        self.server = Server::start(&self.data, None, &self.dir.join("server-cold.log")).await?;
        self.memory.follow(self.server.pid());
        self.url = self.url.replace(&old, &self.server.base);
        let url = format!("{}/last-commits?ref=main&path=", self.api());
        let start = Instant::now();
        let mut requests = 0;
        let answer = loop {
            requests += 1;
            let (_, got) = self.get(&url).await?;
            if got["complete"] == true {
                break got;
            }
            let wait = got["retry_after_ms"].as_u64().unwrap_or(100);
            tokio::time::sleep(Duration::from_millis(wait)).await;
        };
        let cold = start.elapsed();
        let entries = answer["entries"].as_array().context("no entries")?;
        let n = entries.len();
        let step = n.div_ceil(opts.sample.max(1)).max(1);
        let mut git_total = Duration::ZERO;
        let (mut timed_entries, mut differ) = (0, 0);
        for entry in entries.iter().step_by(step) {
            let name = entry["path"].as_str().context("no path")?;
            let start = Instant::now();
            let sha =
                run(git(&self.peer_repo).args(["log", "-1", "--format=%H", "main", "--", name]))?;
            git_total += start.elapsed();
            timed_entries += 1;
            if entry["commit"]["sha"].as_str() != Some(sha.as_str()) {
                differ += 1;
            }
        }
        let per_entry = git_total / timed_entries.max(1) as u32;
        println!(
            "getLastCommits of the root, cold: {} in {requests} requests for {n} entries; \
             git log -1: {} per entry over {timed_entries} entries ({differ} answered \
             another commit than svc)",
            secs(cold),
            ms(per_entry)
        );
        let mut row = Row::timed(
            &format!("getLastCommits root cold vs git log -1 x {n}"),
            cold,
            per_entry * n as u32,
            0.05,
        );
        row.svc = secs(cold);
        row.baseline = secs(per_entry * n as u32);
        Ok(vec![row])
    }

    /// Pushes refs of the source repository to svc.
    fn push_svc(&self, refspecs: &[String]) -> anyhow::Result<Duration> {
        timed(
            git_door(&self.src, &self.token)
                .args(["push", "-q", &self.url])
                .args(refspecs),
        )
    }

    async fn branch_diff(&self) -> anyhow::Result<Vec<Row>> {
        let next =
            run(git(&self.src).args(["rev-parse", &format!("{}^{{commit}}", self.next_tag)]))?;
        self.push_svc(&[format!("{next}:refs/heads/release-next")])?;
        self.wait_facts("release-next", Duration::from_secs(300))
            .await?;
        let url = format!(
            "{}/branches/release-next/diff?patches=1&stream=1",
            self.api()
        );
        let start = Instant::now();
        let mut r = self
            .client
            .get(&url)
            .bearer_auth(&self.token)
            .send()
            .await?;
        if !r.status().is_success() {
            bail!("GET {url}: {}: {}", r.status(), r.text().await?);
        }
        let mut bytes = 0;
        while let Some(chunk) = r.chunk().await? {
            bytes += chunk.len();
        }
        let svc = start.elapsed();
        let start = Instant::now();
        let mut child = git(&self.peer_repo)
            .args([
                "diff",
                "--patience",
                "--no-color",
                &self.base_tag,
                &self.next_tag,
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()?;
        let mut out = Vec::new();
        child
            .stdout
            .take()
            .context("no stdout")?
            .read_to_end(&mut out)?;
        if !child.wait()?.success() {
            bail!("git diff failed");
        }
        let baseline = start.elapsed();
        println!(
            "branchDiff {}..{}: svc {} ({bytes} bytes streamed), git diff --patience {} \
             ({} bytes)",
            self.base_tag,
            self.next_tag,
            secs(svc),
            secs(baseline),
            out.len()
        );
        Ok(vec![Row::timed(
            &format!("branchDiff {}..{}", self.base_tag, self.next_tag),
            svc,
            baseline,
            1.0,
        )])
    }

    /// Waits for the background facts of every imported branch (5 minutes at most in
    /// all), so they do not share the CPU with the clones.
    async fn settle_facts(&self) -> anyhow::Result<()> {
        let start = Instant::now();
        let heads =
            run(git(&self.src).args(["for-each-ref", "--format=%(refname:short)", "refs/heads/"]))?;
        for branch in heads.lines().filter(|b| *b != "main") {
            self.wait_facts(
                branch,
                Duration::from_secs(300).saturating_sub(start.elapsed()),
            )
            .await?;
        }
        Ok(())
    }

    /// Waits (up to `limit`) for a branch's background facts, so they do not share the
    /// CPU with what is timed next.
    async fn wait_facts(&self, branch: &str, limit: Duration) -> anyhow::Result<()> {
        let start = Instant::now();
        loop {
            let (_, b) = self
                .get(&format!("{}/branches/{branch}", self.api()))
                .await?;
            let stale = b["stale"] != false;
            if !stale || start.elapsed() >= limit {
                println!(
                    "facts of {branch}: waited {}{}",
                    secs(start.elapsed()),
                    if stale { " (still stale)" } else { "" }
                );
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    async fn branch_list(&self, opts: &Options) -> anyhow::Result<Vec<Row>> {
        let mut refspecs = Vec::new();
        for k in 1..=opts.far_branches {
            let parent = run(git(&self.src).args(["rev-parse", &format!("{}~{k}", self.far)]))?;
            let sha = run(git(&self.src).args([
                "commit-tree",
                &format!("{parent}^{{tree}}"),
                "-p",
                &parent,
                "-m",
                &format!("far branch {k}"),
            ]))?;
            refspecs.push(format!("{sha}:refs/heads/far-{k:02}"));
        }
        let small = self.small()?;
        refspecs.push(format!("{small}:refs/heads/small"));
        let took = self.push_svc(&refspecs)?;
        run(git(&self.src).args([
            "push",
            "-q",
            &self.peer_url,
            &format!("{small}:refs/heads/small"),
        ]))?;
        println!(
            "pushed {} far branches and `small` to svc: {}",
            opts.far_branches,
            secs(took)
        );

        // Their facts computed, as they would be long before main moves.
        let list = format!("{}/branches?limit=100", self.api());
        let start = Instant::now();
        loop {
            let (took, page) = self.get(&list).await?;
            let stale = stale_rows(&page);
            println!(
                "listBranches before main moves: {} ({stale} stale rows)",
                secs(took)
            );
            if stale == 0 || start.elapsed() > Duration::from_secs(300) {
                break;
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
        let merged = self.merge_svc("small").await?;
        println!("merge of `small` (one commit) into main: {}", secs(merged));
        let (took, page) = self.get(&list).await?;
        let (again, _) = self.get(&list).await?;
        println!(
            "listBranches right after main moved: {} ({} stale rows, {} pending); again: {}",
            secs(took),
            stale_rows(&page),
            page["items"].as_array().map_or(0, |i| i
                .iter()
                .filter(|b| b["mergeable"] == "pending")
                .count()),
            secs(again)
        );
        Ok(vec![Row {
            measure: format!("listBranches after main moves, {} far", opts.far_branches),
            svc: ms(took),
            baseline: "-".into(),
            ratio: None,
            goal: "< 200 ms".into(),
            pass: Some(took < Duration::from_millis(200)),
        }])
    }

    /// A one-commit branch on main (the same tree as main).
    fn small(&self) -> anyhow::Result<String> {
        run(git(&self.src).args([
            "commit-tree",
            "main^{tree}",
            "-p",
            "main",
            "-m",
            "a small change",
        ]))
    }

    /// mergeBranch, forced when the checks ask for it; answers its time.
    async fn merge_svc(&self, branch: &str) -> anyhow::Result<Duration> {
        let url = format!("{}/branches/{branch}/merge", self.api());
        let start = Instant::now();
        let mut r = self
            .client
            .post(&url)
            .bearer_auth(&self.token)
            .send()
            .await?;
        if matches!(r.status().as_u16(), 412 | 503) {
            r = self
                .client
                .post(format!("{url}?force=1"))
                .bearer_auth(&self.token)
                .send()
                .await?;
        }
        let took = start.elapsed();
        if !r.status().is_success() {
            bail!("POST {url}: {}: {}", r.status(), r.text().await?);
        }
        Ok(took)
    }

    async fn merge(&self) -> anyhow::Result<Vec<Row>> {
        // The peer's main takes the same one-commit merge first.
        self.git_merge("small")?;
        let svc = self.merge_svc(&self.far).await?;
        let baseline = self.git_merge(&self.far)?;
        println!(
            "merge of {} into main: svc {}, git merge-tree + commit-tree + update-ref {}",
            self.far,
            secs(svc),
            secs(baseline)
        );
        let mut row = Row::timed(
            &format!("merge of {} (far branch)", self.far),
            svc,
            baseline,
            2.0,
        );
        row.svc = secs(svc);
        row.baseline = secs(baseline);
        Ok(vec![row])
    }

    /// A merge of `branch` into main in the peer's repository, the way a server would
    /// make it with git alone; answers its time.
    fn git_merge(&self, branch: &str) -> anyhow::Result<Duration> {
        let repo = &self.peer_repo;
        let start = Instant::now();
        let out = run(git(repo).args(["merge-tree", "--write-tree", "main", branch]))?;
        let tree = out.lines().next().context("no tree from merge-tree")?;
        let commit = run(git(repo).args([
            "commit-tree",
            tree,
            "-p",
            "main",
            "-p",
            branch,
            "-m",
            &format!("Merge {branch}"),
        ]))?;
        run(git(repo).args(["update-ref", "refs/heads/main", &commit]))?;
        Ok(start.elapsed())
    }
}

fn stale_rows(page: &Value) -> usize {
    page["items"]
        .as_array()
        .map_or(0, |i| i.iter().filter(|b| b["stale"] == true).count())
}

fn short_how(how: &str) -> &str {
    if how.starts_with("import") {
        "import API"
    } else {
        "door pushes"
    }
}

/// The `sha ref` lines of branches and tags in an `ls-remote` listing, sorted.
fn branches_and_tags(listing: &str) -> Vec<&str> {
    let mut refs: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains("\trefs/heads/") || l.contains("\trefs/tags/"))
        .collect();
    refs.sort_unstable();
    refs
}

/// The release `vX.Y.0` whose distance behind `head` (commits `head` has and it lacks)
/// is nearest `far`, the release after it, and that distance.
fn releases(src: &Path, head: &str, far: usize) -> anyhow::Result<(String, String, usize)> {
    let tags = run(git(src).args(["tag", "--list", "v*.0", "--merged", head]))?;
    let mut releases: Vec<(Vec<u64>, &str)> = tags
        .lines()
        .filter_map(|t| {
            let parts: Option<Vec<u64>> = t
                .trim_start_matches('v')
                .split('.')
                .map(|p| p.parse().ok())
                .collect();
            parts.filter(|p| p.len() == 3).map(|p| (p, t))
        })
        .collect();
    releases.sort();
    let mut best: Option<(usize, usize)> = None;
    // Newest first: the distance grows with age, so stop once past `far`.
    for i in (0..releases.len().saturating_sub(1)).rev() {
        let count: usize =
            run(git(src).args(["rev-list", "--count", &format!("{}..{head}", releases[i].1)]))?
                .parse()?;
        if best.is_none_or(|(_, c)| count.abs_diff(far) < c.abs_diff(far)) {
            best = Some((i, count));
        }
        if count > far {
            break;
        }
    }
    let (i, count) = best.context("no two releases vX.Y.0 in the history")?;
    Ok((
        releases[i].1.to_owned(),
        releases[i + 1].1.to_owned(),
        count,
    ))
}
