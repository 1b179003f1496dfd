//! `svc-bench soak`: a soak test, not run in CI. One `svc-server` (rate limits off, hooks
//! allowed to loopback) under a mixed load for `--minutes`:
//!
//! - pushers: fetch main, branch off it, commit a file of the branch's own, push through
//!   the git door, one repo after the other;
//! - a merger landing every pushed branch, in push order;
//! - issue writers: open an issue, comment on it, close it;
//! - readers: what a home, a monorepo page and a follower ask for, in turn;
//! - 20 event sockets checking that every seq of the log reaches them once, in order
//!   (reconnecting with `since` when dropped, as the daemon does);
//! - a web hook (`push`, `branch.opened`, `merged`) at a receiver in this process.
//!
//! Each worker loops without sleeping, but there are few of them: a realistic mix on a
//! small machine, not a saturation test. Every operation is timed and its errors kept;
//! the server's RSS, open fds and CPU are read every 30 s. At the end: latency
//! percentiles per kind, the server over time, the events the sockets got against the
//! log, the hook deliveries received against those made and those the server lists, and
//! each repo's main in the API against `git ls-remote`.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use futures_util::StreamExt;
use reqwest::Method;
use serde_json::{Value, json};
use svc_protocol::event::ServerFrame;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};

use super::branches::{ms, percentile};
use super::common::{Api, Server, git, git_door, print_load, print_machine, run, work_dir};
use super::events::cpu_ms;

/// The monorepo's repos (their names are the paths with `-` for `/`).
const REPO_PATHS: [&str; 4] = ["services/api", "services/web", "tools/cli", "docs"];
const PUSHERS: usize = 2;
const ISSUE_WRITERS: usize = 2;
const READERS: usize = 2;
const SOCKETS: usize = 20;
/// What the hook asks for: a new branch's push makes two deliveries, a merge one.
const HOOK_EVENTS: [&str; 3] = ["push", "branch.opened", "merged"];
const SAMPLE_EVERY: Duration = Duration::from_secs(30);
/// A failing worker waits this long before its next try, so a down server is not spun on.
const PAUSE_AFTER_ERROR: Duration = Duration::from_millis(200);
/// A socket reconnects after this (the daemon backs off from about here).
const RECONNECT: Duration = Duration::from_millis(500);
/// An HTTP request or a socket handshake that takes longer is an error.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the sockets and the hook receiver get to catch up once the load ends.
const SETTLE: Duration = Duration::from_secs(60);
/// The hook receiver is taken as settled when nothing arrived for this long.
const QUIET: Duration = Duration::from_secs(10);
/// Distinct error messages counted per kind (the rest count as one more).
const DISTINCT_ERRORS: usize = 5;
/// Server log lines shown.
const LOG_LINES: usize = 3;
/// Rate limits off (0), so the load is not throttled; hooks may post to loopback.
const SETTINGS: &str = "[rate_limits]\nwrites_per_minute = 0\nsign_in_per_minute = 0\n\n\
                        [hooks]\nallowed_hosts = [\"loopback\"]\n";

pub struct Options {
    pub minutes: u64,
    pub database_url: Option<String>,
    pub keep: bool,
}

