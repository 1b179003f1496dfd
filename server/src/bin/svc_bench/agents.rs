//! `svc-bench agents`: agent sessions on a real `svc-server` (SQLite unless
//! `--database-url`) whose `[agents]` has one runner, a script of the bench's (`python3`),
//! run the way the server runs any runner: in bubblewrap, in a checkout it cloned through
//! its own git door, the prompt on its standard input, `svc-jsonl` on its output.
//!
//! The runner is told what to do in its prompt (JSON). It first connects to a TCP gate the
//! bench holds on the loopback (the sandbox shares the network) and waits there, so no line
//! is written before the bench's agentLive socket has had its first frame. Then it writes
//! its lines, paced on its monotonic clock, each an assistant message whose text carries
//! its number and the wall-clock time (CLOCK_REALTIME, ns) just before its `write`: the
//! sandbox has a PID namespace of its own but the machine's clock. The bench notes on the
//! same clock when each message's frame reached its socket, so a figure covers the pipe,
//! the server reading the line, storing the message (one transaction), waking the socket,
//! reading the message back and sending the frame. The message's `at` (the server's clock
//! when it stored it, ms) splits it in two.
//!
//! - load (first, on the fresh server): `--sessions` sessions launched at once
//!   (`max_running` and `max_running_per_person` allow them all), each with an agentLive
//!   socket, held at the gate until all are there and released together. Each writes
//!   `--messages` messages `--session-interval-ms` apart, commits a file, pushes its branch
//!   through the git door and says how the push went. Every session must end idle, every
//!   socket must get every message in order and close with 1000, every branch must hold
//!   its commit (goal: all finish), and the server's RSS, polled every 10 ms, must stay
//!   under 100 MB over its reading before the launches (goal);
//! - latency: one session writing `--lines` lines `--interval-ms` apart; p50, p99 and
//!   max of line → frame (goal p99 < 50 ms).
//!
//! Exits non-zero when a goal is missed, keeping the working directory (with the
//! server's log).

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use futures_util::StreamExt;
use serde_json::{Value, json};
use svc_protocol::agent::{LiveFrame, Part, Role};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};

use super::branches::{ms, percentile};
use super::common::{
    Api, RssPoller, Server, git, git_door, print_load, print_machine, run, work_dir,
};

/// Goal: a runner line → its frame at a connected socket, p99.
const LATENCY_GOAL: Duration = Duration::from_millis(50);
/// Goal: the server's RSS growth with the sessions running, in kB (100 MB).
const GROWTH_GOAL_KB: u64 = 100_000_000 / 1024;
/// How long runners may take to reach the gate, and sockets their first frame.
const START_WAIT: Duration = Duration::from_secs(120);
/// The runner interpreter (its first line names it).
const PYTHON: &str = "/usr/bin/python3";

/// The runner: told in its prompt (JSON) the gate's port, how many lines to write, how
/// far apart, and whether to commit and push afterwards.
const RUNNER: &str = r#"#!/usr/bin/python3
# svc-bench agents' runner: its task is the prompt (JSON) on standard input.
import json, os, socket, subprocess, sys, time

task = json.loads(sys.stdin.read())
session = os.environ["SVC_AGENT_SESSION"]
gate = socket.create_connection(("127.0.0.1", task["gate"]))
gate.sendall((session + "\n").encode())
if not gate.recv(16):
    sys.exit("the bench closed the gate")
gate.close()
out = sys.stdout
step = task["interval_ms"] / 1000.0
due = time.monotonic()
for i in range(task["lines"]):
    due += step
    wait = due - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    out.write('{"role":"assistant","parts":[{"type":"text","text":"%d %d"}]}\n' % (i, time.time_ns()))
    out.flush()
if task["push"]:
    with open("AGENT.md", "w") as f:
        f.write("Written by agent session %s\n" % session)
    done = subprocess.run(
        ["sh", "-c", "git add AGENT.md && git commit -q -m 'Bench agent commit' && git push -q"],
        stdout=subprocess.DEVNULL,
    )
    said = {"role": "assistant", "parts": [{"type": "text", "text": "pushed %d" % done.returncode}]}
    out.write(json.dumps(said) + "\n")
    out.flush()
    sys.exit(done.returncode)
