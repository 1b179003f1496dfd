//! `svc-bench agent-start`: how soon a launched session shows its agent's first words,
//! with the real Claude Code CLI as the runner (installed by `.ci/agent-clis.sh`) and a
//! model that answers at once, beside the same run with a shell runner.
//!
//! The model is a stand-in of Anthropic's Messages API served by the bench on loopback:
//! every `POST /v1/messages` is answered at once with one streamed text block (the
//! real wire format: `message_start` … `message_stop`). It is the bench's own, not the
//! tests crate's scripted one (`tests/src/fake_anthropic.rs`): that crate depends on the
//! server, so the server's bench cannot use it, and an instant answer needs no script.
//!
//! Claude Code runs with the README's settings for it (bubblewrap, its install dir shown
//! read-only, the key from a file, `svc mcp` as its MCP server), pointed at the stand-in;
//! the baseline runner is a shell script that reads the prompt and prints one
//! `svc-jsonl` line. For each, `--runs` sessions one after another: the time from the
//! launch request to the first agentLive frame holding an assistant message (the
//! session page's first transcript frame of the agent) — the clone through the git
//! door, the sandbox, the CLI's start-up and its model round trip, the server storing
//! the message and the frame. Claude Code alone (no svc, no sandbox) to its first
//! assistant line is timed too, so the CLI's own share shows.
//!
//! Goal: launch → first agent frame p50 < 1 s with Claude Code.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::StreamExt;
use serde_json::{Value, json};
use svc_protocol::agent::{LiveFrame, Role};
use tokio::io::AsyncBufReadExt;
use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};

use super::branches::{ms, percentile};
use super::common::{Api, Server, git, git_door, print_load, print_machine, run, work_dir};

/// Goal: launch → first agent frame, p50, with Claude Code.
const GOAL: Duration = Duration::from_secs(1);
/// How long one session may take to show its agent's words, and to end.
const WAIT: Duration = Duration::from_secs(60);
/// The key the stand-in is given (it checks none: nothing here is secret).
const KEY: &str = "sk-ant-bench-key";

/// The baseline: reads the prompt, says one thing.
const SHELL_RUNNER: &str = "#!/bin/sh\ncat >/dev/null\n\
    echo '{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"Done.\"}]}'\n";

