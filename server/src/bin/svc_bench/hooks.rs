//! `svc-bench hooks`: web hook deliveries to a receiver on loopback (an HTTP server in
//! this process that notes when each request arrives):
//!
//! - push → first delivery attempt at the receiver: 100 pushes through the git door, one
//!   at a time, each timed from the moment `git push` returns (the push is recorded,
//!   with its deliveries, before the door answers) and from the moment it started;
//! - 10,000 due deliveries, written straight into the store while the server is down,
//!   drained after it starts: deliveries per second from the first arrival to the last,
//!   and the server's RSS growth meanwhile.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::json;
use svc_server::store::hooks::{self, DeliveryRow};
use svc_server::store::{Store, monorepos, now_ms, repos};
use svc_server::token;

use super::common::{
    Api, RssPoller, Server, git, git_door, print_load, print_machine, run, work_dir,
};

const PUSHES: usize = 100;
const DUE: usize = 10_000;

/// Arrival times of the requests the receiver got.
#[derive(Default)]
struct Arrivals(Mutex<Vec<Instant>>);

impl Arrivals {
    fn count(&self) -> usize {
        self.0.lock().map(|a| a.len()).unwrap_or(0)
    }

    fn nth(&self, n: usize) -> Option<Instant> {
        self.0.lock().ok().and_then(|a| a.get(n).copied())
    }

    async fn wait_for(&self, n: usize, timeout: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + timeout;
        while self.count() < n {
            if Instant::now() > deadline {
                bail!(
                    "{} of {n} deliveries arrived within {timeout:?}",
                    self.count()
                );
            }
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        Ok(())
    }
}

async fn receiver() -> anyhow::Result<(SocketAddr, Arc<Arrivals>)> {
    let arrivals = Arc::new(Arrivals::default());
    let noted = Arc::clone(&arrivals);
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move || {
            let noted = Arc::clone(&noted);
            async move {
                if let Ok(mut a) = noted.0.lock() {
                    a.push(Instant::now());
                }
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((addr, arrivals))
}

fn percentile(samples: &mut [Duration], p: usize) -> f64 {
    samples.sort();
    samples[(samples.len() * p / 100).min(samples.len() - 1)].as_secs_f64() * 1e3
}

pub async fn run_bench(database_url: Option<String>) -> anyhow::Result<()> {
    print_machine();
    print_load();
    let dir = work_dir("hooks")?;
    let data = dir.join("data");
    let config = dir.join("svc.toml");
    std::fs::write(&config, "[hooks]\nallowed_hosts = [\"loopback\"]\n")?;
    let log = dir.join("server.log");
    let db = database_url.as_deref();
    let (addr, arrivals) = receiver().await?;
    let server = Server::start_with(&data, db, &log, Some(&config)).await?;
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "app").await?;
    let hook = api
        .post(
            &format!("/v1/monorepos/{full}/hooks"),
            json!({"kind": "web", "url": format!("http://{addr}/hook"), "events": ["push"]}),
        )
        .await?;
    let hook_id = hook["id"].as_str().context("no hook id")?.to_owned();
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    run(git(&work).args(["init", "-q"]))?;

    // Push → first try at the receiver.
    let (mut from_end, mut from_start) = (Vec::new(), Vec::new());
    for i in 0..PUSHES {
        std::fs::write(work.join("n.txt"), i.to_string())?;
        run(git(&work).args(["add", "-A"]))?;
        run(git(&work).args(["commit", "-q", "-m", &format!("c{i}")]))?;
        let branch = if i == 0 { "main" } else { "topic" };
        let start = Instant::now();
        run(git_door(&work, &api.token).args([
            "push",
            "-q",
            &url,
            &format!("HEAD:refs/heads/{branch}"),
        ]))?;
        let end = Instant::now();
        arrivals.wait_for(i + 1, Duration::from_secs(10)).await?;
        let at = arrivals.nth(i).context("an arrival")?;
        from_end.push(at.saturating_duration_since(end));
        from_start.push(at.saturating_duration_since(start));
    }
    println!(
        "push → first delivery try at the receiver, {PUSHES} pushes: from git push's return p50 {:.1} ms, p99 {:.1} ms (goal p50 < 100 ms, p99 < 500 ms); from its start p50 {:.1} ms, p99 {:.1} ms",
        percentile(&mut from_end, 50),
        percentile(&mut from_end, 99),
        percentile(&mut from_start, 50),
        percentile(&mut from_start, 99)
    );
    server.stop();

    // 10,000 due deliveries, drained after a start.
    let store_url = database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", data.join("svc.db").display()));
    let store = Store::open(&store_url).await?;
    let repo_id = {
        let mut conn = store.read().await?;
        let (owner, name) = full.split_once('/').context("a full name")?;
        let m = monorepos::by_label_with_role(conn.h(), owner, name, "")
            .await?
            .context("the monorepo")?;
        repos::by_name(conn.h(), &m.monorepo.id, "app")
            .await?
            .context("the repo")?
            .id
    };
    let due = now_ms() + 3_000;
    let mut tx = store.begin().await?;
    for i in 0..DUE {
        let body = json!({"event": "push", "repo": "app", "ref": "refs/heads/topic", "seq": i});
        hooks::insert_delivery(
            tx.h(),
            &DeliveryRow {
                id: token::new_id("d_"),
                hook_id: hook_id.clone(),
                repo_id: Some(repo_id.clone()),
                event: "push".into(),
                seq: Some(i64::try_from(i)?),
                body: body.to_string(),
                state: "pending".into(),
                attempts: 0,
                round_tries: 0,
                next_attempt_at: Some(due),
                lease_until: None,
                created_at: due,
            },
        )
        .await?;
    }
    tx.commit().await?;
    store.close().await;
    let before = arrivals.count();
    let server = Server::start_with(&data, db, &log, Some(&config)).await?;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let idle = server.rss_kb();
    let poll = RssPoller::start(server.pid());
    arrivals
        .wait_for(before + DUE, Duration::from_secs(300))
        .await?;
    let peaks = poll.finish();
    let first = arrivals.nth(before).context("the first")?;
    let last = arrivals.nth(before + DUE - 1).context("the last")?;
    let took = last.duration_since(first);
    println!(
        "drain of {DUE} due deliveries: {:.2} s from the first arrival to the last = {:.0} per second (goal ≥ 300); server RSS {idle} kB before, growth peak {} kB (goal < 50 MB)",
        took.as_secs_f64(),
        DUE as f64 / took.as_secs_f64(),
        peaks.rss.saturating_sub(idle)
    );
    print_load();
    server.stop();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