"#;

pub struct Options {
    pub lines: usize,
    pub interval_ms: u64,
    pub sessions: usize,
    pub messages: usize,
    pub session_interval_ms: u64,
    pub database_url: Option<String>,
    pub keep: bool,
}

/// Where the sessions run and how to reach them.
struct Bench<'a> {
    server: &'a Server,
    api: &'a Api,
    /// The monorepo's full name.
    full: String,
    /// `ws://…/v1/monorepos/<full>/agents`.
    sockets: String,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    if opts.lines == 0 || opts.sessions == 0 || opts.messages == 0 {
        bail!("--lines, --sessions and --messages must be at least 1");
    }
    if !Path::new(PYTHON).exists() {
        bail!("the bench's runner is a python3 script: {PYTHON} is missing");
    }
    let bwrap = Command::new("bwrap").arg("--version").output();
    if !bwrap.is_ok_and(|o| o.status.success()) {
        bail!("runners run in bubblewrap: install it (Debian: apt-get install -y bubblewrap)");
    }
    print_machine();
    let dir = work_dir("agents")?;
    let runner = dir.join("runner.py");
    std::fs::write(&runner, RUNNER)?;
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755))?;
    let most = opts.sessions + 1;
    let config = dir.join("svc.toml");
    std::fs::write(
        &config,
        format!(
            "[agents]\nsandbox = \"bwrap\"\nmax_running = {most}\nmax_running_per_person = {most}\n\
             [agents.runners.bench]\ncommand = [{}]\nformat = \"svc-jsonl\"\n\
             [[agents.models]]\nid = \"bench\"\nrunner = \"bench\"\n",
            serde_json::to_string(&runner.display().to_string())?
        ),
    )?;
    let db = opts.database_url.as_deref();
    let server = Server::start_with(
        &dir.join("data"),
        db,
        &dir.join("server.log"),
        Some(&config),
    )
    .await?;
    println!(
        "backend: {}; runner: {PYTHON} script, svc-jsonl, in bubblewrap",
        if db.is_some() { "PostgreSQL" } else { "SQLite" }
    );
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "app").await?;
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    run(git(&work).args(["init", "-q"]))?;
    std::fs::write(work.join("README"), "agents bench\n")?;
    run(git(&work).args(["add", "README"]))?;
    run(git(&work).args(["commit", "-q", "-m", "First"]))?;
    run(git_door(&work, &api.token).args(["push", "-q", &url, "main"]))?;
    let main = run(git(&work).args(["rev-parse", "HEAD"]))?;
    let b = Bench {
        server: &server,
        api: &api,
        sockets: format!(
            "{}/v1/monorepos/{full}/agents",
            server.base.replacen("http", "ws", 1)
        ),
        full,
    };
    let mut gate = Gate::open().await?;
    let mut missed = Vec::new();

    let load = load(&b, &mut gate, &opts, &main).await?;
    let latency = latency(&b, &mut gate, &opts).await?;
    print_load();

    // The figures, the latency goal first.
    let p99 = percentile(&latency.late, 99);
    println!(
        "runner line → agentLive frame, 1 session, {} lines {} ms apart: p50 {}, p99 {}, max {} \
         ({} frames); goal p99 < {}: {}",
        latency.late.len(),
        opts.interval_ms,
        ms(percentile(&latency.late, 50)),
        ms(p99),
        ms(percentile(&latency.late, 100)),
        latency.frames,
        ms(LATENCY_GOAL),
        verdict(p99 < LATENCY_GOAL, &mut missed, "line → frame p99")
    );
    println!(
        "  of which line → stored (the message's `at`, cut to the ms: up to 1 ms low): p50 {}, p99 {}, max {}",
        ms(percentile(&latency.stored, 50)),
        ms(percentile(&latency.stored, 99)),
        ms(percentile(&latency.stored, 100)),
    );
    let n = opts.sessions;
    println!(
        "{n} sessions at once, {} messages {} ms apart each, then a commit and a push: \
         launches (clone through the door, runner started) p50 {}, max {}; released → every \
         session over in {:.2} s",
        opts.messages,
        opts.session_interval_ms,
        ms(percentile(&load.launches, 50)),
        ms(percentile(&load.launches, 100)),
        load.ran.as_secs_f64()
    );
    println!(
        "  runner line → frame at the {n} sockets meanwhile ({} lines): p50 {}, p99 {}, max {}; \
         line → stored p50 {}, p99 {}",
        load.late.len(),
        ms(percentile(&load.late, 50)),
        ms(percentile(&load.late, 99)),
        ms(percentile(&load.late, 100)),
        ms(percentile(&load.stored, 50)),
        ms(percentile(&load.stored, 99)),
    );
    for w in load.wrong.iter().take(10) {
        println!("  {w}");
    }
    let growth = load.peak.saturating_sub(load.before);
    println!(
        "  server RSS {} before the launches, peak {} while they ran (+{}), {} 1 s after \
         the last ended; the runners, bubblewrap and git (the server's descendants) peaked at \
         {} together ({} anonymous)",
        mib_kb(load.before),
        mib_kb(load.peak),
        mib_kb(growth),
        mib_kb(load.after),
        mib_kb(load.children),
        mib_kb(load.children_anon),
    );
    println!(
        "{} of {n} sessions finished (idle, every message on its socket in order, closed \
         1000, its branch pushed); goal all finish: {}",
        load.finished,
        verdict(load.finished == n, &mut missed, "all sessions finish")
    );
    println!(
        "server RSS growth +{} (peak over before); goal < 100 MB: {}",
        mib_kb(growth),
        verdict(growth < GROWTH_GOAL_KB, &mut missed, "RSS growth")
    );

    server.stop();
    if !missed.is_empty() {
        bail!(
            "goals missed: {}; the working directory is kept: {}",
            missed.join(", "),
            dir.display()
        );
    }
    if opts.keep {
        println!(
            "kept {} (token {}, server log server.log)",
            dir.display(),
            api.token
        );
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

/// What the latency run measured.
struct Latency {
    late: Vec<Duration>,
    stored: Vec<Duration>,
    frames: usize,
}

/// One session writing `--lines` lines to a connected socket.
async fn latency(b: &Bench<'_>, gate: &mut Gate, opts: &Options) -> anyhow::Result<Latency> {
    let task = json!({
        "gate": gate.port, "lines": opts.lines, "interval_ms": opts.interval_ms, "push": false,
    });
    let id = launch(b, "latency", &task).await?;
    let runs_for = Duration::from_millis(opts.interval_ms) * u32::try_from(opts.lines)?;
    let (attached, watcher) = b.watch(&id, runs_for + START_WAIT);
    first_frame(attached).await?;
    let gated = gate.wait_for(b, std::slice::from_ref(&id)).await?;
    Gate::release(gated).await?;
    let seen = watcher.await??;
    let state = settled(b, &id).await?;
    if state["state"] != "idle" {
        bail!(
            "the latency session ended {}: {}",
            state["state"],
            state["reason"]
        );
    }
    if seen.late.len() != opts.lines || !seen.in_order || seen.close != Some(1000) {
        bail!(
            "the latency socket got {} of {} lines (in order: {}, closed with {:?})",
            seen.late.len(),
            opts.lines,
            seen.in_order,
            seen.close
        );
    }
    Ok(Latency {
        late: seen.late,
        stored: seen.stored,
        frames: seen.frames,
    })
}

/// What the concurrent sessions gave.
struct Load {
    launches: Vec<Duration>,
    /// From the gate's release to the last socket's close.
    ran: Duration,
    late: Vec<Duration>,
    stored: Vec<Duration>,
    /// Sessions that ended as they should.
    finished: usize,
    /// What was wrong with the others.
    wrong: Vec<String>,
    /// Server RSS (kB) before the launches, at peak, and after.
    before: u64,
    peak: u64,
    after: u64,
    /// Peak RSS (kB) of the server's descendants together, and their anonymous part.
    children: u64,
    children_anon: u64,
}

/// `--sessions` sessions at once, each pushing its branch.
async fn load(b: &Bench<'_>, gate: &mut Gate, opts: &Options, main: &str) -> anyhow::Result<Load> {
    let n = opts.sessions;
    let task = json!({
        "gate": gate.port, "lines": opts.messages, "interval_ms": opts.session_interval_ms,
        "push": true,
    });
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = b.server.rss_kb();
    let poll = RssPoller::start(b.server.pid());
    let launched = futures_util::future::join_all((0..n).map(|i| {
        let task = &task;
        async move {
            let start = Instant::now();
            let id = launch(b, &format!("agent-{i:02}"), task).await?;
            Ok::<_, anyhow::Error>((id, start.elapsed()))
        }
    }))
    .await;
    let mut ids = Vec::with_capacity(n);
    let mut launches = Vec::with_capacity(n);
    for l in launched {
        let (id, took) = l?;
        ids.push(id);
        launches.push(took);
    }
    let runs_for = Duration::from_millis(opts.session_interval_ms) * u32::try_from(opts.messages)?;
    let mut watchers = Vec::with_capacity(n);
    for id in &ids {
        let (attached, watcher) = b.watch(id, runs_for * 4 + START_WAIT);
        watchers.push((attached, watcher));
    }
    let mut running = Vec::with_capacity(n);
    for (attached, watcher) in watchers {
        first_frame(attached).await?;
        running.push(watcher);
    }
    let gated = gate.wait_for(b, &ids).await?;
    let released = Instant::now();
    Gate::release(gated).await?;
    let mut seen = Vec::with_capacity(n);
    for watcher in running {
        seen.push(watcher.await?);
    }
    let ran = released.elapsed();
    let peaks = poll.finish();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = b.server.rss_kb();

    let (mut late, mut stored, mut wrong) = (Vec::new(), Vec::new(), Vec::new());
    let mut finished = 0;
    // The prompt, the lines, what the push gave.
    let expected = opts.messages + 2;
    for (i, (id, seen)) in ids.iter().zip(seen).enumerate() {
        let branch = format!("agent-{i:02}");
        let seen = match seen {
            Ok(seen) => seen,
            Err(e) => {
                wrong.push(format!("{branch} ({id}): its socket: {e:#}"));
                continue;
            }
        };
        late.extend_from_slice(&seen.late);
        stored.extend_from_slice(&seen.stored);
        let state = settled(b, id).await?;
        let head = b
            .api
            .get(&format!(
                "/v1/monorepos/{}/repos/app/branches/{branch}",
                b.full
            ))
            .await?;
        let problem = if state["state"] != "idle" {
            Some(format!("ended {}: {}", state["state"], state["reason"]))
        } else if seen.messages != expected || seen.late.len() != opts.messages {
            Some(format!(
                "its socket got {} messages ({} lines), not {expected}",
                seen.messages,
                seen.late.len()
            ))
        } else if !seen.in_order {
            Some("its socket's frames skipped or repeated messages".into())
        } else if seen.close != Some(1000) {
            Some(format!("its socket closed with {:?}", seen.close))
        } else if seen.last.as_deref() != Some("pushed 0") {
            Some(format!("its last message is {:?}", seen.last))
        } else if head["head"] == main {
            Some("its branch is still at main".into())
        } else {
            None
        };
        match problem {
            Some(p) => wrong.push(format!("{branch} ({id}): {p}")),
            None => finished += 1,
        }
    }
    Ok(Load {
        launches,
        ran,
        late,
        stored,
        finished,
        wrong,
        before,
        peak: peaks.rss,
        after,
        children: peaks.children,
        children_anon: peaks.children_anon,
    })
}

impl Bench<'_> {
    /// Opens session `id`'s agentLive socket on a task of its own, which reads it to its
    /// close (for at most `deadline`); the receiver hears of the first frame.
    fn watch(
        &self,
        id: &str,
        deadline: Duration,
    ) -> (
        oneshot::Receiver<anyhow::Result<()>>,
        tokio::task::JoinHandle<anyhow::Result<Seen>>,
    ) {
        let (tx, rx) = oneshot::channel();
        let url = format!("{}/{id}/live", self.sockets);
        let token = self.api.token.clone();
        let watcher = tokio::spawn(async move {
            match tokio::time::timeout(deadline, watch(&url, &token, tx)).await {
                Ok(seen) => seen,
                Err(_) => bail!("the socket was still open after {deadline:?}"),
            }
        });
        (rx, watcher)
    }
}

