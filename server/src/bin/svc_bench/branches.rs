//! `svc-bench branch-list`: one repo with main and 10,000 branches (one commit each on
//! main, made with `git fast-import`) pushed through the git door in batches of 1,000
//! refspecs, then:
//!
//! - how long the background facts took for every branch (counted as `branch.updated`
//!   events in the monorepo's event stream, polled once a second);
//! - `listBranches` timed on one keep-alive client, `--runs` requests each after 10
//!   untimed ones: the first page (30 rows), `?limit=100`, and a deep page (`cursor` at
//!   the middle row), against `getRepo` (one authenticated read) as the baseline; on
//!   PostgreSQL all of it again after `ANALYZE`, since the planner picks the list's
//!   ordered index scan only with table statistics, which autovacuum may not have
//!   gathered (it is off in CI).
//!
//! Every timed page must be all fresh facts, so no request computes any.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use reqwest::header::AUTHORIZATION;
use svc_protocol::branch::BranchList;

use super::common::{
    Api, Server, fast_import, git, git_door, print_load, print_machine, run, secs, timed, work_dir,
};

/// Refspecs per push.
const BATCH: usize = 1_000;
/// Untimed requests before each timed series.
const WARM_UP: usize = 10;
/// Give up waiting for facts after this long without progress.
const STALL: Duration = Duration::from_secs(120);
/// The list's goal for p50.
const GOAL: Duration = Duration::from_millis(10);

