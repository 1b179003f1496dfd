//! `svc-bench releases`: a 100,000,000-byte release file over loopback, in one run:
//!
//! - upload (`curl -T`, streamed from disk, with `X-Svc-Sha256`) against `sha256sum` of
//!   the file plus `cp` of it on the same disk: what storing a checked copy costs anyway;
//! - download (`curl -o`) from svc against `curl -o` of the same file from
//!   `python3 -m http.server`, as throughput;
//! - the RSS `svc-server` adds during each (VmRSS every 10 ms, peak minus the reading
//!   just before).
//!
//! Medians of `--runs`, the two sides alternating which goes first.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::common::{
    Api, Lcg, RssPoller, Server, free_port, git, git_door, median, print_load, print_machine, run,
    secs, timed, work_dir,
};

/// The file's size: the largest a release file may be.
const SIZE: usize = 100_000_000;

pub async fn run_bench(runs: usize) -> anyhow::Result<()> {
    print_machine();
    print_load();
    let dir = work_dir("releases")?;
    let server = Server::start(&dir.join("data"), None, &dir.join("server.log")).await?;
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "app").await?;
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    run(git(&work).args(["init", "-q"]))?;
    std::fs::write(work.join("README"), "bench\n")?;
    run(git(&work).args(["add", "-A"]))?;
    run(git(&work).args(["commit", "-q", "-m", "first"]))?;
    run(git_door(&work, &api.token).args(["push", "-q", &url, "main"]))?;
    let releases = format!("/v1/monorepos/{full}/repos/app/releases");
    api.post(&releases, json!({"tag": "v1"})).await?;

    let file = dir.join("file.bin");
    let mut bytes = vec![0u8; SIZE];
    Lcg(11).fill(&mut bytes);
    std::fs::write(&file, &bytes)?;
    let sha = hex::encode(Sha256::digest(&bytes));
    drop(bytes);
    let upload_url = format!("{}{releases}/v1/files/file.bin", api.base);
    let copies = dir.join("copies");
    std::fs::create_dir_all(&copies)?;

    // Upload against sha256sum + cp.
    let (mut ups, mut bases, mut up_rss) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..=runs {
        let upload = || -> anyhow::Result<(Duration, u64)> {
            let before = server.rss_kb();
            let poll = RssPoller::start(server.pid());
            let took = timed(curl(&api.token).args([
                "-T",
                &file.to_string_lossy(),
                "-H",
                &format!("X-Svc-Sha256: {sha}"),
                "-o",
                "/dev/null",
                &upload_url,
            ]))?;
            Ok((took, poll.finish().rss.saturating_sub(before)))
        };
        let baseline = || -> anyhow::Result<Duration> {
            let start = Instant::now();
            let sum = run(Command::new("sha256sum").arg(&file))?;
            if !sum.starts_with(&sha) {
                bail!("sha256sum disagrees: {sum}");
            }
            run(Command::new("cp").arg(&file).arg(copies.join("copy.bin")))?;
            Ok(start.elapsed())
        };
        let (up, base) = if round % 2 == 0 {
            let up = upload()?;
            (up, baseline()?)
        } else {
            let base = baseline()?;
            (upload()?, base)
        };
        // Round 0 warms the page cache and the server up.
        if round > 0 {
            ups.push(up.0);
            up_rss.push(up.1);
            bases.push(base);
        }
    }
    let (up, base) = (median(ups), median(bases));
    println!(
        "upload of {SIZE} bytes: median {} (svc) against {} (sha256sum + cp), ratio {:.2} (goal ≤ 1.5); server RSS growth peak {} kB (goal < 16 MB)",
        secs(up),
        secs(base),
        up.as_secs_f64() / base.as_secs_f64(),
        up_rss.iter().max().copied().unwrap_or_default()
    );

    // Download against python3 -m http.server serving the same file.
    let port = free_port()?;
    let mut python = Command::new("python3")
        .args([
            "-m",
            "http.server",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
        ])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start python3 -m http.server")?;
    let python_url = format!("http://127.0.0.1:{port}/file.bin");
    wait_for(&python_url).await?;
    let out = copies.join("download.bin");
    let (mut svc, mut py, mut down_rss) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..=runs {
        let from_svc = || -> anyhow::Result<(Duration, u64)> {
            let before = server.rss_kb();
            let poll = RssPoller::start(server.pid());
            let took = timed(curl(&api.token).args(["-o", &out.to_string_lossy(), &upload_url]))?;
            let peak = poll.finish().rss.saturating_sub(before);
            check_size(&out)?;
            Ok((took, peak))
        };
        let from_python = || -> anyhow::Result<Duration> {
            let took = timed(Command::new("curl").args([
                "-sS",
                "-f",
                "-o",
                &out.to_string_lossy(),
                &python_url,
            ]))?;
            check_size(&out)?;
            Ok(took)
        };
        let (s, p) = if round % 2 == 0 {
            let s = from_svc()?;
            (s, from_python()?)
        } else {
            let p = from_python()?;
            (from_svc()?, p)
        };
        if round > 0 {
            svc.push(s.0);
            down_rss.push(s.1);
            py.push(p);
        }
    }
    let _ = python.kill();
    let _ = python.wait();
    let mb_s = |d: Duration| SIZE as f64 / 1e6 / d.as_secs_f64();
    let (s, p) = (median(svc), median(py));
    println!(
        "download: median {} = {:.0} MB/s (svc) against {} = {:.0} MB/s (python3 -m http.server), throughput ratio {:.2} (goal ≥ 0.8); server RSS growth peak {} kB (goal < 16 MB)",
        secs(s),
        mb_s(s),
        secs(p),
        mb_s(p),
        mb_s(s) / mb_s(p),
        down_rss.iter().max().copied().unwrap_or_default()
    );
    print_load();
    server.stop();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// `curl` failing on HTTP errors, with the credential.
fn curl(token: &str) -> Command {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "-f", "-H", &format!("Authorization: Bearer {token}")]);
    cmd
}

fn check_size(path: &Path) -> anyhow::Result<()> {
    let len = std::fs::metadata(path)?.len();
    if len != SIZE as u64 {
        bail!("{} has {len} bytes, not {SIZE}", path.display());
    }
    Ok(())
}

async fn wait_for(url: &str) -> anyhow::Result<()> {
    let client = reqwest::Client::new();
    for _ in 0..200 {
        if client
            .head(url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    bail!("python3 -m http.server did not answer")
}