/// Waits for a socket's first frame.
async fn first_frame(attached: oneshot::Receiver<anyhow::Result<()>>) -> anyhow::Result<()> {
    match tokio::time::timeout(START_WAIT, attached).await {
        Ok(Ok(got)) => got,
        Ok(Err(_)) => bail!("an agentLive socket ended before its first frame"),
        Err(_) => bail!("an agentLive socket had no frame within {START_WAIT:?}"),
    }
}

/// What one agentLive socket saw.
struct Seen {
    /// Per runner line: its frame's arrival − its writing.
    late: Vec<Duration>,
    /// Per runner line: its message's `at` (stored, ms) − its writing.
    stored: Vec<Duration>,
    /// Messages received, over all frames.
    messages: usize,
    /// Whether every frame and message went on where the one before ended.
    in_order: bool,
    frames: usize,
    /// The close frame's code.
    close: Option<u16>,
    /// The text of the last message.
    last: Option<String>,
}

async fn watch(
    url: &str,
    token: &str,
    attached: oneshot::Sender<anyhow::Result<()>>,
) -> anyhow::Result<Seen> {
    let mut attached = Some(attached);
    let opened = async {
        let mut request = url.into_client_request()?;
        request
            .headers_mut()
            .insert("authorization", format!("Bearer {token}").parse()?);
        Ok::<_, anyhow::Error>(tokio_tungstenite::connect_async(request).await?.0)
    };
    let mut ws = match opened.await {
        Ok(ws) => ws,
        Err(e) => {
            if let Some(a) = attached.take() {
                let _ = a.send(Err(anyhow::anyhow!("cannot open {url}: {e:#}")));
            }
            return Err(e);
        }
    };
    let mut seen = Seen {
        late: Vec::new(),
        stored: Vec::new(),
        messages: 0,
        in_order: true,
        frames: 0,
        close: None,
        last: None,
    };
    while let Some(frame) = ws.next().await {
        let now = unix_ns();
        match frame? {
            Message::Text(text) => {
                let LiveFrame::Messages { from, messages } = serde_json::from_str(&text)?;
                seen.frames += 1;
                seen.in_order &= from == seen.messages as i64;
                for m in messages {
                    seen.in_order &= m.index == seen.messages as i64;
                    seen.messages += 1;
                    let Some(Part::Text { text }) = m.parts.first() else {
                        continue;
                    };
                    if m.role == Role::Assistant
                        && let Some(written) = stamp(text)
                    {
                        seen.late.push(since(written, now));
                        seen.stored
                            .push(since(written, m.at.unix_timestamp_nanos()));
                    }
                    seen.last = Some(text.clone());
                }
                if let Some(a) = attached.take() {
                    let _ = a.send(Ok(()));
                }
            }
            Message::Close(frame) => {
                seen.close = frame.map(|f| u16::from(f.code));
                break;
            }
            _ => {}
        }
    }
    Ok(seen)
}

