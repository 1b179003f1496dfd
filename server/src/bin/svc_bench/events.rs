//! The event stream's benchmarks.
//!
//! `svc-bench event-fanout`: one monorepo, `--sockets` event sockets opened on it, then
//! `--pushes` branch pushes through the git door, one at a time. Each socket notes when
//! each push's event reached it, against the event's own `at` (the server's clock when
//! the push was recorded; same machine, millisecond resolution), so a latency covers
//! recording → commit → dispatch → every socket. The baseline is the same with one
//! socket, in the same run. Also the server's RSS before and after the sockets open.
//!
//! `svc-bench event-pull`: a monorepo whose log holds `--events` events (written into the
//! database in one statement, shaped like status events), then pulls timed on one
//! keep-alive client: 500 from a random point, the latest 500, and `kinds=` / `topics=`
//! filtered pulls (each a 5,000-row window), against getMonorepo as the baseline.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};

use super::branches::{Client, ms, percentile};
use super::common::{Api, Lcg, Server, git, git_door, print_load, print_machine, run, work_dir};

/// The fan-out's goal for p99.
const FANOUT_GOAL: Duration = Duration::from_millis(50);
/// The pull's goal (p50 of 500 events from the big log).
const PULL_GOAL: Duration = Duration::from_millis(20);

pub struct FanoutOptions {
    pub sockets: usize,
    pub pushes: usize,
    pub database_url: Option<String>,
}