pub struct Options {
    pub runs: usize,
    /// Where `.ci/agent-clis.sh` installed the command lines.
    pub clis: Option<PathBuf>,
    pub database_url: Option<String>,
    pub keep: bool,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    if opts.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let clis = match opts.clis.clone() {
        Some(dir) => dir,
        None => std::env::var_os("SVC_AGENT_CLIS_DIR")
            .map_or_else(|| PathBuf::from("target/agent-clis"), PathBuf::from),
    };
    let claude = clis.join("node_modules/.bin/claude");
    if !claude.is_file() {
        bail!(
            "{} is missing: run .ci/agent-clis.sh (or name its dir with --clis)",
            claude.display()
        );
    }
    let clis = clis.canonicalize()?;
    let claude = clis.join("node_modules/.bin/claude");
    let bwrap = Command::new("bwrap").arg("--version").output();
    if !bwrap.is_ok_and(|o| o.status.success()) {
        bail!("runners run in bubblewrap: install it (Debian: apt-get install -y bubblewrap)");
    }
    let svc = std::env::current_exe()?.with_file_name("svc");
    if !svc.is_file() {
        bail!(
            "{} is missing (Claude Code's MCP server): build it with `cargo build --release -p svc-cli`",
            svc.display()
        );
    }
    print_machine();
    let version = run(Command::new(&claude).arg("--version"))?;
    let dir = work_dir("agent-start")?;
    let (model, _serving) = stand_in().await?;
    let port = model.rsplit(':').next().context("the stand-in's port")?;
    let key = dir.join("anthropic-api-key");
    std::fs::write(&key, KEY)?;
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))?;
    let shell = dir.join("runner.sh");
    std::fs::write(&shell, SHELL_RUNNER)?;
    std::fs::set_permissions(&shell, std::fs::Permissions::from_mode(0o755))?;
    let quote = |p: &Path| serde_json::to_string(&p.display().to_string());
    let mcp = r#"'{"mcpServers": {"svc": {"command": "svc", "args": ["mcp"]}}}'"#;
    let config = dir.join("svc.toml");
    std::fs::write(
        &config,
        format!(
            "[agents]\nsvc = {svc}\n\
             [agents.runners.claude]\n\
             command = [{claude}, \"-p\", \"--output-format\", \"stream-json\", \"--verbose\", \
             \"--allowedTools\", \"Bash Edit Write mcp__svc\", \"--mcp-config\", {mcp}]\n\
             format = \"claude-stream-json\"\nro_paths = [{clis}]\nhost_ports = [{port}]\n\
             env = {{ ANTHROPIC_BASE_URL = \"{model}\", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = \"1\" }}\n\
             secret_files = {{ ANTHROPIC_API_KEY = {key} }}\n\
             [agents.runners.shell]\ncommand = [{shell}]\nformat = \"svc-jsonl\"\n\
             [[agents.models]]\nid = \"claude\"\nrunner = \"claude\"\n\
             [[agents.models]]\nid = \"shell\"\nrunner = \"shell\"\n",
            svc = quote(&svc)?,
            claude = quote(&claude)?,
            clis = quote(&clis)?,
            key = quote(&key)?,
            shell = quote(&shell)?,
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
        "backend: {}; Claude Code {version} in bubblewrap against a stand-in model that answers at once",
        if db.is_some() { "PostgreSQL" } else { "SQLite" }
    );
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "app").await?;
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    run(git(&work).args(["init", "-q"]))?;
    std::fs::write(work.join("README"), "agent start bench\n")?;
    run(git(&work).args(["add", "README"]))?;
    run(git(&work).args(["commit", "-q", "-m", "First"]))?;
    run(git_door(&work, &api.token).args(["push", "-q", &url, "main"]))?;
    let sockets = format!(
        "{}/v1/monorepos/{full}/agents",
        server.base.replacen("http", "ws", 1)
    );

    // One of each first, untimed: the first start of a program reads it from disk.
    let (mut shell_times, mut claude_times) = (Vec::new(), Vec::new());
    let (mut shell_launch, mut claude_launch) = (Vec::new(), Vec::new());
    for i in 0..=opts.runs {
        for (id, times, launches) in [
            ("shell", &mut shell_times, &mut shell_launch),
            ("claude", &mut claude_times, &mut claude_launch),
        ] {
            let (launched, first) = session(&api, &full, &sockets, id, i).await?;
            if i > 0 {
                launches.push(launched);
                times.push(first);
            }
        }
    }
    let mut alone = Vec::new();
    for i in 0..=opts.runs {
        let home = dir.join(format!("alone-{i:03}"));
        std::fs::create_dir_all(&home)?;
        let took = claude_alone(&claude, &model, &home).await?;
        if i > 0 {
            alone.push(took);
        }
    }
    print_load();

    let p50 = percentile(&claude_times, 50);
    let met = p50 < GOAL;
    let n = opts.runs;
    println!(
        "launch → first agent frame, {n} sessions each, one at a time: Claude Code p50 {}, \
         max {}; shell runner p50 {}, max {}; goal Claude Code p50 < {}: {}",
        ms(p50),
        ms(percentile(&claude_times, 100)),
        ms(percentile(&shell_times, 50)),
        ms(percentile(&shell_times, 100)),
        ms(GOAL),
        if met { "met" } else { "MISSED" }
    );
    println!(
        "  of which the launch request (checkout cloned through the door, runner started): \
         Claude Code p50 {}, shell p50 {}",
        ms(percentile(&claude_launch, 50)),
        ms(percentile(&shell_launch, 50)),
    );
    println!(
        "  Claude Code alone (no svc, no sandbox): start → first assistant line p50 {}, max {}",
        ms(percentile(&alone, 50)),
        ms(percentile(&alone, 100)),
    );

    server.stop();
    if !met {
        bail!(
            "goal missed: launch → first agent frame p50 with Claude Code; the working \
             directory is kept: {}",
            dir.display()
        );
    }
    if opts.keep {
        println!("kept {} (server log server.log)", dir.display());
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

/// Launches a session of model `model` on a branch of its own, then follows it on its
/// agentLive socket; answers how long the launch request took and how long until the
/// first frame holding an assistant message, both from the launch. Waits for the
/// session to end idle.
async fn session(
    api: &Api,
    full: &str,
    sockets: &str,
    model: &str,
    i: usize,
) -> anyhow::Result<(Duration, Duration)> {
    let branch = format!("{model}-{i:03}");
    let start = Instant::now();
    let s = api
        .post(
            &format!("/v1/monorepos/{full}/agents"),
            json!({"prompt": "Say done.", "branch": branch, "model": model}),
        )
        .await
        .with_context(|| format!("launching {branch}"))?;
    let launched = start.elapsed();
    let id = s["id"].as_str().context("no session id")?.to_owned();
    let mut request = format!("{sockets}/{id}/live").into_client_request()?;
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {}", api.token).parse()?);
    let (mut ws, _) = tokio_tungstenite::connect_async(request).await?;
    let first = tokio::time::timeout(WAIT, async {
        while let Some(frame) = ws.next().await {
            if let Message::Text(text) = frame? {
                let LiveFrame::Messages { messages, .. } = serde_json::from_str(&text)?;
                if messages.iter().any(|m| m.role == Role::Assistant) {
                    return Ok(Some(start.elapsed()));
                }
            }
        }
        Ok::<_, anyhow::Error>(None)
    })
    .await
    .with_context(|| format!("{branch} said nothing within {WAIT:?}"))??;
    let session = format!("/v1/monorepos/{full}/agents/{id}");
    let Some(first) = first else {
        let s = api.get(&session).await?;
        bail!(
            "{branch} ended ({} {}) before its agent said anything",
            s["state"],
            s["reason"]
        );
    };
    let deadline = Instant::now() + WAIT;
    loop {
        let s = api.get(&session).await?;
        match s["state"].as_str() {
            Some("idle") => return Ok((launched, first)),
            Some("launching" | "running") if Instant::now() < deadline => {}
            _ => bail!("{branch} ended {}: {}", s["state"], s["reason"]),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Claude Code run by hand against the stand-in, in `home` (fresh): start → its first
/// assistant line.
async fn claude_alone(claude: &Path, model: &str, home: &Path) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let mut child = tokio::process::Command::new(claude)
        .args([
            "-p",
            "Say done.",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .current_dir(home)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .env("ANTHROPIC_BASE_URL", model)
        .env("ANTHROPIC_API_KEY", KEY)
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let stdout = child.stdout.take().context("no stdout")?;
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let took = tokio::time::timeout(WAIT, async {
        while let Some(line) = lines.next_line().await? {
            if line.starts_with(r#"{"type":"assistant""#) {
                return Ok(start.elapsed());
            }
        }
        bail!("Claude Code ended without an assistant line")
    })
    .await
    .context("Claude Code said nothing within a minute")??;
    child.wait().await?;
    Ok(took)
}

/// The stand-in model on a loopback port: answers its base URL and the serving task.
async fn stand_in() -> anyhow::Result<(String, tokio::task::JoinHandle<()>)> {
    let app = axum::Router::new().route("/v1/messages", axum::routing::post(answer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((base, task))
}

/// "Done." at once, streamed as the Messages API streams (or whole when not asked to
/// stream).
async fn answer(axum::Json(body): axum::Json<Value>) -> axum::response::Response {
    use axum::response::IntoResponse;
    let model = body["model"].clone();
    let usage = json!({"input_tokens": 10, "output_tokens": 2});
    if body["stream"] != true {
        let message = json!({"id": "msg_bench", "type": "message", "role": "assistant",
            "model": model, "content": [{"type": "text", "text": "Done."}],
            "stop_reason": "end_turn", "stop_sequence": null, "usage": usage});
        return axum::Json(message).into_response();
    }
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_bench", "type": "message",
            "role": "assistant", "model": model, "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": usage}}),
        json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": "Done."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn",
            "stop_sequence": null}, "usage": {"output_tokens": 2}}),
        json!({"type": "message_stop"}),
    ];
    let mut out = String::new();
    for e in events {
        let name = e["type"].as_str().unwrap_or_default().to_owned();
        out.push_str(&format!("event: {name}\ndata: {e}\n\n"));
    }
    (
        [(axum::http::header::CONTENT_TYPE, "text/event-stream")],
        out,
    )
        .into_response()
}