/// The write time a runner line's text (`<number> <unix ns>`) carries.
fn stamp(text: &str) -> Option<i128> {
    let (number, ns) = text.split_once(' ')?;
    number.parse::<u64>().ok()?;
    ns.parse().ok()
}

/// `to − from` in ns as a duration (none when the clock went back).
fn since(from: i128, to: i128) -> Duration {
    Duration::from_nanos(u64::try_from(to - from).unwrap_or(0))
}

fn unix_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(0))
}

/// Launches a session on `branch` told `task`; answers its id.
async fn launch(b: &Bench<'_>, branch: &str, task: &Value) -> anyhow::Result<String> {
    let s = b
        .api
        .post(
            &format!("/v1/monorepos/{}/agents", b.full),
            json!({"prompt": task.to_string(), "branch": branch}),
        )
        .await
        .with_context(|| format!("launching a session on {branch}"))?;
    if s["state"] != "running" {
        bail!("the session on {branch} is {}: {}", s["state"], s["reason"]);
    }
    Ok(s["id"].as_str().context("no session id")?.to_owned())
}

/// The session once its run is over (polled every 50 ms, for at most a minute).
async fn settled(b: &Bench<'_>, id: &str) -> anyhow::Result<Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = b
            .api
            .get(&format!("/v1/monorepos/{}/agents/{id}", b.full))
            .await?;
        if !matches!(s["state"].as_str(), Some("launching" | "running")) {
            return Ok(s);
        }
        if Instant::now() > deadline {
            bail!("session {id} is still {} after a minute", s["state"]);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Where runners wait: each connects, says its session's id and waits for a line.
struct Gate {
    port: u16,
    arrived: mpsc::UnboundedReceiver<(String, TcpStream)>,
    waiting: HashMap<String, TcpStream>,
}

impl Gate {
    async fn open() -> anyhow::Result<Gate> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let (tx, arrived) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let tx = tx.clone();
                tokio::spawn(async move {
                    let mut reader = BufReader::new(stream);
                    let mut id = String::new();
                    if reader.read_line(&mut id).await.is_ok() {
                        let _ = tx.send((id.trim().to_owned(), reader.into_inner()));
                    }
                });
            }
        });
        Ok(Gate {
            port,
            arrived,
            waiting: HashMap::new(),
        })
    }

    /// Waits until the runners of every session of `ids` are at the gate; on a timeout,
    /// says where the missing sessions are.
    async fn wait_for(&mut self, b: &Bench<'_>, ids: &[String]) -> anyhow::Result<Vec<TcpStream>> {
        let deadline = tokio::time::Instant::now() + START_WAIT;
        while ids.iter().any(|id| !self.waiting.contains_key(id)) {
            match tokio::time::timeout_at(deadline, self.arrived.recv()).await {
                Ok(Some((id, stream))) => {
                    self.waiting.insert(id, stream);
                }
                Ok(None) => bail!("the gate closed"),
                Err(_) => {
                    let mut missing = Vec::new();
                    for id in ids.iter().filter(|id| !self.waiting.contains_key(*id)) {
                        let s = b
                            .api
                            .get(&format!("/v1/monorepos/{}/agents/{id}", b.full))
                            .await?;
                        missing.push(format!("{id} {}: {}", s["state"], s["reason"]));
                    }
                    bail!(
                        "runners did not reach the gate within {START_WAIT:?}: {}",
                        missing.join("; ")
                    );
                }
            }
        }
        Ok(ids
            .iter()
            .filter_map(|id| self.waiting.remove(id))
            .collect())
    }

    /// Lets the runners go, one right after another.
    async fn release(streams: Vec<TcpStream>) -> anyhow::Result<()> {
        for mut s in streams {
            s.write_all(b"go\n").await?;
        }
        Ok(())
    }
}

fn verdict(ok: bool, missed: &mut Vec<&'static str>, goal: &'static str) -> &'static str {
    if ok {
        "met"
    } else {
        missed.push(goal);
        "MISSED"
    }
}

fn mib_kb(kb: u64) -> String {
    format!("{:.1} MiB", kb as f64 / 1024.0)
}
