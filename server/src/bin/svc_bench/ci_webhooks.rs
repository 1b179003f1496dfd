//! `svc-bench ci-webhooks`: the CI webhook receiver under Buildkite's load, on loopback.
//!
//! The server gets Buildkite settings (an API URL nothing listens on: the receiver never
//! calls Buildkite), a monorepo with one repo whose `main` holds one commit per build,
//! and a connection to the Buildkite organization `acme`. Then:
//!
//! - `--rate` (200) signed webhooks a second for `--seconds` (30), open loop: each is sent
//!   at its own slot (every 5 ms) on a task of its own, whatever the answers before it.
//!   Every build has five events one second apart (`build.scheduled`, `build.running`,
//!   `job.started`, `job.finished`, `build.finished`), signed with the second of its
//!   slot, so a build's events have increasing signed times whatever order they arrive
//!   in. The builds start staggered, so every second carries every kind of event alike:
//!   the builds under way when the run starts begin mid-life and those under way when it
//!   ends are left unfinished. One build in four fails. Each request's latency is timed
//!   from its send to the end of its answer;
//! - no event lost: every build (getCiBuild), its job and its commit status
//!   `buildkite/p` (the commit's checks) must be as its last event left them, and
//!   listCiBuilds must page through exactly the builds sent;
//! - bodies: a signed event of exactly 5 MiB must be taken and stored whole; one of
//!   5 MiB + 1 byte must be refused: from reqwest, which sends the whole body before it
//!   reads the answer (5 tries; whether it read a 413 or had the connection cut is
//!   counted), and with 413 on a raw socket that announces 5 MiB + 1 and 64 MiB but
//!   sends only the first 64 KiB (the answer must come without the rest); a 64 MiB
//!   chunked body (no length) must be refused with 413 before it is all written. None
//!   of them may leave a build.
//!
//! Exits non-zero when a goal is missed, keeping the working directory (with the
//! server's log).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::branches::{ms, percentile};
use super::common::{
    Api, RssPoller, Server, fast_import, git, git_door, mib, print_load, print_machine, run,
    work_dir,
};

/// The receiver's body limit.
const BODY_MAX: usize = 5 * 1024 * 1024;
/// The goal for the webhooks' p99 latency.
const P99_GOAL: Duration = Duration::from_millis(20);
/// The pipeline every build is of.
const PIPELINE: &str = "p";
/// A build's events, in order, one second apart.
const EVENTS: [&str; 5] = [
    "build.scheduled",
    "build.running",
    "job.started",
    "job.finished",
    "build.finished",
];
/// What a raw socket sends of an oversized body before it waits for the answer.
const SENT_FIRST: usize = 64 * 1024;
/// The oversized body a raw socket announces, or streams chunked.
const HUGE: usize = 64 * 1024 * 1024;
/// Tries of the 5 MiB + 1 body from reqwest.
const TRIES: usize = 5;

pub struct Options {
    pub rate: usize,
    pub seconds: usize,
    pub database_url: Option<String>,
}

/// One build of the run: its events are the ones of `EVENTS` from `first` to `last`.
struct Build {
    number: usize,
    id: String,
    job: String,
    sha: String,
    /// The second of the run its first event (`build.scheduled`) is, or would be, at.
    start: i64,
    first: usize,
    last: usize,
    fails: bool,
}

impl Build {
    /// The build's state word in event `e` (Buildkite's own).
    fn word(&self, e: usize) -> &'static str {
        match e {
            0 => "scheduled",
            4 if self.fails => "failed",
            4 => "passed",
            _ => "running",
        }
    }

    /// svc's build state after its last event.
    fn expected_state(&self) -> &'static str {
        match self.last {
            0 => "queued",
            4 if self.fails => "failed",
            4 => "passed",
            _ => "running",
        }
    }

    /// svc's state of its job, if any job event was sent.
    fn expected_job(&self) -> Option<&'static str> {
        let sent = |e| self.first <= e && e <= self.last;
        if sent(3) {
            Some(if self.fails { "failed" } else { "passed" })
        } else if sent(2) {
            Some("running")
        } else {
            None
        }
    }

    fn expected_status(&self) -> &'static str {
        match self.expected_state() {
            "passed" => "success",
            "failed" => "failure",
            _ => "pending",
        }
    }
}