pub async fn fanout(opts: FanoutOptions) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("event-fanout")?;
    let server = Server::start(
        &dir.join("data"),
        opts.database_url.as_deref(),
        &dir.join("server.log"),
    )
    .await?;
    println!("backend: {}", backend(opts.database_url.as_deref()));
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "fan").await?;
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    run(git(&work).args(["init", "-q"]))?;
    std::fs::write(work.join("README"), "fan-out bench\n")?;
    run(git(&work).args(["add", "README"]))?;
    run(git(&work).args(["commit", "-q", "-m", "base"]))?;
    run(git_door(&work, &api.token).args(["push", "-q", &url, "main"]))?;
    let events = format!(
        "{}/v1/monorepos/{full}/events",
        server.base.replacen("http", "ws", 1)
    );

    let mut round = 0;
    let fan = Fan {
        events: &events,
        token: &api.token,
        work: &work,
        clone_url: &url,
        server_pid: server.pid(),
    };
    let (base, base_cpu) = measure(&fan, 1, opts.pushes, &mut round).await?;
    let idle = server.rss_kb();
    let sockets = open(&events, &api.token, opts.sockets).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let open_rss = server.rss_kb();
    drop(sockets);
    let (many, many_cpu) = measure(&fan, opts.sockets, opts.pushes, &mut round).await?;
    print_load();
    report("1 socket (baseline)", &base, &base_cpu, opts.pushes);
    report(
        &format!("{} sockets", opts.sockets),
        &many,
        &many_cpu,
        opts.pushes,
    );
    println!(
        "server RSS: {:.1} MiB before the sockets, {:.1} MiB with {} idle sockets open: \
         {:.1} KiB per idle socket",
        idle as f64 / 1024.0,
        open_rss as f64 / 1024.0,
        opts.sockets,
        open_rss.saturating_sub(idle) as f64 / opts.sockets as f64
    );
    let p99 = percentile(&many, 99);
    println!(
        "goal p99 < {}: {}",
        ms(FANOUT_GOAL),
        if p99 < FANOUT_GOAL { "met" } else { "MISSED" }
    );
    server.stop();
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn backend(url: Option<&str>) -> &'static str {
    if url.is_some() {
        "PostgreSQL"
    } else {
        "SQLite"
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens `n` sockets (100 at a time) and waits for each one's `caught_up`.
async fn open(url: &str, token: &str, n: usize) -> anyhow::Result<Vec<Socket>> {
    let mut sockets = Vec::with_capacity(n);
    while sockets.len() < n {
        let batch = (n - sockets.len()).min(100);
        let opened = futures_util::future::join_all((0..batch).map(|_| async {
            let mut request = url.into_client_request()?;
            request
                .headers_mut()
                .insert("authorization", format!("Bearer {token}").parse()?);
            let (mut ws, _) = tokio_tungstenite::connect_async(request).await?;
            match ws.next().await {
                Some(Ok(Message::Text(t))) if t.contains("caught_up") => Ok(ws),
                other => bail!("expected caught_up, got {other:?}"),
            }
        }))
        .await;
        for ws in opened {
            sockets.push(ws?);
        }
    }
    Ok(sockets)
}

/// Opens `n` sockets, pushes `pushes` new branches one at a time, and answers every
/// socket's latency for every push.
async fn measure(
    fan: &Fan<'_>,
    n: usize,
    pushes: usize,
    round: &mut usize,
) -> anyhow::Result<(Vec<Duration>, Cpu)> {
    let Fan {
        events: url,
        token,
        work,
        clone_url,
        server_pid,
    } = *fan;
    let sockets = open(url, token, n).await?;
    let samples = Arc::new(Mutex::new(Vec::with_capacity(n * pushes)));
    let mut readers = Vec::with_capacity(n);
    for ws in sockets {
        let samples = samples.clone();
        // The readers stand in for 1,000 other machines: past the handshake they read the
        // raw TCP stream and parse frame headers only, so as little of the two shared
        // cores as possible goes to them.
        let tokio_tungstenite::MaybeTlsStream::Plain(mut tcp) = ws.into_inner() else {
            bail!("expected a plain TCP socket");
        };
        readers.push(tokio::spawn(async move {
            let mut buf = Vec::with_capacity(4 * 1024);
            let mut got = 0;
            while got < pushes {
                let Some(payload) = next_frame(&mut tcp, &mut buf).await else {
                    break;
                };
                let now = time::OffsetDateTime::now_utc();
                // Only the two fields read; the rest is skipped, not built.
                let Ok(seen) = serde_json::from_slice::<Seen>(&payload) else {
                    continue;
                };
                if seen.kind != "branch.opened" {
                    continue;
                }
                let at = seen.at.and_then(|at| {
                    time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
                        .ok()
                });
                if let Some(at) = at {
                    let late = (now - at).max(time::Duration::ZERO);
                    let late =
                        Duration::from_micros(late.whole_microseconds().try_into().unwrap_or(0));
                    if let Ok(mut s) = samples.lock() {
                        s.push(late);
                    }
                }
                got += 1;
            }
        }));
    }
    let cpu_before = (cpu_ms(server_pid), cpu_ms(std::process::id()));
    for _ in 0..pushes {
        *round += 1;
        let (work, token, clone_url) = (work.to_owned(), token.to_owned(), clone_url.to_owned());
        let branch = format!("fan-{round}");
        // Off the runtime's threads, so the readers keep reading while git runs.
        tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
            run(git(&work).args(["checkout", "-q", "-B", &branch, "main"]))?;
            std::fs::write(work.join("file"), format!("{branch}\n"))?;
            run(git(&work).args(["add", "file"]))?;
            run(git(&work).args(["commit", "-q", "-m", &branch]))?;
            run(git_door(&work, &token).args(["push", "-q", &clone_url, &branch]))?;
            Ok(())
        })
        .await??;
        // Pushes one at a time: let this one's frames go out before the next.
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let cpu = Cpu {
        server_ms: cpu_ms(server_pid).saturating_sub(cpu_before.0),
        bench_ms: cpu_ms(std::process::id()).saturating_sub(cpu_before.1),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    for reader in readers {
        let left = deadline.saturating_duration_since(Instant::now());
        if tokio::time::timeout(left, reader).await.is_err() {
            bail!("some sockets did not get every push within 30 s");
        }
    }
    let samples = std::mem::take(&mut *samples.lock().map_err(|_| anyhow::anyhow!("poisoned"))?);
    if samples.len() != n * pushes {
        bail!("expected {} deliveries, got {}", n * pushes, samples.len());
    }
    Ok((samples, cpu))
}

/// The payload of the next WebSocket frame on `tcp` (server frames are unmasked and,
/// from our server, never fragmented), or None at the end of the stream.
async fn next_frame(tcp: &mut tokio::net::TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    loop {
        if let Some((start, end)) = frame_bounds(buf) {
            let payload = buf[start..end].to_vec();
            buf.drain(..end);
            return Some(payload);
        }
        match tcp.read_buf(buf).await {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// Where the first complete frame's payload lies in `buf`, if it is all there.
fn frame_bounds(buf: &[u8]) -> Option<(usize, usize)> {
    let len = *buf.get(1)? & 0x7f;
    let (len, start) = match len {
        126 => (
            u16::from_be_bytes(buf.get(2..4)?.try_into().ok()?) as usize,
            4,
        ),
        127 => (
            usize::try_from(u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?)).ok()?,
            10,
        ),
        n => (n as usize, 2),
    };
    (buf.len() >= start + len).then_some((start, start + len))
}

/// Where the fan-out pushes and listens.
#[derive(Clone, Copy)]
struct Fan<'a> {
    events: &'a str,
    token: &'a str,
    work: &'a Path,
    clone_url: &'a str,
    server_pid: u32,
}

/// The frame fields the readers look at.
#[derive(serde::Deserialize)]
struct Seen<'a> {
    kind: &'a str,
    at: Option<&'a str>,
}

/// CPU time spent while pushing (user + system, 10 ms ticks), by the server and by this
/// bench process (its readers and git's waits): who the two shared cores went to.
struct Cpu {
    server_ms: u64,
    bench_ms: u64,
}

/// User + system CPU time of a process so far, in ms (`/proc/<pid>/stat`).
pub fn cpu_ms(pid: u32) -> u64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    // Fields after the parenthesised name: state is field 3, utime 14, stime 15.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return 0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i - 3)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // The kernel's USER_HZ is 100 on Linux.
    (ticks(14) + ticks(15)) * 10
}

