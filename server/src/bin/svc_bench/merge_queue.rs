//! `svc-bench merge-queue`: `--branches` (20) green branches queued at once in a repo
//! with `merge_queue = true` and a required check `ci`, with a stand-in CI that follows
//! the `merge_group` events (pulled from the event log) and posts `ci: success` on each
//! speculative commit `--build-secs` (2) after it, through the API; the time from the
//! first mergeBranch until every entry landed. Against it, in the same run, the same
//! number of branches landed one after another without a queue in a second repo: each
//! one's build (the same wait) on its head, then mergeBranch. Goal: all land in < 3× one
//! build's time, pipelined.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::common::{Api, Server, print_load, print_machine, work_dir};

pub struct Options {
    pub branches: usize,
    pub build_secs: f64,
    pub database_url: Option<String>,
    pub keep: bool,
}

/// The queued repo and the one without a queue.
const QUEUED: &str = "queued";
const SERIAL: &str = "serial";

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("merge-queue")?;
    let server = Server::start(
        &dir.join("data"),
        opts.database_url.as_deref(),
        &dir.join("server.log"),
    )
    .await?;
    let api = Arc::new(Api::bootstrap(&server).await?);
    let m = api.post("/v1/monorepos", json!({"name": "bench"})).await?;
    let full = m["full_name"]
        .as_str()
        .context("no full_name for the monorepo")?
        .to_owned();
    let base = format!("/v1/monorepos/{full}");
    for name in [QUEUED, SERIAL] {
        api.post(&format!("{base}/repos"), json!({"path": name}))
            .await?;
        write(&api, &base, name, "main", "README", "base").await?;
    }
    let config = format!(
        "[repos.\"{QUEUED}\"]\nrequired_checks = [\"ci\"]\nmerge_queue = true\n\n\
         [repos.\"{SERIAL}\"]\nrequired_checks = [\"ci\"]\n"
    );
    write(&api, &base, "meta", "main", ".svc/svc.toml", &config).await?;
    let build = Duration::from_secs_f64(opts.build_secs);
    println!(
        "{} branches, a stand-in CI build of {:.1} s each; store: {}",
        opts.branches,
        build.as_secs_f64(),
        if opts.database_url.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        }
    );
    print_load();

    let names: Vec<String> = (0..opts.branches).map(|i| format!("b{i}")).collect();
    for name in &names {
        write(&api, &base, QUEUED, name, &format!("{name}.txt"), name).await?;
    }
    let queued = queue_run(&api, &base, &names, build).await?;

    let mut heads = Vec::new();
    for name in &names {
        let made = write(&api, &base, SERIAL, name, &format!("{name}.txt"), name).await?;
        heads.push(made);
    }
    let start = Instant::now();
    for (name, head) in names.iter().zip(&heads) {
        tokio::time::sleep(build).await;
        status(&api, &base, SERIAL, head).await?;
        merge(
            &api,
            &format!("{base}/repos/{SERIAL}/branches/{name}/merge"),
        )
        .await?;
    }
    let serial = start.elapsed();

    let goal = build.mul_f64(3.0);
    println!(
        "merge queue: {} branches landed in {:.2} s ({:.2}× one build; goal < 3×): {}",
        opts.branches,
        queued.as_secs_f64(),
        queued.as_secs_f64() / build.as_secs_f64(),
        if queued < goal { "met" } else { "MISSED" }
    );
    println!(
        "one after another: {} builds and merges in {:.2} s ({:.1}× the queue)",
        opts.branches,
        serial.as_secs_f64(),
        serial.as_secs_f64() / queued.as_secs_f64()
    );
    server.stop();
    if !opts.keep {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// Queues every branch at once and answers how long until every entry landed, the
/// stand-in CI building each speculative commit its `merge_group` event names.
async fn queue_run(
    api: &Arc<Api>,
    base: &str,
    names: &[String],
    build: Duration,
) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let mut ids = Vec::new();
    for name in names {
        let path = format!("{base}/repos/{QUEUED}/branches/{name}/merge");
        let r = reqwest::Client::new()
            .post(format!("{}{path}", api.base))
            .bearer_auth(&api.token)
            .send()
            .await?;
        let status = r.status();
        let body: Value = r.json().await?;
        if status != reqwest::StatusCode::ACCEPTED {
            bail!("{path}: {status} {body}");
        }
        ids.push(body["id"].as_str().context("no entry id")?.to_owned());
    }
    let mut since = 0;
    let mut built: HashSet<String> = HashSet::new();
    let deadline = start + Duration::from_secs(600);
    loop {
        let page = api
            .get(&format!(
                "{base}/events?since={since}&kinds=merge_group&limit=500"
            ))
            .await?;
        for e in page["items"].as_array().into_iter().flatten() {
            since = since.max(e["seq"].as_i64().unwrap_or_default());
            let Some(head) = e["head"].as_str() else {
                continue;
            };
            if built.insert(head.to_owned()) {
                let (api, base, head) = (Arc::clone(api), base.to_owned(), head.to_owned());
                tokio::spawn(async move {
                    tokio::time::sleep(build).await;
                    if let Err(e) = status(&api, &base, QUEUED, &head).await {
                        eprintln!("the stand-in CI could not post: {e:#}");
                    }
                });
            }
        }
        let queue = api.get(&format!("{base}/repos/{QUEUED}/queue")).await?;
        let entries = queue["entries"].as_array().cloned().unwrap_or_default();
        let landed = ids
            .iter()
            .filter(|id| {
                entries
                    .iter()
                    .any(|e| e["id"] == id.as_str() && e["state"] == "landed")
            })
            .count();
        if let Some(e) = entries.iter().find(|e| e["state"] == "left") {
            bail!("an entry left the queue: {e}");
        }
        if landed == ids.len() {
            let took = start.elapsed();
            println!(
                "{} speculative commits built for {} entries",
                built.len(),
                ids.len()
            );
            return Ok(took);
        }
        if Instant::now() > deadline {
            bail!("the queue did not drain in 10 minutes: {queue}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Writes `file` on `branch` of `repo` as one commit (making the branch from main);
/// answers the commit.
async fn write(
    api: &Api,
    base: &str,
    repo: &str,
    branch: &str,
    file: &str,
    text: &str,
) -> anyhow::Result<String> {
    let made = api
        .post(
            &format!("{base}/repos/{repo}/branches/{branch}/commits"),
            json!({"message": branch, "files": [{"path": file, "content": format!("{text}\n")}]}),
        )
        .await?;
    Ok(made["sha"].as_str().unwrap_or_default().to_owned())
}

/// Posts `ci: success` on `sha`.
async fn status(api: &Api, base: &str, repo: &str, sha: &str) -> anyhow::Result<()> {
    api.post(
        &format!("{base}/repos/{repo}/statuses/{sha}"),
        json!({"context": "ci", "state": "success"}),
    )
    .await?;
    Ok(())
}

/// mergeBranch, which must land (200).
async fn merge(api: &Api, path: &str) -> anyhow::Result<()> {
    let r = reqwest::Client::new()
        .post(format!("{}{path}", api.base))
        .bearer_auth(&api.token)
        .send()
        .await?;
    let status = r.status();
    if status != reqwest::StatusCode::OK {
        let body = r.text().await.unwrap_or_default();
        bail!("{path}: {status} {body}");
    }
    Ok(())
}