/// One webhook of the run, ready to send.
struct Slot {
    at: Duration,
    event: &'static str,
    signature: String,
    body: Vec<u8>,
}

/// What one webhook's request gave.
struct Sent {
    latency: Duration,
    late: Duration,
    status: Option<u16>,
    error: Option<String>,
}

fn now_s() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn rfc3339(unix_s: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix_s)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| "2026-11-25T10:00:00Z".into())
}

/// Buildkite's `X-Buildkite-Signature` for `body` at `timestamp`: HMAC-SHA256 keyed by the
/// webhook token over `<timestamp>.<body>`.
fn sign(token: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(token.as_bytes()).expect("any key length");
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    format!(
        "timestamp={timestamp},signature={}",
        hex::encode(mac.finalize().into_bytes())
    )
}

/// Event `e` of build `b` in Buildkite's shape, the run having started at `t0` (unix s).
fn event_body(b: &Build, e: usize, t0: i64) -> Value {
    let at = |e: usize| rfc3339(t0 + b.start + e as i64);
    let mut build = json!({
        "id": b.id,
        "graphql_id": format!("QnVpbGQtLS0{:08}", b.number),
        "url": format!("https://api.buildkite.com/v2/organizations/acme/pipelines/{PIPELINE}/builds/{}", b.number),
        "web_url": format!("https://buildkite.com/acme/{PIPELINE}/builds/{}", b.number),
        "number": b.number,
        "state": b.word(e),
        "blocked": false,
        "message": format!("bench build {}", b.number),
        "commit": b.sha,
        "branch": "main",
        "tag": null,
        "env": {},
        "source": "webhook",
        "creator": null,
        "created_at": at(0),
        "scheduled_at": at(0),
        "started_at": null,
        "finished_at": null,
        "meta_data": {},
        "pull_request": null,
    });
    if e >= 1 {
        build["started_at"] = json!(at(1));
    }
    if e == 4 {
        build["finished_at"] = json!(at(4));
    }
    let mut body = json!({
        "event": EVENTS[e],
        "build": build,
        "pipeline": {"id": "0190c0de-0000-4000-8000-00000000beef", "slug": PIPELINE, "name": PIPELINE,
            "repository": "git@example.com:bench/app.git"},
        "sender": {"id": "0190c0de-0000-4000-8000-00000000cafe", "name": "Buildkite Bench"},
    });
    if e == 2 || e == 3 {
        let finished = e == 3;
        body["job"] = json!({
            "id": b.job,
            "type": "script",
            "name": "test",
            "step_key": "test",
            "state": if finished { "finished" } else { "running" },
            "exit_status": if finished { json!(i32::from(b.fails)) } else { Value::Null },
            "web_url": format!("https://buildkite.com/acme/{PIPELINE}/builds/{}#{}", b.number, b.job),
            "started_at": at(2),
            "finished_at": if finished { json!(at(3)) } else { Value::Null },
        });
    }
    body
}

/// The builds of a run of `rate` events a second for `seconds` seconds, and its slots as
/// (build index, event): slot `j` of second `s` carries event `(s + j) % 5` of the build
/// whose first event is at second `s - e`, column `j`.
fn schedule(rate: usize, seconds: usize) -> (Vec<Build>, Vec<(usize, usize)>) {
    let mut builds: Vec<Build> = Vec::new();
    let mut index = BTreeMap::new();
    let mut slots = Vec::with_capacity(rate * seconds);
    for s in 0..seconds {
        for j in 0..rate {
            let e = (s + j) % EVENTS.len();
            let start = s as i64 - e as i64;
            let i = *index.entry((start, j)).or_insert_with(|| {
                let number = builds.len() + 1;
                builds.push(Build {
                    number,
                    id: format!("0190c0de-0000-4000-8000-{number:012}"),
                    job: format!("0190c0de-0000-4000-9000-{number:012}"),
                    sha: String::new(),
                    start,
                    first: e,
                    last: e,
                    fails: number.is_multiple_of(4),
                });
                builds.len() - 1
            });
            builds[i].last = e;
            slots.push((i, e));
        }
    }
    (builds, slots)
}