fn report(what: &str, samples: &[Duration], cpu: &Cpu, pushes: usize) {
    println!(
        "push → event, {what}: {} deliveries, p50 {} p99 {} max {}; CPU per push: \
         server {:.1} ms, bench {:.1} ms",
        samples.len(),
        ms(percentile(samples, 50)),
        ms(percentile(samples, 99)),
        ms(percentile(samples, 100)),
        cpu.server_ms as f64 / pushes as f64,
        cpu.bench_ms as f64 / pushes as f64,
    );
}

pub struct PullOptions {
    pub events: i64,
    pub runs: usize,
    pub database_url: Option<String>,
}

pub async fn pull(opts: PullOptions) -> anyhow::Result<()> {
    if opts.events < 10_000 {
        bail!("--events must be at least 10,000");
    }
    print_machine();
    let dir = work_dir("event-pull")?;
    let data = dir.join("data");
    let server =
        Server::start(&data, opts.database_url.as_deref(), &dir.join("server.log")).await?;
    println!("backend: {}", backend(opts.database_url.as_deref()));
    let api = Api::bootstrap(&server).await?;
    let m = api.post("/v1/monorepos", json!({"name": "pull"})).await?;
    let id = m["id"].as_str().context("no monorepo id")?.to_owned();
    let full = m["full_name"].as_str().context("no full_name")?.to_owned();
    let start = Instant::now();
    fill(&data, opts.database_url.as_deref(), &id, opts.events).await?;
    println!(
        "wrote {} events in {:.1} s",
        opts.events,
        start.elapsed().as_secs_f64()
    );

    let client = Client::new(&server, &api.token);
    let m = format!("/v1/monorepos/{full}");
    let events = format!("{m}/events");
    let (baseline, _) = client.series(&m, opts.runs).await?;
    let mut rng = Lcg(7);
    let mut random = Vec::with_capacity(opts.runs);
    let mut size = 0;
    for _ in 0..opts.runs {
        let since = i64::try_from(rng.below(usize::try_from(opts.events - 500)?))?;
        let path = format!("{events}?since={since}&limit=500");
        let started = Instant::now();
        let body = client.send(&path).await?.bytes().await?;
        random.push(started.elapsed());
        size = body.len();
        let page: Value = serde_json::from_slice(&body)?;
        if page["items"].as_array().map(Vec::len) != Some(500) {
            bail!(
                "a pull of 500 answered {}",
                page["items"].as_array().map_or(0, Vec::len)
            );
        }
    }
    let (latest, _) = client
        .series(&format!("{events}?limit=500"), opts.runs)
        .await?;
    let mid = opts.events / 2;
    let (kinds, _) = client
        .series(
            &format!("{events}?since={mid}&kinds=push&limit=500"),
            opts.runs,
        )
        .await?;
    let (topics, _) = client
        .series(
            &format!("{events}?since={mid}&topics=main:api&limit=500"),
            opts.runs,
        )
        .await?;
    print_load();
    let line = |what: &str, t: &[Duration]| {
        println!(
            "{what}: p50 {} p99 {}",
            ms(percentile(t, 50)),
            ms(percentile(t, 99))
        );
    };
    line("getMonorepo (baseline)", &baseline);
    line(
        &format!(
            "pull 500 at a random point of {} ({} KiB)",
            opts.events,
            size / 1024
        ),
        &random,
    );
    line("pull the latest 500", &latest);
    line("pull kinds=push (no match in a 5,000-row window)", &kinds);
    line(
        "pull topics=main:api (no match in a 5,000-row window)",
        &topics,
    );
    let p50 = percentile(&random, 50);
    println!(
        "goal 500 events < {}: {}",
        ms(PULL_GOAL),
        if p50 < PULL_GOAL { "met" } else { "MISSED" }
    );
    server.stop();
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// Writes `n` status events into the monorepo's log in one statement.
async fn fill(data: &Path, database_url: Option<&str>, id: &str, n: i64) -> anyhow::Result<()> {
    let body = json!({
        "row": {"repo": "api", "sha": "0123456789abcdef0123456789abcdef01234567", "context": "ci/build",
                "state": "success", "target_url": "https://ci.example.com/builds/123456",
                "description": "Build finished in 4m 12s", "creator": "bench",
                "created_at": "2026-01-02T03:04:05Z"},
        "actor": "bench", "agent": null, "changed": true
    })
    .to_string();
    let at = 1_767_323_045_000_i64;
    let insert_sqlite = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $2)
        INSERT INTO events (monorepo_id, seq, kind, repo, collection, key, op, body, at)
        SELECT $1, x, 'status', 'api', 'statuses', 'api/0123456789abcdef/ci', 'upsert', $3, $4 + x FROM c";
    let insert_pg =
        "INSERT INTO events (monorepo_id, seq, kind, repo, collection, key, op, body, at)
        SELECT $1, x, 'status', 'api', 'statuses', 'api/0123456789abcdef/ci', 'upsert', $3, $4 + x
        FROM generate_series(1, $2::BIGINT) AS x";
    let bump = "UPDATE monorepos SET last_seq = $2 WHERE id = $1";
    match database_url {
        Some(url) => {
            let pool = sqlx::PgPool::connect(url).await?;
            sqlx::query(insert_pg)
                .bind(id)
                .bind(n)
                .bind(&body)
                .bind(at)
                .execute(&pool)
                .await?;
            sqlx::query(bump).bind(id).bind(n).execute(&pool).await?;
            sqlx::query("ANALYZE events").execute(&pool).await?;
        }
        None => {
            let url = format!("sqlite://{}", data.join("svc.db").display());
            let pool = sqlx::SqlitePool::connect(&url).await?;
            sqlx::query(insert_sqlite)
                .bind(id)
                .bind(n)
                .bind(&body)
                .bind(at)
                .execute(&pool)
                .await?;
            sqlx::query(bump).bind(id).bind(n).execute(&pool).await?;
        }
    }
    Ok(())
}