pub struct Options {
    pub branches: usize,
    pub runs: usize,
    pub database_url: Option<String>,
    pub keep: bool,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    if opts.branches < 2 {
        bail!("--branches must be at least 2");
    }
    print_machine();
    let dir = work_dir("branch-list")?;
    let server = Server::start(
        &dir.join("data"),
        opts.database_url.as_deref(),
        &dir.join("server.log"),
    )
    .await?;
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "list").await?;
    println!(
        "backend: {}",
        if opts.database_url.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        }
    );

    let local = dir.join("gen.git");
    let start = Instant::now();
    generate(&local, opts.branches)?;
    println!(
        "generated main and {} branches (one commit each on main) in {}",
        opts.branches,
        secs(start.elapsed())
    );
    run(git_door(&local, &api.token).args(["push", "-q", &url, "main:refs/heads/main"]))?;

    let client = Client::new(&server, &api.token);
    let events = format!("/v1/monorepos/{full}/events");
    let mut seq = client
        .json::<serde_json::Value>(&format!("{events}?limit=1"))
        .await?["seq"]
        .as_i64()
        .context("no seq in the event page")?;
    let pushed = Instant::now();
    let names: Vec<String> = (0..opts.branches).map(branch_name).collect();
    let mut batches = Vec::new();
    for batch in names.chunks(BATCH) {
        let mut push = git_door(&local, &api.token);
        push.args(["push", "-q", &url]);
        push.args(
            batch
                .iter()
                .map(|n| format!("refs/heads/{n}:refs/heads/{n}")),
        );
        batches.push(format!("{:.1}", timed(&mut push)?.as_secs_f64()));
    }
    let push_time = pushed.elapsed();
    println!(
        "pushed {} branches in {} pushes of up to {BATCH} refspecs: {} (each push, s: {})",
        opts.branches,
        batches.len(),
        secs(push_time),
        batches.join(", ")
    );

    // Facts: every branch's computation emits one `branch.updated`.
    let mut updated = 0;
    let mut progress = Instant::now();
    while updated < opts.branches {
        let page: serde_json::Value = client
            .json(&format!("{events}?since={seq}&limit=500"))
            .await?;
        let items = page["items"]
            .as_array()
            .context("no items in the event page")?;
        for item in items {
            seq = seq.max(item["seq"].as_i64().unwrap_or(seq));
            if item["kind"] == "branch.updated" {
                updated += 1;
                progress = Instant::now();
            }
        }
        if items.len() < 500 {
            if progress.elapsed() > STALL {
                bail!("facts stalled at {updated} of {} branches", opts.branches);
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
    let facts_time = pushed.elapsed();
    println!(
        "facts of all {} branches: {} after the first branch push started, {} after the \
         last push ended ({:.0} branches/s overall)",
        opts.branches,
        secs(facts_time),
        secs(facts_time.saturating_sub(push_time)),
        opts.branches as f64 / facts_time.as_secs_f64()
    );

    // Every row, fresh, and the cursor of the middle row.
    let list = format!("/v1/monorepos/{full}/repos/list/branches");
    let deep_at = (opts.branches / 2).max(2);
    let (rows, deep_cursor) = walk(&client, &list, deep_at).await?;
    if rows != opts.branches {
        bail!("the list has {rows} rows, not {}", opts.branches);
    }
    println!("list walked: {rows} rows, all fresh");

    print_load();
    let deep = format!("{list}?cursor={deep_cursor}");
    let series = [
        (
            "baseline: getRepo",
            format!("/v1/monorepos/{full}/repos/list"),
        ),
        ("listBranches, first page (30 rows)", list.clone()),
        ("listBranches ?limit=100", format!("{list}?limit=100")),
        (
            "listBranches, deep page (rows from the middle on, 30 rows)",
            deep.clone(),
        ),
    ];
    let mut missed = time_series(&client, &series, opts.runs, "").await?;
    // The PostgreSQL planner needs table statistics to choose the ordered index scan;
    // autovacuum gathers them, but it may be off (as in CI) or not have run yet.
    if let Some(url) = opts.database_url.as_deref() {
        let pool = sqlx::PgPool::connect(url).await?;
        sqlx::query("ANALYZE").execute(&pool).await?;
        pool.close().await;
        missed |= time_series(&client, &series, opts.runs, "after ANALYZE, ").await?;
    }
    print_load();
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
    if missed {
        println!("a goal was missed");
    }
    Ok(())
}

/// Times each of `series` (label, path); answers whether a list missed its goal.
async fn time_series(
    client: &Client,
    series: &[(&str, String)],
    runs: usize,
    tag: &str,
) -> anyhow::Result<bool> {
    let mut missed = false;
    for (label, path) in series {
        let (times, bytes) = client.series(path, runs).await?;
        let p50 = percentile(&times, 50);
        let goal = if label.starts_with("listBranches") {
            missed |= p50 >= GOAL;
            format!(
                " (goal p50 < 10 ms: {})",
                if p50 < GOAL { "met" } else { "MISSED" }
            )
        } else {
            String::new()
        };
        println!(
            "{tag}{label}: p50 {}, p99 {}, {bytes} bytes, {runs} requests{goal}",
            ms(p50),
            ms(percentile(&times, 99)),
        );
    }
    Ok(missed)
}

fn branch_name(i: usize) -> String {
    format!("b{i:05}")
}

/// Walks the list by pages of 100 checking that no row is stale; answers the rows and
/// the cursor after `deep_at - 1` rows (so its page starts at row `deep_at`).
async fn walk(client: &Client, list: &str, deep_at: usize) -> anyhow::Result<(usize, String)> {
    let mut rows = 0;
    let mut cursor: Option<String> = None;
    let mut deep = None;
    loop {
        let want = if rows < deep_at.saturating_sub(1) {
            (deep_at - 1 - rows).min(100)
        } else {
            100
        };
        let after = cursor
            .as_ref()
            .map_or(String::new(), |c| format!("&cursor={c}"));
        let page: BranchList = client.json(&format!("{list}?limit={want}{after}")).await?;
        if let Some(b) = page.items.iter().find(|b| b.stale) {
            bail!("branch {} is stale after every fact was computed", b.name);
        }
        rows += page.items.len();
        if rows + 1 == deep_at {
            deep = page.next_cursor.clone();
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    Ok((
        rows,
        deep.context("the list is shorter than the deep page")?,
    ))
}

/// One keep-alive HTTP client speaking as the bench user.
pub struct Client {
    http: reqwest::Client,
    base: String,
    auth: String,
}

impl Client {
    pub fn new(server: &Server, token: &str) -> Client {
        Client {
            http: reqwest::Client::new(),
            base: server.base.clone(),
            auth: format!("Bearer {token}"),
        }
    }

    /// Sends a GET; fails on any status but 200.
    pub async fn send(&self, path: &str) -> anyhow::Result<reqwest::Response> {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .header(AUTHORIZATION, &self.auth)
            .send()
            .await?;
        if r.status() != reqwest::StatusCode::OK {
            bail!("GET {path}: {} {}", r.status(), r.text().await?);
        }
        Ok(r)
    }

    pub async fn json<T: serde::de::DeserializeOwned>(&self, path: &str) -> anyhow::Result<T> {
        Ok(serde_json::from_slice(
            &self.send(path).await?.bytes().await?,
        )?)
    }

    /// Times `runs` GETs of the whole body after a few untimed ones; answers the times
    /// and the size of the last body.
    pub async fn series(&self, path: &str, runs: usize) -> anyhow::Result<(Vec<Duration>, usize)> {
        let mut size = 0;
        for _ in 0..WARM_UP {
            self.send(path).await?.bytes().await?;
        }
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let start = Instant::now();
            size = self.send(path).await?.bytes().await?.len();
            times.push(start.elapsed());
        }
        Ok((times, size))
    }
}

/// The `pct`th percentile (nearest rank).
pub fn percentile(times: &[Duration], pct: usize) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    let rank = (sorted.len() * pct).div_ceil(100).max(1);
    sorted.get(rank - 1).copied().unwrap_or_default()
}

pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// A bare repository at `bare` with `main` (one file) and `branches` branches, each one
/// commit on main adding its own file.
fn generate(bare: &Path, branches: usize) -> anyhow::Result<()> {
    let parent = bare.parent().context("no parent")?;
    let name = bare.file_name().context("no name")?;
    run(git(parent).args(["init", "-q", "--bare"]).arg(name))?;
    let mut stream = Vec::new();
    let readme = "branch list bench\n";
    write!(
        stream,
        "commit refs/heads/main\nmark :1\ncommitter A <a@example.com> 1600000000 +0000\n\
         data 6\nimport\nM 100644 inline README\ndata {}\n{readme}\n",
        readme.len()
    )?;
    for i in 0..branches {
        let name = branch_name(i);
        write!(
            stream,
            "commit refs/heads/{name}\ncommitter A <a@example.com> {} +0000\ndata {}\n{name}\n\
             from :1\nM 100644 inline work/{name}.txt\ndata {}\n{name}\n\n",
            1_600_000_060 + i,
            name.len(),
            name.len() + 1
        )?;
    }
    fast_import(bare, &stream)?;
    run(git(bare).args(["pack-refs", "--all"]))?;
    Ok(())
}