/// `count` commits on `main` in a fresh repository at `work`, oldest first.
fn commits(work: &std::path::Path, count: usize) -> anyhow::Result<Vec<String>> {
    use std::io::Write;
    run(git(work).args(["init", "-q"]))?;
    let mut stream = Vec::new();
    for i in 0..count {
        let message = format!("c{i}");
        let content = format!("{i}\n");
        write!(
            stream,
            "commit refs/heads/main\ncommitter A <a@example.com> {} +0000\ndata {}\n{message}\n\
             M 100644 inline n.txt\ndata {}\n{content}\n",
            1_700_000_000 + i,
            message.len(),
            content.len()
        )?;
    }
    fast_import(work, &stream)?;
    let shas: Vec<String> = run(git(work).args(["rev-list", "--reverse", "main"]))?
        .lines()
        .map(str::to_owned)
        .collect();
    if shas.len() != count {
        bail!("{} commits made, not {count}", shas.len());
    }
    Ok(shas)
}

/// A signed `build.finished` of exactly `len` bytes (its message padded), and its id.
fn padded(sha: &str, number: usize, len: usize, t: i64) -> anyhow::Result<(String, Vec<u8>)> {
    let b = Build {
        number,
        id: format!("0190c0de-0000-4000-a000-{number:012}"),
        job: String::new(),
        sha: sha.to_owned(),
        start: -4,
        first: 4,
        last: 4,
        fails: false,
    };
    let mut body = event_body(&b, 4, t);
    body["build"]["message"] = json!("");
    let base = serde_json::to_vec(&body)?.len();
    if len < base {
        bail!("a body of {len} bytes cannot hold an event of {base}");
    }
    body["build"]["message"] = json!("x".repeat(len - base));
    let bytes = serde_json::to_vec(&body)?;
    anyhow::ensure!(bytes.len() == len, "padded to {} not {len}", bytes.len());
    Ok((b.id, bytes))
}

