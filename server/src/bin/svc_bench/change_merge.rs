//! `svc-bench change-merge`: mergeChange landing the branches of one name in `--repos`
//! repos (5) of one monorepo, against mergeBranch of one branch in one of them, in the
//! same run: p50 and p99 of `--runs` rounds after a warm-up, the two alternating. Each
//! round's branches are written first through the API (one commit each, a file of their
//! own), untimed; each merge is forced (no checks are configured). Each merge is timed
//! alone: the bench lets the server settle ([`SETTLE`]) before it, so that the work the
//! writes or the other merge queued in the background (their branches' facts) is not
//! timed as part of it.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::branches::{ms, percentile};
use super::common::{Api, Server, print_load, print_machine, work_dir};

/// The pause before each timed merge: far longer than the background work a round's
/// writes and merges queue (facts of a few one-commit branches) takes.
const SETTLE: Duration = Duration::from_millis(150);

pub struct Options {
    pub repos: usize,
    pub runs: usize,
    pub database_url: Option<String>,
    pub keep: bool,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("change-merge")?;
    let server = Server::start(
        &dir.join("data"),
        opts.database_url.as_deref(),
        &dir.join("server.log"),
    )
    .await?;
    let api = Api::bootstrap(&server).await?;
    let m = api.post("/v1/monorepos", json!({"name": "bench"})).await?;
    let full = m["full_name"]
        .as_str()
        .context("no full_name for the monorepo")?
        .to_owned();
    let base = format!("/v1/monorepos/{full}");
    let names: Vec<String> = (0..opts.repos).map(|i| format!("r{i}")).collect();
    for name in &names {
        api.post(&format!("{base}/repos"), json!({"path": name}))
            .await?;
        write(&api, &base, name, "main", "README", "base").await?;
    }
    println!(
        "{} repos, {} timed rounds of each (after one warm-up), alternating; store: {}",
        opts.repos,
        opts.runs,
        if opts.database_url.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        }
    );
    print_load();

    let http = reqwest::Client::new();
    let (mut change, mut single) = (Vec::new(), Vec::new());
    for round in 0..=opts.runs {
        let branch = format!("change-{round}");
        for name in &names {
            write(&api, &base, name, &branch, &format!("c{round}"), &branch).await?;
        }
        let lone = format!("single-{round}");
        write(&api, &base, &names[0], &lone, &format!("s{round}"), &lone).await?;

        tokio::time::sleep(SETTLE).await;
        let took = merge(
            &http,
            &api,
            &format!("{base}/changes/{branch}/merge?force=1"),
        )
        .await?;
        tokio::time::sleep(SETTLE).await;
        let one = merge(
            &http,
            &api,
            &format!("{}/repos/{}/branches/{lone}/merge?force=1", base, names[0]),
        )
        .await?;
        if round > 0 {
            change.push(took);
            single.push(one);
        }
    }
    let (c50, s50) = (percentile(&change, 50), percentile(&single, 50));
    println!(
        "mergeChange ({} repos): p50 {} p99 {}",
        opts.repos,
        ms(c50),
        ms(percentile(&change, 99))
    );
    println!(
        "mergeBranch (1 repo):  p50 {} p99 {}",
        ms(s50),
        ms(percentile(&single, 99))
    );
    let ratio = c50.as_secs_f64() / s50.as_secs_f64();
    println!(
        "mergeChange p50 / mergeBranch p50: {ratio:.2}× (goal < 2×): {}",
        if ratio < 2.0 { "met" } else { "MISSED" }
    );
    server.stop();
    if !opts.keep {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// Writes `file` on `branch` of `repo` as one commit (making the branch from main).
async fn write(
    api: &Api,
    base: &str,
    repo: &str,
    branch: &str,
    file: &str,
    text: &str,
) -> anyhow::Result<()> {
    api.post(
        &format!("{base}/repos/{repo}/branches/{branch}/commits"),
        json!({"message": text, "files": [{"path": file, "content": format!("{text}\n")}]}),
    )
    .await?;
    Ok(())
}

/// Times one merge request, which must succeed.
async fn merge(http: &reqwest::Client, api: &Api, path: &str) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let r = http
        .post(format!("{}{path}", api.base))
        .bearer_auth(&api.token)
        .send()
        .await?;
    let status = r.status();
    let body: Value = r.json().await?;
    let took = start.elapsed();
    if !status.is_success() {
        bail!("{path}: {status} {body}");
    }
    Ok(took)
}