pub async fn run_soak(opts: Options) -> anyhow::Result<()> {
    if opts.minutes == 0 {
        bail!("--minutes must be at least 1");
    }
    print_machine();
    let dir = work_dir("soak")?;
    let config = dir.join("svc.toml");
    std::fs::write(&config, SETTINGS)?;
    let log = dir.join("server.log");
    let db = opts.database_url.as_deref();
    let stats = Arc::new(Stats::default());
    let (hook_addr, received) = receiver(Arc::clone(&stats)).await?;
    let server = Server::start_with(&dir.join("data"), db, &log, Some(&config)).await?;
    let api = Api::bootstrap(&server).await?;
    let seeded = seed(&api, &dir, hook_addr).await?;
    let ctx = Arc::new(Ctx {
        http: reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .build()?,
        base: server.base.clone(),
        token: api.token.clone(),
        full: seeded.full,
        repos: seeded.repos,
        dir: dir.clone(),
        deadline: Instant::now() + Duration::from_secs(opts.minutes * 60),
        stats,
    });
    let first_seq = ctx.heads().await?.0;
    println!(
        "backend: {}; {} min of load on one monorepo of {} repos: {PUSHERS} pushers, 1 merger, \
         {ISSUE_WRITERS} issue writers, {READERS} readers, {SOCKETS} event sockets, 1 web hook",
        if db.is_some() { "PostgreSQL" } else { "SQLite" },
        opts.minutes,
        ctx.repos.len()
    );
    let started = Instant::now();
    let sampling = tokio::spawn(sampler(server.pid(), started, ctx.deadline));
    let finish = Arc::new(Finish::new());
    let sockets: Vec<_> = (0..SOCKETS)
        .map(|_| tokio::spawn(socket_client(Arc::clone(&ctx), Arc::clone(&finish))))
        .collect();
    let backlog = load(&ctx).await?;
    let mut samples = sampling.await?;
    let (last_seq, _) = ctx.heads().await?;
    finish.target.store(last_seq, Ordering::Release);
    let tallies = settle_sockets(sockets, &finish).await?;
    let expected_hooks = 2 * ctx.stats.count("git push") + ctx.stats.count("merge");
    settle_hooks(&received, expected_hooks).await;
    samples.push(sample(server.pid(), started));

    println!();
    report_ops(&ctx.stats, opts.minutes);
    println!("merge backlog when the load stopped: {backlog} pushed branches not merged");
    report_samples(&samples);
    report_events(&ctx.stats, &tallies, first_seq, last_seq);
    report_hooks(&ctx, &seeded.hook_id, &received, expected_hooks).await?;
    report_mains(&ctx).await?;
    report_log(&log);
    print_load();
    server.stop();
    if opts.keep {
        println!(
            "kept {} (server.log, data/); token {}; clone URLs: {}",
            dir.display(),
            ctx.token,
            ctx.repos
                .iter()
                .map(|r| r.url.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        );
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

/// Runs the workers until the deadline; answers the pushed branches left unmerged.
async fn load(ctx: &Arc<Ctx>) -> anyhow::Result<usize> {
    let (to_merge, pushed) = mpsc::unbounded_channel();
    let merging = tokio::spawn(merger(Arc::clone(ctx), pushed));
    let mut workers = Vec::new();
    for n in 0..PUSHERS {
        workers.push(tokio::spawn(pusher(Arc::clone(ctx), n, to_merge.clone())));
    }
    drop(to_merge);
    for n in 0..ISSUE_WRITERS {
        workers.push(tokio::spawn(issue_writer(Arc::clone(ctx), n)));
    }
    for n in 0..READERS {
        workers.push(tokio::spawn(reader(Arc::clone(ctx), n)));
    }
    for worker in workers {
        worker.await??;
    }
    Ok(merging.await?)
}

/// A repo of the monorepo.
struct Repo {
    name: String,
    url: String,
}

/// What the load runs against.
struct Seeded {
    full: String,
    repos: Vec<Repo>,
    hook_id: String,
}

/// A monorepo of [`REPO_PATHS`], each with a first commit on main pushed through the
/// door, then a web hook at the receiver (made last, so the seeding delivers nothing).
async fn seed(api: &Api, dir: &Path, hook_addr: SocketAddr) -> anyhow::Result<Seeded> {
    let m = api.post("/v1/monorepos", json!({"name": "soak"})).await?;
    let full = m["full_name"].as_str().context("no full_name")?.to_owned();
    let mut repos = Vec::new();
    for path in REPO_PATHS {
        let r = api
            .post(
                &format!("/v1/monorepos/{full}/repos"),
                json!({"path": path}),
            )
            .await?;
        let repo = Repo {
            name: r["name"].as_str().context("no repo name")?.to_owned(),
            url: r["clone_url"].as_str().context("no clone_url")?.to_owned(),
        };
        let work = dir.join("seed").join(&repo.name);
        std::fs::create_dir_all(&work)?;
        run(git(&work).args(["init", "-q"]))?;
        std::fs::write(work.join("README.md"), format!("# {path}\n"))?;
        run(git(&work).args(["add", "-A"]))?;
        run(git(&work).args(["commit", "-q", "-m", "First commit"]))?;
        run(git_door(&work, &api.token).args(["push", "-q", &repo.url, "HEAD:refs/heads/main"]))?;
        repos.push(repo);
    }
    let hook = api
        .post(
            &format!("/v1/monorepos/{full}/hooks"),
            json!({"kind": "web", "url": format!("http://{hook_addr}/hook"), "events": HOOK_EVENTS}),
        )
        .await?;
    let hook_id = hook["id"].as_str().context("no hook id")?.to_owned();
    Ok(Seeded {
        full,
        repos,
        hook_id,
    })
}

/// What every worker shares.
struct Ctx {
    http: reqwest::Client,
    base: String,
    token: String,
    /// The monorepo's `<owner>/<name>`.
    full: String,
    repos: Vec<Repo>,
    dir: PathBuf,
    /// When the load stops.
    deadline: Instant,
    stats: Arc<Stats>,
}

impl Ctx {
    /// The monorepo's API path.
    fn m(&self) -> String {
        format!("/v1/monorepos/{}", self.full)
    }

    /// One request that must answer `want`; its JSON answer.
    async fn request(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        want: u16,
    ) -> anyhow::Result<Value> {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(body);
        }
        let answer = request.send().await?;
        let status = answer.status();
        let text = answer.text().await?;
        if status.as_u16() != want {
            bail!("{status}: {}", clip(&text));
        }
        Ok(serde_json::from_str(&text)?)
    }

    /// The same, timed as `kind`; None (recorded) when it failed.
    async fn call(
        &self,
        kind: &'static str,
        method: Method,
        path: &str,
        body: Option<Value>,
        want: u16,
    ) -> Option<Value> {
        self.stats
            .timed(kind, self.request(method, path, body.as_ref(), want))
            .await
    }

    /// The log's last seq and each repo's main, as getHeads answers them.
    async fn heads(&self) -> anyhow::Result<(i64, HashMap<String, Option<String>>)> {
        let heads = self
            .request(Method::GET, &format!("{}/heads", self.m()), None, 200)
            .await?;
        let seq = heads["seq"].as_i64().context("no seq in heads")?;
        let mains = heads["heads"]
            .as_array()
            .context("no heads")?
            .iter()
            .filter_map(|h| {
                let repo = h["repo"].as_str()?.to_owned();
                Some((repo, h["head"].as_str().map(str::to_owned)))
            })
            .collect();
        Ok((seq, mains))
    }

    /// `git` at the door, giving up on a transfer stalled for a minute.
    fn door(&self, work: &Path) -> Command {
        let mut cmd = git_door(work, &self.token);
        cmd.args(["-c", "http.lowSpeedLimit=1", "-c", "http.lowSpeedTime=60"]);
        cmd
    }

    fn loading(&self) -> bool {
        Instant::now() < self.deadline
    }
}

fn clip(text: &str) -> String {
    text.chars().take(300).collect()
}

/// An error message with each run of digits after its first `: ` as `N`, so errors
/// that differ only in numbers (branches, seqs, times) count as one while an HTTP
/// status before it stays.
fn shape(message: &str) -> String {
    let message = clip(message);
    let (head, rest) = message.split_once(": ").unwrap_or(("", &message));
    let mut shaped = if head.is_empty() {
        String::new()
    } else {
        format!("{head}: ")
    };
    for c in rest.chars() {
        if !c.is_ascii_digit() {
            shaped.push(c);
        } else if !shaped.ends_with('N') {
            shaped.push('N');
        }
    }
    shaped
}

/// Runs a command off the runtime's threads (git takes its time; sockets keep reading).
async fn blocking(mut cmd: Command) -> anyhow::Result<String> {
    tokio::task::spawn_blocking(move || run(&mut cmd)).await?
}

/// A branch pushed, for the merger.
struct Pushed {
    repo: String,
    branch: String,
}

/// Pushes branches in a loop, one repo after the other: fetch main, branch off it,
/// commit a file of the branch's own (so merges never conflict), push; hands each
/// pushed branch to the merger.
async fn pusher(
    ctx: Arc<Ctx>,
    n: usize,
    to_merge: mpsc::UnboundedSender<Pushed>,
) -> anyhow::Result<()> {
    let dir_of = |repo: &Repo| ctx.dir.join(format!("pusher-{n}")).join(&repo.name);
    for repo in &ctx.repos {
        std::fs::create_dir_all(dir_of(repo))?;
        run(git(&dir_of(repo)).args(["init", "-q"]))?;
    }
    let mut round = 0;
    while ctx.loading() {
        round += 1;
        let repo = &ctx.repos[(n + round) % ctx.repos.len()];
        let work = dir_of(repo);
        let branch = format!("p{n}-{round}");
        let mut fetch = ctx.door(&work);
        fetch.args(["fetch", "-q", &repo.url, "main"]);
        if ctx
            .stats
            .timed("git fetch", blocking(fetch))
            .await
            .is_none()
        {
            tokio::time::sleep(PAUSE_AFTER_ERROR).await;
            continue;
        }
        let (dir, name) = (work.clone(), branch.clone());
        tokio::task::spawn_blocking(move || commit(&dir, &name)).await??;
        let mut push = ctx.door(&work);
        push.args([
            "push",
            "-q",
            &repo.url,
            &format!("HEAD:refs/heads/{branch}"),
        ]);
        if ctx.stats.timed("git push", blocking(push)).await.is_some() {
            let pushed = Pushed {
                repo: repo.name.clone(),
                branch,
            };
            // The merger stops at the deadline too; a branch pushed after it stays open.
            let _ = to_merge.send(pushed);
        } else {
            tokio::time::sleep(PAUSE_AFTER_ERROR).await;
        }
    }
    Ok(())
}

/// A commit on a new `branch` off the fetched main, adding `changes/<branch>.txt`.
fn commit(work: &Path, branch: &str) -> anyhow::Result<()> {
    run(git(work).args(["checkout", "-q", "-f", "-B", branch, "FETCH_HEAD"]))?;
    let changes = work.join("changes");
    std::fs::create_dir_all(&changes)?;
    std::fs::write(changes.join(format!("{branch}.txt")), format!("{branch}\n"))?;
    run(git(work).args(["add", "-A"]))?;
    run(git(work).args(["commit", "-q", "-m", &format!("Change {branch}")]))?;
    Ok(())
}

/// Lands every pushed branch, in push order, until the load ends; answers the branches
/// left unmerged.
async fn merger(ctx: Arc<Ctx>, mut pushed: mpsc::UnboundedReceiver<Pushed>) -> usize {
    let deadline = tokio::time::Instant::from_std(ctx.deadline);
    while let Ok(Some(p)) = tokio::time::timeout_at(deadline, pushed.recv()).await {
        let path = format!("{}/repos/{}/branches/{}/merge", ctx.m(), p.repo, p.branch);
        if ctx
            .call("merge", Method::POST, &path, None, 200)
            .await
            .is_none()
        {
            tokio::time::sleep(PAUSE_AFTER_ERROR).await;
        }
    }
    pushed.len()
}

/// Opens an issue, comments on it and closes it, in a loop.
async fn issue_writer(ctx: Arc<Ctx>, n: usize) -> anyhow::Result<()> {
    let issues = format!("{}/issues", ctx.m());
    let mut round = 0;
    while ctx.loading() {
        round += 1;
        let body = json!({
            "title": format!("Soak issue {n}-{round}"),
            "body": format!("Opened by soak writer {n}, round {round}: something to look at."),
            "labels": ["bug"],
        });
        let opened = ctx
            .call("issue open", Method::POST, &issues, Some(body), 201)
            .await;
        let Some(number) = opened.and_then(|i| i["number"].as_i64()) else {
            tokio::time::sleep(PAUSE_AFTER_ERROR).await;
            continue;
        };
        let comment = json!({"body": format!("A comment on {n}-{round}.")});
        let path = format!("{issues}/{number}/comments");
        ctx.call("issue comment", Method::POST, &path, Some(comment), 201)
            .await;
        let close = json!({"state": "closed"});
        let path = format!("{issues}/{number}");
        ctx.call("issue close", Method::PATCH, &path, Some(close), 200)
            .await;
    }
    Ok(())
}

/// Reads what a home, a monorepo page and a follower ask for, in turn.
async fn reader(ctx: Arc<Ctx>, n: usize) -> anyhow::Result<()> {
    let m = ctx.m();
    let mut reads: Vec<(&'static str, String)> = ctx
        .repos
        .iter()
        .map(|r| ("read branches", format!("{m}/repos/{}/branches", r.name)))
        .collect();
    reads.extend([
        ("read issues", format!("{m}/issues")),
        ("read events", format!("{m}/events?limit=100")),
        ("read heads", format!("{m}/heads")),
        ("read home", "/v1/monorepos?summary=1".to_owned()),
        ("read activity", "/v1/events".to_owned()),
        ("read needs", "/v1/branches".to_owned()),
    ]);
    let mut i = n;
    while ctx.loading() {
        let (kind, path) = &reads[i % reads.len()];
        i += 1;
        if ctx.call(kind, Method::GET, path, None, 200).await.is_none() {
            tokio::time::sleep(PAUSE_AFTER_ERROR).await;
        }
    }
    Ok(())
}

/// Latencies and errors of one kind of operation.
#[derive(Default)]
struct Kind {
    times: Vec<Duration>,
    errors: usize,
    /// Each distinct message (numbers as `N`) with how often it came.
    messages: BTreeMap<String, usize>,
}

/// Every operation's outcome, by kind.
#[derive(Default)]
struct Stats(Mutex<BTreeMap<&'static str, Kind>>);

impl Stats {
    fn ok(&self, kind: &'static str, took: Duration) {
        if let Ok(mut kinds) = self.0.lock() {
            kinds.entry(kind).or_default().times.push(took);
        }
    }

    fn failed(&self, kind: &'static str, error: &anyhow::Error) {
        if let Ok(mut kinds) = self.0.lock() {
            let k = kinds.entry(kind).or_default();
            k.errors += 1;
            let mut message = shape(&format!("{error:#}"));
            if k.messages.len() >= DISTINCT_ERRORS && !k.messages.contains_key(&message) {
                message = "(other messages)".into();
            }
            *k.messages.entry(message).or_default() += 1;
        }
    }

    /// Times `op` as `kind`; its value, or None (recorded) when it failed.
    async fn timed<T>(
        &self,
        kind: &'static str,
        op: impl Future<Output = anyhow::Result<T>>,
    ) -> Option<T> {
        let start = Instant::now();
        match op.await {
            Ok(v) => {
                self.ok(kind, start.elapsed());
                Some(v)
            }
            Err(e) => {
                self.failed(kind, &e);
                None
            }
        }
    }

    /// Successes of a kind.
    fn count(&self, kind: &str) -> usize {
        self.0
            .lock()
            .map(|k| k.get(kind).map_or(0, |k| k.times.len()))
            .unwrap_or(0)
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// When the sockets may stop: once they saw `target` (the log's last seq when the load
/// ended), or when told to give up.
struct Finish {
    target: AtomicI64,
    give_up: AtomicBool,
}

impl Finish {
    fn new() -> Finish {
        Finish {
            target: AtomicI64::new(i64::MAX),
            give_up: AtomicBool::new(false),
        }
    }

    fn done(&self, last: i64) -> bool {
        self.give_up.load(Ordering::Acquire) || last >= self.target.load(Ordering::Acquire)
    }
}

/// What one socket saw of the log: every seq after its first `caught_up` should come
/// once, in order.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    /// The seq of its first `caught_up`.
    first: Option<i64>,
    /// The highest seq it has seen.
    last: i64,
    events: u64,
    /// Seqs skipped over (a lost event each).
    missing: u64,
    /// Events at or below one already seen.
    repeated: u64,
    drops: u64,
    resyncs: u64,
}

impl Tally {
    fn event(&mut self, seq: i64) {
        self.events += 1;
        if seq <= self.last {
            self.repeated += 1;
            return;
        }
        self.missing += u64::try_from(seq - self.last - 1).unwrap_or(0);
        self.last = seq;
    }
}

/// One follower's socket: reads events and checks their seqs; when dropped, counts it
/// and reconnects with `since`, as the daemon does.
async fn socket_client(ctx: Arc<Ctx>, finish: Arc<Finish>) -> Tally {
    let mut tally = Tally::default();
    while !finish.done(tally.last) {
        let since = tally.first.map(|_| tally.last);
        let started = Instant::now();
        let mut ws = match open_socket(&ctx, since).await {
            Ok(ws) => ws,
            Err(e) => {
                ctx.stats.failed("socket connect", &e);
                tokio::time::sleep(RECONNECT).await;
                continue;
            }
        };
        match follow(&ctx, &finish, &mut ws, &mut tally, started).await {
            Ok(()) => {
                let _ = ws.close(None).await;
            }
            Err(e) => {
                tally.drops += 1;
                ctx.stats.failed("socket dropped", &e);
                tokio::time::sleep(RECONNECT).await;
            }
        }
    }
    tally
}

async fn open_socket(ctx: &Ctx, since: Option<i64>) -> anyhow::Result<Socket> {
    let mut url = format!("{}{}/events", ctx.base.replacen("http", "ws", 1), ctx.m());
    if let Some(since) = since {
        url.push_str(&format!("?since={since}"));
    }
    let mut request = url.into_client_request()?;
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {}", ctx.token).parse()?);
    let connect = tokio_tungstenite::connect_async(request);
    let (ws, _) = tokio::time::timeout(REQUEST_TIMEOUT, connect)
        .await
        .context("no handshake within the request timeout")??;
    Ok(ws)
}

/// Reads frames until the socket may stop (Ok) or it drops (why). Times the connection
/// to its `caught_up` and each live event from its `at` (the server's clock when it was
/// recorded; same machine) to its arrival.
async fn follow(
    ctx: &Ctx,
    finish: &Finish,
    ws: &mut Socket,
    tally: &mut Tally,
    started: Instant,
) -> anyhow::Result<()> {
    let mut caught_up = false;
    while !finish.done(tally.last) {
        let Ok(next) = tokio::time::timeout(Duration::from_millis(250), ws.next()).await else {
            continue;
        };
        let text = match next.context("the socket ended")?? {
            Message::Text(text) => text,
            Message::Close(frame) => bail!("closed by the server: {frame:?}"),
            _ => continue,
        };
        match serde_json::from_str::<ServerFrame>(&text) {
            Ok(ServerFrame::Event(e)) => {
                if caught_up {
                    let late = time::OffsetDateTime::now_utc() - e.at;
                    ctx.stats.ok(
                        "socket event (lag)",
                        Duration::try_from(late).unwrap_or_default(),
                    );
                }
                tally.event(e.seq);
            }
            Ok(ServerFrame::CaughtUp { seq, .. }) => {
                caught_up = true;
                ctx.stats.ok("socket connect", started.elapsed());
                if tally.first.is_none() {
                    tally.first = Some(seq);
                    tally.last = seq;
                }
            }
            Ok(ServerFrame::Resync { seq, oldest_seq }) => {
                tally.resyncs += 1;
                let why = anyhow!("resync from {} to {seq} (oldest {oldest_seq})", tally.last);
                ctx.stats.failed("socket resync", &why);
                tally.last = tally.last.max(seq);
            }
            Ok(_) => {}
            Err(e) => ctx.stats.failed("socket frame", &e.into()),
        }
    }
    Ok(())
}

/// Waits for every socket to reach the log's end (at most [`SETTLE`], then they give
/// up); answers what each saw.
async fn settle_sockets(
    sockets: Vec<tokio::task::JoinHandle<Tally>>,
    finish: &Finish,
) -> anyhow::Result<Vec<Tally>> {
    let deadline = tokio::time::Instant::now() + SETTLE;
    let mut tallies = Vec::with_capacity(sockets.len());
    for mut socket in sockets {
        let tally = match tokio::time::timeout_at(deadline, &mut socket).await {
            Ok(tally) => tally?,
            Err(_) => {
                finish.give_up.store(true, Ordering::Release);
                socket.await?
            }
        };
        tallies.push(tally);
    }
    Ok(tallies)
}

/// Delivery ids the hook receiver got, each with how often it came (deliveries are
/// at-least-once).
#[derive(Default)]
struct Received(Mutex<HashMap<String, u32>>);

impl Received {
    fn note(&self, id: &str) {
        if let Ok(mut ids) = self.0.lock() {
            *ids.entry(id.to_owned()).or_default() += 1;
        }
    }

    fn distinct(&self) -> usize {
        self.0.lock().map(|ids| ids.len()).unwrap_or(0)
    }

    fn total(&self) -> u64 {
        self.0
            .lock()
            .map(|ids| ids.values().map(|&n| u64::from(n)).sum())
            .unwrap_or(0)
    }

    fn has(&self, id: &str) -> bool {
        self.0.lock().is_ok_and(|ids| ids.contains_key(id))
    }
}

/// The hook receiver on loopback: notes each delivery's id, and the time from its
/// `occurred_at` (when the change was recorded) to its arrival; answers 200.
async fn receiver(stats: Arc<Stats>) -> anyhow::Result<(SocketAddr, Arc<Received>)> {
    let received = Arc::new(Received::default());
    let noted = Arc::clone(&received);
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(
            move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                let (noted, stats) = (Arc::clone(&noted), Arc::clone(&stats));
                async move {
                    let id = headers
                        .get("x-svc-delivery")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("(no X-Svc-Delivery)");
                    noted.note(id);
                    match delivery_lag(&body) {
                        Ok(lag) => stats.ok("hook delivery (lag)", lag),
                        Err(e) => stats.failed("hook delivery (lag)", &e),
                    }
                    "ok"
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((addr, received))
}

/// From a delivery body's `occurred_at` to now.
fn delivery_lag(body: &[u8]) -> anyhow::Result<Duration> {
    let body: Value = serde_json::from_slice(body)?;
    let at = body["occurred_at"].as_str().context("no occurred_at")?;
    let at = time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)?;
    Ok(Duration::try_from(time::OffsetDateTime::now_utc() - at).unwrap_or_default())
}

/// Waits until the receiver has `expected` distinct deliveries, or nothing new came for
/// [`QUIET`] (at most [`SETTLE`]).
async fn settle_hooks(received: &Received, expected: usize) {
    let deadline = Instant::now() + SETTLE;
    let (mut seen, mut since) = (received.distinct(), Instant::now());
    while received.distinct() < expected && Instant::now() < deadline && since.elapsed() < QUIET {
        tokio::time::sleep(Duration::from_millis(200)).await;
        if received.distinct() != seen {
            (seen, since) = (received.distinct(), Instant::now());
        }
    }
}

/// The server process at one moment.
struct Sample {
    at: Duration,
    rss_kb: u64,
    fds: usize,
    cpu_ms: u64,
}

fn sample(pid: u32, started: Instant) -> Sample {
    Sample {
        at: started.elapsed(),
        rss_kb: super::common::rss_kb(pid).unwrap_or(0),
        fds: std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count),
        cpu_ms: cpu_ms(pid),
    }
}

/// Samples the server every [`SAMPLE_EVERY`] from `started` until `until`.
async fn sampler(pid: u32, started: Instant, until: Instant) -> Vec<Sample> {
    let mut samples = vec![sample(pid, started)];
    for k in 1.. {
        let at = (started + SAMPLE_EVERY * k).min(until);
        tokio::time::sleep_until(at.into()).await;
        samples.push(sample(pid, started));
        if at >= until {
            break;
        }
    }
    samples
}

fn report_ops(stats: &Stats, minutes: u64) {
    let Ok(kinds) = stats.0.lock() else {
        return;
    };
    println!(
        "{:<20} {:>7} {:>6} {:>8} {:>10} {:>10} {:>10} {:>10}",
        "operation", "ok", "errors", "ok/min", "p50", "p90", "p99", "max"
    );
    for (name, k) in kinds.iter() {
        let t = &k.times;
        println!(
            "{name:<20} {:>7} {:>6} {:>8.1} {:>10} {:>10} {:>10} {:>10}",
            t.len(),
            k.errors,
            t.len() as f64 / minutes as f64,
            ms(percentile(t, 50)),
            ms(percentile(t, 90)),
            ms(percentile(t, 99)),
            ms(percentile(t, 100)),
        );
    }
    for (name, k) in kinds.iter().filter(|(_, k)| k.errors > 0) {
        for (message, n) in &k.messages {
            println!("  {name} error ×{n}: {message}");
        }
    }
    let errors: usize = kinds.values().map(|k| k.errors).sum();
    println!("errors in all: {errors}; none: {}", met(errors == 0));
}

fn report_samples(samples: &[Sample]) {
    println!(
        "server over time (minute, RSS, open fds, CPU since the line before; the last line \
         once the sockets and hooks settled after the load):"
    );
    let mut before: Option<&Sample> = None;
    for s in samples {
        let cpu = before.map_or_else(
            || "-".to_owned(),
            |b| {
                let wall = s.at.saturating_sub(b.at).as_millis().max(1) as f64;
                format!(
                    "{:.0}% of a core",
                    s.cpu_ms.saturating_sub(b.cpu_ms) as f64 * 100.0 / wall
                )
            },
        );
        println!(
            "  {:>5.1} min  {:>6.1} MiB  {:>4} fds  {cpu}",
            s.at.as_secs_f64() / 60.0,
            s.rss_kb as f64 / 1024.0,
            s.fds
        );
        before = Some(s);
    }
    let at_one = samples.iter().find(|s| s.at >= Duration::from_secs(60));
    if let (Some(one), Some(end)) = (at_one, samples.last()) {
        println!(
            "RSS from minute {:.1} to the end: {:+.1} MiB",
            one.at.as_secs_f64() / 60.0,
            (end.rss_kb as f64 - one.rss_kb as f64) / 1024.0
        );
    }
}

fn report_events(stats: &Stats, tallies: &[Tally], first_seq: i64, last_seq: i64) {
    let writes =
        stats.count("issue open") + stats.count("issue comment") + stats.count("issue close");
    println!(
        "event log: seq {first_seq} → {last_seq} ({} events) for {} pushes, {} merges, {writes} issue writes",
        last_seq - first_seq,
        stats.count("git push"),
        stats.count("merge"),
    );
    let sum = |f: fn(&Tally) -> u64| tallies.iter().map(f).sum::<u64>();
    let expected = sum(|t| u64::try_from(t.last - t.first.unwrap_or(t.last)).unwrap_or(0));
    let missing = sum(|t| t.missing);
    let reached = tallies.iter().filter(|t| t.last >= last_seq).count();
    println!(
        "sockets: {reached}/{} reached seq {last_seq}; {} events expected (each socket's seqs \
         from its first caught_up), {} received, {missing} missing, {} repeated; {} drops, \
         {} resyncs; no lost events: {}",
        tallies.len(),
        expected,
        sum(|t| t.events) - sum(|t| t.repeated),
        sum(|t| t.repeated),
        sum(|t| t.drops),
        sum(|t| t.resyncs),
        met(missing == 0 && reached == tallies.len())
    );
}

async fn report_hooks(
    ctx: &Ctx,
    hook_id: &str,
    received: &Received,
    expected: usize,
) -> anyhow::Result<()> {
    let distinct = received.distinct();
    println!(
        "hook deliveries: {expected} expected (2 per push, 1 per merge), {distinct} received \
         ({} repeats); every one received: {}",
        received.total().saturating_sub(distinct as u64),
        met(distinct >= expected)
    );
    let path = format!("{}/hooks/{hook_id}/deliveries", ctx.m());
    let listed = ctx.request(Method::GET, &path, None, 200).await?;
    let items = listed["items"].as_array().context("no deliveries")?;
    let mut states: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unseen = 0;
    for d in items {
        let state = d["state"].as_str().unwrap_or("?");
        *states.entry(state).or_default() += 1;
        if state == "delivered" && !received.has(d["id"].as_str().unwrap_or_default()) {
            unseen += 1;
        }
    }
    let states: Vec<String> = states.iter().map(|(s, n)| format!("{n} {s}")).collect();
    println!(
        "server's list (the latest {}): {}; listed delivered but never received: {unseen}",
        items.len(),
        states.join(", ")
    );
    Ok(())
}

/// Each repo's main as the API has it against `git ls-remote` at the door.
async fn report_mains(ctx: &Ctx) -> anyhow::Result<()> {
    let (_, mains) = ctx.heads().await?;
    let mut agree = 0;
    for repo in &ctx.repos {
        let mut ls = ctx.door(&ctx.dir);
        ls.args(["ls-remote", &repo.url, "refs/heads/main"]);
        let out = blocking(ls).await?;
        let git_main = out.split_whitespace().next().unwrap_or_default();
        let api_main = mains.get(&repo.name).cloned().flatten().unwrap_or_default();
        if git_main == api_main {
            agree += 1;
        } else {
            println!(
                "  {}: API main {api_main:?}, git main {git_main:?}",
                repo.name
            );
        }
    }
    println!(
        "main in the API = git ls-remote: {agree}/{} repos: {}",
        ctx.repos.len(),
        met(agree == ctx.repos.len())
    );
    Ok(())
}

/// Counts the server log's ERROR and WARN lines, with the first few errors.
fn report_log(log: &Path) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let errors: Vec<&str> = text.lines().filter(|l| l.contains("ERROR")).collect();
    let warnings = text.lines().filter(|l| l.contains("WARN")).count();
    println!(
        "server log: {} ERROR lines, {warnings} WARN lines",
        errors.len()
    );
    for line in errors.iter().take(LOG_LINES) {
        println!("  {}", clip(line));
    }
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}