fn verdict(ok: bool, missed: &mut Vec<&'static str>, goal: &'static str) -> &'static str {
    if ok {
        "met"
    } else {
        missed.push(goal);
        "MISSED"
    }
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    if opts.rate == 0 || opts.seconds < EVENTS.len() {
        bail!("--rate must be at least 1 and --seconds at least 5");
    }
    print_machine();
    let dir = work_dir("ci-webhooks")?;
    let data = dir.join("data");
    let config = dir.join("svc.toml");
    std::fs::write(
        &config,
        "[ci.buildkite]\napi_url = \"http://127.0.0.1:1/v2\"\ntoken = \"svc-bench\"\n",
    )?;
    let log = dir.join("server.log");
    let db = opts.database_url.as_deref();
    let server = Server::start_with(&data, db, &log, Some(&config)).await?;
    println!(
        "backend: {}",
        if db.is_some() { "PostgreSQL" } else { "SQLite" }
    );
    let api = Api::bootstrap(&server).await?;
    let (full, clone_url) = api.repo("bench", "app").await?;

    let (mut builds, slots) = schedule(opts.rate, opts.seconds);
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    // One commit per build, and one for the 5 MiB body's build.
    let shas = commits(&work, builds.len() + 1)?;
    for (b, sha) in builds.iter_mut().zip(&shas) {
        b.sha.clone_from(sha);
    }
    run(git_door(&work, &api.token).args(["push", "-q", &clone_url, "main"]))?;
    let made = api
        .post(
            &format!("/v1/monorepos/{full}/ci/connections"),
            json!({"service": "buildkite", "organization": "acme"}),
        )
        .await?;
    let connection = made["id"].as_str().context("no connection id")?.to_owned();
    let token = made["webhook_token"]
        .as_str()
        .context("no webhook_token")?
        .to_owned();
    let hook_url = format!("{}/v1/ci/webhooks/{connection}", server.base);
    println!(
        "{} builds on {} commits, {} events: {} a second for {} s",
        builds.len(),
        shas.len(),
        slots.len(),
        opts.rate,
        opts.seconds
    );

    // Warm the client's connection with a ping.
    let client = reqwest::Client::new();
    let ping = br#"{"event":"ping","service":{"id":"x","provider":{"type":"webhook"}},"sender":{"id":"x","name":"y"}}"#;
    let r = client
        .post(&hook_url)
        .header("x-buildkite-event", "ping")
        .header("x-buildkite-signature", sign(&token, now_s(), ping))
        .header("content-type", "application/json")
        .body(ping.as_slice())
        .send()
        .await?;
    if !r.status().is_success() {
        bail!("ping: {} {}", r.status(), r.text().await?);
    }

    // The run starts at a whole second; every slot is signed with its own second.
    let t0 = now_s() + 2;
    let period = Duration::from_secs(1) / u32::try_from(opts.rate)?;
    let prepared: Vec<Slot> = slots
        .iter()
        .enumerate()
        .map(|(k, &(i, e))| {
            let second = (k / opts.rate) as i64;
            let body = serde_json::to_vec(&event_body(&builds[i], e, t0))?;
            Ok(Slot {
                at: period * u32::try_from(k % opts.rate)?
                    + Duration::from_secs(second.unsigned_abs()),
                event: EVENTS[e],
                signature: sign(&token, t0 + second, &body),
                body,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let until_t0 = Duration::from_secs(u64::try_from(t0)?)
        .saturating_sub(SystemTime::now().duration_since(UNIX_EPOCH)?);
    tokio::time::sleep(until_t0).await;
    print_load();
    let idle = server.rss_kb();
    let poll = RssPoller::start(server.pid());
    let start = tokio::time::Instant::now();
    let in_flight = Arc::new(AtomicUsize::new(0));
    let most_in_flight = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::with_capacity(prepared.len());
    for slot in prepared {
        let at = start + slot.at;
        tokio::time::sleep_until(at).await;
        let client = client.clone();
        let url = hook_url.clone();
        let (in_flight, most) = (Arc::clone(&in_flight), Arc::clone(&most_in_flight));
        tasks.push(tokio::spawn(async move {
            let sent = Instant::now();
            let late = sent.saturating_duration_since(at.into_std());
            let now = in_flight.fetch_add(1, Ordering::Relaxed) + 1;
            most.fetch_max(now, Ordering::Relaxed);
            let answer = async {
                let r = client
                    .post(&url)
                    .header("x-buildkite-event", slot.event)
                    .header("x-buildkite-signature", &slot.signature)
                    .header("content-type", "application/json")
                    .header("user-agent", "Buildkite-Request")
                    .body(slot.body)
                    .send()
                    .await?;
                let status = r.status().as_u16();
                let text = r.text().await?;
                Ok::<_, reqwest::Error>((status, text))
            }
            .await;
            let latency = sent.elapsed();
            in_flight.fetch_sub(1, Ordering::Relaxed);
            match answer {
                Ok((status, text)) => Sent {
                    latency,
                    late,
                    status: Some(status),
                    error: (status != 200).then(|| format!("{status} {text}")),
                },
                Err(e) => Sent {
                    latency,
                    late,
                    status: None,
                    error: Some(e.to_string()),
                },
            }
        }));
    }
    let sending = start.elapsed();
    let mut results = Vec::with_capacity(tasks.len());
    for t in tasks {
        results.push(t.await?);
    }
    let peaks = poll.finish();
    print_load();

    let mut missed = Vec::new();
    let latencies: Vec<Duration> = results.iter().map(|r| r.latency).collect();
    let lateness: Vec<Duration> = results.iter().map(|r| r.late).collect();
    let errors: Vec<&Sent> = results.iter().filter(|r| r.error.is_some()).collect();
    let ok = results.iter().filter(|r| r.status == Some(200)).count();
    let mean = latencies.iter().sum::<Duration>() / u32::try_from(latencies.len().max(1))?;
    let p99 = percentile(&latencies, 99);
    println!(
        "sent {} webhooks in {:.2} s ({:.1} a second); a send at most {} late (p99 {}); at most {} in flight",
        results.len(),
        sending.as_secs_f64(),
        results.len() as f64 / sending.as_secs_f64(),
        ms(lateness.iter().max().copied().unwrap_or_default()),
        ms(percentile(&lateness, 99)),
        most_in_flight.load(Ordering::Relaxed)
    );
    println!(
        "webhook latency: p50 {}, p99 {}, max {}, mean {}; {ok} answered 200, {} errors; goal p99 < {}: {}",
        ms(percentile(&latencies, 50)),
        ms(p99),
        ms(latencies.iter().max().copied().unwrap_or_default()),
        ms(mean),
        errors.len(),
        ms(P99_GOAL),
        verdict(p99 < P99_GOAL, &mut missed, "p99")
    );
    for e in errors.iter().take(5) {
        println!("  error: {}", e.error.as_deref().unwrap_or_default());
    }
    println!(
        "server RSS {:.1} MiB before the run, peak {:.1} MiB during it",
        idle as f64 / 1024.0,
        peaks.rss as f64 / 1024.0
    );

    // Every build, its job and its commit status as its last event left them.
    let checked = Instant::now();
    let mut wrong = Vec::new();
    for b in &builds {
        let got = api
            .get(&format!("/v1/monorepos/{full}/ci/builds/{}", b.id))
            .await;
        let got = match got {
            Ok(got) => got,
            Err(e) => {
                wrong.push(format!("build #{}: {e}", b.number));
                continue;
            }
        };
        let job = got["jobs"]
            .as_array()
            .and_then(|jobs| jobs.iter().find(|j| j["id"] == b.job.as_str()));
        let want_service = b.word(b.last);
        if got["state"] != b.expected_state()
            || got["service_state"] != want_service
            || got["number"] != b.number
            || got["commit"] != b.sha.as_str()
            || got["repo"] != "app"
            || job.map(|j| j["state"].clone()) != b.expected_job().map(|s| json!(s))
        {
            wrong.push(format!(
                "build #{} (events {}..={}): want {} / {want_service} / job {:?}, got {} / {} / job {:?}",
                b.number,
                b.first,
                b.last,
                b.expected_state(),
                b.expected_job(),
                got["state"],
                got["service_state"],
                job.map(|j| j["state"].clone())
            ));
            continue;
        }
        let checks = match api
            .get(&format!(
                "/v1/monorepos/{full}/repos/app/commits/{}/checks",
                b.sha
            ))
            .await
        {
            Ok(checks) => checks,
            Err(e) => {
                wrong.push(format!("status of build #{}: {e}", b.number));
                continue;
            }
        };
        let context = format!("buildkite/{PIPELINE}");
        let status = checks["statuses"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["context"] == context.as_str()));
        let want_description = format!("Build #{} {want_service}", b.number);
        match status {
            Some(s)
                if s["state"] == b.expected_status()
                    && s["description"] == want_description.as_str()
                    && s["app"] == "buildkite" => {}
            other => wrong.push(format!(
                "status of build #{}: want {} {want_description:?}, got {other:?}",
                b.number,
                b.expected_status()
            )),
        }
    }
    // listCiBuilds pages through exactly the builds sent.
    let mut listed = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut path = format!("/v1/monorepos/{full}/ci/builds?pipeline={PIPELINE}");
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={}", urlencode(c)));
        }
        let page = match api.get(&path).await {
            Ok(page) => page,
            Err(e) => {
                wrong.push(format!("listCiBuilds: {e}"));
                break;
            }
        };
        listed += page["items"].as_array().map_or(0, Vec::len);
        cursor = page["next_cursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    if listed != builds.len() {
        wrong.push(format!(
            "listCiBuilds pages {listed} builds, not {}",
            builds.len()
        ));
    }
    let complete = builds
        .iter()
        .filter(|b| b.first == 0 && b.last == 4)
        .count();
    println!(
        "no event lost: {} of {} builds ({complete} with all five events), their jobs and their buildkite/{PIPELINE} statuses as their last event left them; listCiBuilds pages {listed}; checked in {:.1} s; goal: {}",
        builds.len()
            - wrong
                .iter()
                .filter(|w| w.starts_with("build") || w.starts_with("status"))
                .count(),
        builds.len(),
        checked.elapsed().as_secs_f64(),
        verdict(
            wrong.is_empty() && errors.is_empty(),
            &mut missed,
            "no event lost"
        )
    );
    for w in wrong.iter().take(10) {
        println!("  {w}");
    }

    // A body of exactly 5 MiB is taken and stored whole.
    let big_sha = shas.last().context("a commit")?;
    let number = builds.len() + 1;
    let (big_id, body) = padded(big_sha, number, BODY_MAX, now_s())?;
    let poll = RssPoller::start(server.pid());
    let before = server.rss_kb();
    let t = Instant::now();
    let r = client
        .post(&hook_url)
        .header("x-buildkite-event", "build.finished")
        .header("x-buildkite-signature", sign(&token, now_s(), &body))
        .header("content-type", "application/json")
        .body(body.clone())
        .send()
        .await?;
    let status = r.status().as_u16();
    let text = r.text().await?;
    let took = t.elapsed();
    let peak = poll.finish().rss;
    let stored = api
        .get(&format!("/v1/monorepos/{full}/ci/builds/{big_id}"))
        .await
        .ok();
    let want_message = serde_json::from_slice::<Value>(&body)?["build"]["message"].clone();
    let whole = stored
        .as_ref()
        .is_some_and(|b| b["message"] == want_message && b["state"] == "passed");
    println!(
        "a body of exactly 5 MiB ({} bytes): {status} in {}, {}; server RSS {:.1} MiB before, peak {:.1} MiB; goal taken: {}",
        body.len(),
        ms(took),
        if whole {
            "stored whole"
        } else {
            "NOT stored whole"
        },
        before as f64 / 1024.0,
        peak as f64 / 1024.0,
        verdict(status == 200 && whole, &mut missed, "5 MiB taken")
    );
    if status != 200 {
        println!("  answer: {}", text.chars().take(300).collect::<String>());
    }
    drop(body);

    // 5 MiB + 1 byte from an ordinary client, which sends the whole body before it reads
    // the answer: refused, whether it gets to read the 413 or the connection is reset.
    let (over_id, body) = padded(big_sha, number + 1, BODY_MAX + 1, now_s())?;
    let (mut saw_413, mut resets, mut other) = (0, 0, Vec::new());
    let mut took = Vec::new();
    for _ in 0..TRIES {
        let t = Instant::now();
        let r = client
            .post(&hook_url)
            .header("x-buildkite-event", "build.finished")
            .header("x-buildkite-signature", sign(&token, now_s(), &body))
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await;
        took.push(t.elapsed());
        match r {
            Ok(r) if r.status() == reqwest::StatusCode::PAYLOAD_TOO_LARGE => saw_413 += 1,
            Ok(r) => other.push(r.status().to_string()),
            Err(e) => {
                resets += 1;
                let mut why = e.to_string();
                let mut source = std::error::Error::source(&e);
                while let Some(s) = source {
                    why = format!("{why}: {s}");
                    source = s.source();
                }
                if resets == 1 {
                    println!("  reqwest's error: {why}");
                }
            }
        }
    }
    drop(body);
    println!(
        "5 MiB + 1 byte ({} bytes) from reqwest, the whole body sent, {TRIES} tries: {saw_413} answered 413, {resets} cut off by the server's close before the answer could be read{}, each within {}; goal refused: {}",
        BODY_MAX + 1,
        if other.is_empty() {
            String::new()
        } else {
            format!(", others: {}", other.join(" "))
        },
        ms(took.iter().max().copied().unwrap_or_default()),
        verdict(other.is_empty(), &mut missed, "5 MiB + 1 refused (reqwest)")
    );

    // Announced but not sent: the answer must come without the rest of the body.
    let addr = server
        .base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let mut refused = vec![over_id];
    for (n, announced) in [BODY_MAX + 1, HUGE].into_iter().enumerate() {
        let (id, body) = padded(big_sha, number + 2 + n, announced, now_s())?;
        let got = announced_only(&addr, &connection, &token, &body).await;
        let (status, took) = match got {
            Ok(v) => v,
            Err(e) => (format!("no answer ({e:#})"), Duration::ZERO),
        };
        println!(
            "{announced} bytes announced with Content-Length, the first {} KiB sent: {status} after {}, the rest never sent; goal 413 without the rest: {}",
            SENT_FIRST / 1024,
            ms(took),
            verdict(
                status == "413",
                &mut missed,
                "oversized refused before it is sent"
            )
        );
        refused.push(id);
    }

    // Chunked, no length: refused once over 5 MiB, long before all of it is written.
    let (status, written, took) = chunked(&addr, &connection, &token).await?;
    println!(
        "{} chunked (no Content-Length): {status} after {} written, in {}; goal 413 before it is all written: {}",
        mib(HUGE as u64),
        mib(written),
        ms(took),
        verdict(
            status == "413" && written < HUGE as u64,
            &mut missed,
            "chunked oversized refused early"
        )
    );

    // None of the oversized bodies left a build.
    for id in refused {
        let r = reqwest::Client::new()
            .get(format!(
                "{}/v1/monorepos/{full}/ci/builds/{id}",
                server.base
            ))
            .bearer_auth(&api.token)
            .send()
            .await?;
        if r.status() != reqwest::StatusCode::NOT_FOUND {
            println!("  an oversized body left build {id}: {}", r.status());
            missed.push("oversized left a build");
        }
    }
    let health = client
        .get(format!("{}/healthz", server.base))
        .send()
        .await?;
    if !health.status().is_success() {
        missed.push("server healthy afterwards");
    }
    print_load();
    server.stop();
    if missed.is_empty() {
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    } else {
        bail!(
            "goals missed: {}; the working directory is kept: {}",
            missed.join(", "),
            dir.display()
        )
    }
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The request head of a signed webhook of `length` bytes (or chunked).
fn head(addr: &str, connection: &str, signature: &str, length: Option<usize>) -> String {
    let length = length.map_or_else(
        || "Transfer-Encoding: chunked\r\n".to_owned(),
        |n| format!("Content-Length: {n}\r\n"),
    );
    format!(
        "POST /v1/ci/webhooks/{connection} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: Buildkite-Request\r\n\
         Content-Type: application/json\r\nX-Buildkite-Event: build.finished\r\n\
         X-Buildkite-Signature: {signature}\r\n{length}\r\n"
    )
}

/// Reads an HTTP answer's status line off `reader`, within 10 s.
async fn status_of(reader: &mut (impl AsyncReadExt + Unpin)) -> anyhow::Result<String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let read = async {
        loop {
            let n = reader.read(&mut buf).await?;
            if n == 0 {
                bail!(
                    "closed after {:?}",
                    String::from_utf8_lossy(&got)
                        .chars()
                        .take(100)
                        .collect::<String>()
                );
            }
            got.extend_from_slice(&buf[..n]);
            if let Some(end) = got.iter().position(|&c| c == b'\n') {
                let line = String::from_utf8_lossy(&got[..end]).to_string();
                return line
                    .split_whitespace()
                    .nth(1)
                    .map(str::to_owned)
                    .context("no status in the answer");
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .context("no answer within 10 s")?
}

/// Announces `body`'s length, sends its first [`SENT_FIRST`] bytes and waits for the
/// answer; answers its status and how long after the head it came.
async fn announced_only(
    addr: &str,
    connection: &str,
    token: &str,
    body: &[u8],
) -> anyhow::Result<(String, Duration)> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (mut reader, mut writer) = stream.into_split();
    let signature = sign(token, now_s(), body);
    let t = Instant::now();
    writer
        .write_all(head(addr, connection, &signature, Some(body.len())).as_bytes())
        .await?;
    writer.write_all(&body[..SENT_FIRST]).await?;
    let status = status_of(&mut reader).await?;
    Ok((status, t.elapsed()))
}

/// Streams a [`HUGE`] chunked body while reading the answer; answers its status, the
/// bytes written when it came, and how long it took.
async fn chunked(
    addr: &str,
    connection: &str,
    token: &str,
) -> anyhow::Result<(String, u64, Duration)> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (mut reader, mut writer) = stream.into_split();
    // Signed over a body that is never all sent; the server must not need to see it.
    let signature = sign(token, now_s(), b"{}");
    let written = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let t = Instant::now();
    writer
        .write_all(head(addr, connection, &signature, None).as_bytes())
        .await?;
    let (count, halt) = (Arc::clone(&written), Arc::clone(&stop));
    let write = tokio::spawn(async move {
        let chunk = 64 * 1024;
        let mut frame = format!("{chunk:x}\r\n").into_bytes();
        frame.push(b'{');
        frame.extend(std::iter::repeat_n(b' ', chunk - 1));
        frame.extend_from_slice(b"\r\n");
        let mut sent = 0;
        while sent < HUGE && !halt.load(Ordering::Acquire) {
            if writer.write_all(&frame).await.is_err() {
                break;
            }
            sent += chunk;
            count.store(sent as u64, Ordering::Release);
        }
        if sent >= HUGE {
            let _ = writer.write_all(b"0\r\n\r\n").await;
        }
        writer
    });
    let status = status_of(&mut reader).await;
    let took = t.elapsed();
    let at = written.load(Ordering::Acquire);
    stop.store(true, Ordering::Release);
    write.abort();
    let status = match status {
        Ok(s) => s,
        Err(e) => format!("no answer ({e:#})"),
    };
    Ok((status, at, took))
}
