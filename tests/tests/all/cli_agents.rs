//! `svc agent ...` and `svc issue agent` end to end: the real `svc` in an svc clone of
//! `ann/mono` (repo `app`) against a real server whose coding agent is a shell script
//! speaking `svc-jsonl`, run in its bubblewrap sandbox. Read as transcripts: what ann
//! types, what svc answers.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use serde_json::Value;
use svc_tests::git::all_output;
use svc_tests::laptop::WAIT;
use svc_tests::machine::Machine;
use svc_tests::{Cloned, TestApp};

const M: &str = "/v1/monorepos/ann/mono";

/// ann at her machine, in her svc clone of `ann/mono`, on a server whose agent is
/// `runner`: two models, `fast` (the default) and `careful`, both running it.
struct World {
    c: Cloned,
    m: Machine,
    _runner: tempfile::TempDir,
}

impl World {
    async fn start(runner: &str) -> World {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("runner");
        std::fs::write(&program, runner).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let settings = format!(
            "[runners.script]\ncommand = [\"{}\"]\nformat = \"svc-jsonl\"\n\
             [[models]]\nid = \"fast\"\nrunner = \"script\"\n\
             [[models]]\nid = \"careful\"\nrunner = \"script\"\nargs = [\"--careful\"]\n",
            program.display()
        );
        let c = Cloned::with(TestApp::builder().agents(&settings), "mono", "app").await;
        c.git.commit(&c.work, "First", &[("README.md", b"hello\n")]);
        c.git.ok(&c.work, &["push", "-q", "origin", "HEAD:main"]);
        let w = World {
            c,
            m: Machine::new(),
            _runner: dir,
        };
        let out = w.run_in(w.m.home.path().to_path_buf(), &["clone", "ann/mono"]);
        assert!(out.status.success(), "{}", all_output(&out));
        w
    }

    /// `svc` with `args` in ann's clone of `app`, signed in through `SVC_TOKEN`.
    fn svc(&self, args: &[&str]) -> Command {
        self.command_in(self.m.home.path().join("mono/app"), args)
    }

    fn command_in(&self, dir: PathBuf, args: &[&str]) -> Command {
        let mut cmd = self.m.svc(args);
        cmd.current_dir(dir)
            .env("SVC_TOKEN", &self.c.token)
            .env("SVC_SERVER", &self.c.app.base);
        cmd
    }

    fn run_in(&self, dir: PathBuf, args: &[&str]) -> Output {
        self.command_in(dir, args).output().unwrap()
    }

    /// Runs `svc`, insisting on success; answers stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.svc(args).output().unwrap();
        assert!(out.status.success(), "svc {args:?}: {}", all_output(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs `svc`, insisting that it fails as a user error (exit 1); answers stderr.
    fn fails(&self, args: &[&str]) -> String {
        let out = self.svc(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "svc {args:?}: {}",
            all_output(&out)
        );
        String::from_utf8(out.stderr).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        serde_json::from_str(&self.ok(&args)).unwrap()
    }

    /// The session as the server has it.
    async fn session(&self, id: &str) -> Value {
        self.c
            .app
            .get_json(&self.c.token, &format!("{M}/agents/{id}"))
            .await
    }

    /// Waits until the session's run is over (not launching or running); answers it.
    async fn settled(&self, id: &str) -> Value {
        let start = Instant::now();
        loop {
            let s = self.session(id).await;
            if !matches!(s["state"].as_str(), Some("launching" | "running")) {
                return s;
            }
            assert!(start.elapsed() < WAIT, "session {id} did not settle: {s}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until the session's transcript has a message with `text` in it.
    async fn said(&self, id: &str, text: &str) {
        let start = Instant::now();
        loop {
            let t = self
                .c
                .app
                .get_json(&self.c.token, &format!("{M}/agents/{id}/transcript"))
                .await;
            if t.to_string().contains(text) {
                return;
            }
            assert!(
                start.elapsed() < WAIT,
                "session {id} never said {text:?}: {t}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The HOME the session's runner gets (bound at the same path in its sandbox).
    fn runner_home(&self, id: &str) -> PathBuf {
        self.c
            .app
            .data_dir
            .path()
            .join("agents")
            .join(id)
            .join("home")
    }
}

/// The session ID in an answer that names one (`... session a_<hex> (...`).
fn session_id(out: &str) -> String {
    let at = out
        .find("a_")
        .unwrap_or_else(|| panic!("no session ID in {out:?}"));
    out[at..]
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap()
        .to_owned()
}

/// `text` with the session ID as `<id>` and each time (RFC 3339, as svc prints them when
/// its output is not a terminal) as `<when>`, so that a transcript reads the same on
/// every run.
fn scrub(text: &str, id: &str) -> String {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:ddZ";
    let text = text.replace(id, "<id>");
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let is_time = bytes.len() - i >= SHAPE.len()
            && SHAPE.iter().zip(&bytes[i..]).all(|(s, b)| match s {
                b'd' => b.is_ascii_digit(),
                s => s == b,
            });
        if is_time {
            out.extend_from_slice(b"<when>");
            i += SHAPE.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// A table's rows, scrubbed, each as its cells.
fn rows(table: &str, id: &str) -> Vec<Vec<String>> {
    scrub(table, id)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

/// An answer that starts a run says `running`; a run this short may already be over
/// when the answer is written, and then it says `idle`. Both read as `running` here.
fn started(text: &str) -> String {
    text.replace(", idle)", ", running)")
}

/// A coding agent at work: it thinks, runs a tool, mutters, and is done.
const WORKER: &str = r#"#!/bin/sh
cat >/dev/null
echo '{"role":"assistant","parts":[{"type":"thinking","text":"Where is the bug?"},{"type":"text","text":"I will fix it."},{"type":"tool-call","id":"c1","name":"Bash","input":{"command":"make test"}}]}'
echo '{"role":"tool","parts":[{"type":"tool-result","id":"c1","output":"1 passed","is_error":false}]}'
echo 'plain words, not JSON'
echo '{"role":"assistant","parts":[{"type":"text","text":"Fixed."}]}'
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_launched_listed_viewed_and_its_transcript_read() {
    let w = World::start(WORKER).await;

    // $ svc agent launch "Fix the bug" --branch fix     (in the clone: the repo is app)
    let out = w.ok(&["agent", "launch", "Fix the bug", "--branch", "fix"]);
    let id = session_id(&out);
    assert_eq!(
        started(&scrub(&out, &id)),
        "Launched agent session <id> (task, running) on app:fix\n\
         svc agent log -R ann/mono <id> --follow shows its work\n"
    );
    assert_eq!(w.settled(&id).await["state"], "idle");

    // $ svc agent list
    assert_eq!(
        rows(&w.ok(&["agent", "list"]), &id),
        [
            [
                "ID", "KIND", "STATE", "REPO", "BRANCH", "LAUNCHER", "UPDATED"
            ],
            ["<id>", "task", "idle", "app", "fix", "ann", "<when>"],
        ]
    );

    // $ svc agent view <id>
    let out = w.ok(&["agent", "view", &id]);
    assert_eq!(
        scrub(&out, &id),
        "<id>  task idle\n\
         Repo: app\n\
         Branch: fix\n\
         Model: fast\n\
         Launched by: ann (credential cloud-<id>)\n\
         Launched <when>, updated <when>\n\
         Prompt:\n  Fix the bug\n"
    );

    // $ svc agent log <id>
    // One header a turn; tool calls and results read as arrows; a line the runner wrote
    // that is not JSON is kept as the agent's words.
    let out = w.ok(&["agent", "log", &id]);
    assert_eq!(
        scrub(&out, &id),
        "── user <when>\n\
         Fix the bug\n\
         \n\
         ── agent <when>\n\
         thinking: Where is the bug?\n\
         I will fix it.\n\
         → Bash({\"command\":\"make test\"})\n\
         ← 1 passed\n\
         plain words, not JSON\n\
         Fixed.\n"
    );
    // Coloured on request: a tool call in cyan.
    let out = w.ok(&["agent", "log", &id, "--color", "always"]);
    assert!(
        out.contains("\x1b[36m→ Bash({\"command\":\"make test\"})\x1b[m"),
        "{out:?}"
    );

    // $ svc agent log <id> --json       one message a line
    let out = w.ok(&["agent", "log", &id, "--json"]);
    let messages: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary: Vec<(i64, &str, usize)> = messages
        .iter()
        .map(|m| {
            let parts = m["parts"].as_array().unwrap().len();
            (
                m["index"].as_i64().unwrap(),
                m["role"].as_str().unwrap(),
                parts,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (0, "user", 1),
            (1, "assistant", 3),
            (2, "tool", 1),
            (3, "assistant", 1),
            (4, "assistant", 1),
        ]
    );
    assert_eq!(messages[1]["parts"][2]["type"], "tool-call");
    assert_eq!(messages[1]["parts"][2]["input"]["command"], "make test");
    assert_eq!(messages[2]["parts"][0]["output"], "1 passed");

    // Following a session whose run is over prints what it said and ends at once.
    let out = w.ok(&["agent", "log", &id, "--follow"]);
    assert!(out.ends_with("plain words, not JSON\nFixed.\n"), "{out}");

    // -R names the repo from anywhere; --model picks a model of svc agent models.
    let out = w.run_in(
        w.m.home.path().to_path_buf(),
        &[
            "agent",
            "launch",
            "Fix it carefully",
            "-R",
            "ann/mono/app",
            "-b",
            "careful-fix",
            "--model",
            "careful",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", all_output(&out));
    let two: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&two["kind"], &two["repo"], &two["branch"], &two["model"]),
        (
            &Value::from("task"),
            &Value::from("app"),
            &Value::from("careful-fix"),
            &Value::from("careful")
        )
    );
    let two = two["id"].as_str().unwrap().to_owned();
    w.settled(&two).await;
    let list = w.json(&["agent", "list"]);
    let ids: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [two.as_str(), id.as_str()], "newest first");

    // What the server refuses, svc says why.
    let err = w.fails(&["agent", "launch", "Fix it", "--branch", "main"]);
    assert!(err.contains("not main"), "{err}");
    let err = w.fails(&["agent", "launch", "Fix it", "-b", "x", "--model", "gpt"]);
    assert!(
        err.contains("no model \"gpt\" here; the models are fast, careful"),
        "{err}"
    );
    let err = w.fails(&["agent", "launch", "  ", "-b", "x"]);
    assert!(err.contains("the prompt is empty"), "{err}");
    let err = w.fails(&["agent", "view", "a_0000000000000000"]);
    assert!(err.contains("not found"), "{err}");
}

/// Says one thing, waits for the test to let it go on (a file `go` in its HOME), then
/// says two more a moment apart.
const GATED: &str = r#"#!/bin/sh
cat >/dev/null
say() { echo "{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"$1\"}]}"; }
say "Reading the code."
i=0
while [ ! -e "$HOME/go" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
say "Found it."
sleep 0.3
say "Fixed it."
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_follow_prints_the_agents_words_as_it_says_them_and_ends_with_the_run() {
    let w = World::start(GATED).await;
    let out = w.ok(&["agent", "launch", "Fix the flaky test", "-b", "flaky"]);
    let id = session_id(&out);

    // $ svc agent log <id> --follow
    let mut follow = w
        .svc(&["agent", "log", &id, "--follow"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = std::sync::mpsc::channel::<String>();
    let stdout = follow.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l == "Reading the code.") {
        seen.push(
            lines
                .recv_timeout(WAIT)
                .expect("the first words, while it runs"),
        );
    }
    // The agent has said its first words and waits: the log is printed so far, and
    // svc keeps following.
    assert_eq!(w.session(&id).await["state"], "running");
    assert!(follow.try_wait().unwrap().is_none(), "svc still follows");
    std::fs::write(w.runner_home(&id).join("go"), "").unwrap();

    // The rest comes as it is said; the run ends, and so does svc, with 0.
    loop {
        match lines.recv_timeout(WAIT) {
            Ok(line) => seen.push(line),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => panic!("svc kept following: {seen:?}"),
        }
    }
    reader.join().unwrap();
    let status = follow.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut follow.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{stderr}");
    assert_eq!(
        scrub(&(seen.join("\n") + "\n"), &id),
        "── user <when>\n\
         Fix the flaky test\n\
         \n\
         ── agent <when>\n\
         Reading the code.\n\
         Found it.\n\
         Fixed it.\n",
        "every message once, in order"
    );
    assert_eq!(w.session(&id).await["state"], "idle");
}

/// On its first run, sleeps when told to (else says it is done); on a later run, answers
/// the newest message it was told (a later run is told the transcript so far, each
/// message a line, `[user] ...` for the person's).
const NAPPER: &str = r#"#!/bin/sh
told=$(cat)
n=$(cat "$HOME/runs" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$HOME/runs"
say() { echo "{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"$1\"}]}"; }
if [ "$n" -gt 1 ]; then
  say "Run $n, told: $(printf '%s\n' "$told" | sed -n 's/^\[user\] //p' | tail -n 1)"
  exit 0
fi
case "$told" in
  *"sleep on it"*) say "Sleeping on it."; sleep 271.828;;
  *) say "Done.";;
esac
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_runs_an_idle_session_again_and_stop_stops_a_running_one() {
    let w = World::start(NAPPER).await;
    let id = session_id(&w.ok(&["agent", "launch", "Write the docs", "-b", "docs"]));
    assert_eq!(w.settled(&id).await["state"], "idle");

    // $ svc agent send <id> "Add an example too"
    let out = w.ok(&["agent", "send", &id, "Add an example too"]);
    assert_eq!(
        started(&scrub(&out, &id)),
        "Sent to <id> (task, running) on app:docs\n\
         svc agent log -R ann/mono <id> --follow shows its work\n"
    );
    assert_eq!(w.settled(&id).await["state"], "idle");
    let log = w.ok(&["agent", "log", &id]);
    assert!(
        scrub(&log, &id).ends_with(
            "── agent <when>\nDone.\n\n\
             ── user <when>\nAdd an example too\n\n\
             ── agent <when>\nRun 2, told: Add an example too\n"
        ),
        "{log}"
    );

    // With --follow, the answer from the message on, until the run ends.
    let out = w.ok(&["agent", "send", &id, "And a changelog entry", "--follow"]);
    assert_eq!(
        started(&scrub(&out, &id)),
        "Sent to <id> (task, running) on app:docs\n\
         \n\
         ── user <when>\n\
         And a changelog entry\n\
         \n\
         ── agent <when>\n\
         Run 3, told: And a changelog entry\n"
    );

    // Stopping a session with no run going stops nothing.
    let out = w.ok(&["agent", "stop", &id]);
    assert_eq!(out, format!("{id} had already ended: it is idle\n"));

    // $ svc agent stop <id>       on a session whose agent sleeps
    let nap = session_id(&w.ok(&["agent", "launch", "Think, then sleep on it", "-b", "nap"]));
    w.said(&nap, "Sleeping on it.").await;
    assert_eq!(w.session(&nap).await["state"], "running");
    let out = w.ok(&["agent", "stop", &nap]);
    assert_eq!(
        scrub(&out, &nap),
        "Stopped <id> (task, stopped) on app:nap\n"
    );
    let view = w.ok(&["agent", "view", &nap]);
    assert!(
        view.starts_with(&format!("{nap}  task stopped\nReason: stopped by ann\n")),
        "{view}"
    );
    // Stopping again changes nothing: it stays stopped, for the same reason.
    w.ok(&["agent", "stop", &nap]);
    let again = w.session(&nap).await;
    assert_eq!(
        (&again["state"], &again["reason"]),
        (&Value::from("stopped"), &Value::from("stopped by ann"))
    );
    assert!(w.ok(&["agent", "log", &nap]).contains("Sleeping on it."));

    // A stopped session runs again when told more.
    w.ok(&["agent", "send", &nap, "Wake up"]);
    assert_eq!(w.settled(&nap).await["state"], "idle");
    let log = w.ok(&["agent", "log", &nap]);
    assert!(log.ends_with("Run 2, told: Wake up\n"), "{log}");
}

/// Says the first line it was told.
const FIRST_LINE: &str = r#"#!/bin/sh
first=$(head -n 1)
echo "{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"Told: $first\"}]}"
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_issue_gets_an_agent_on_a_branch_named_for_it_and_a_closed_one_does_not() {
    let w = World::start(FIRST_LINE).await;
    w.ok(&[
        "issue",
        "create",
        "--title",
        "Login page crashes!",
        "--body",
        "On submit.",
    ]);
    w.ok(&["issue", "create", "--title", "Old news"]);
    w.ok(&["issue", "close", "2"]);

    // $ svc issue agent 1
    let out = w.ok(&["issue", "agent", "1"]);
    let id = session_id(&out);
    assert_eq!(
        started(&scrub(&out, &id)),
        "Launched agent session <id> (task, running) on app:issue-1-login-page-crashes for #1\n\
         svc agent log -R ann/mono <id> --follow shows its work\n"
    );
    assert_eq!(w.settled(&id).await["state"], "idle");
    let view = w.ok(&["agent", "view", &id]);
    assert!(
        view.contains("Branch: issue-1-login-page-crashes\nIssue: #1\n"),
        "{view}"
    );
    let log = w.ok(&["agent", "log", &id]);
    assert!(
        log.contains("Told: Resolve issue #1 of this repository: Login page crashes!\n"),
        "{log}"
    );
    // The branch is linked to the issue, so merging it closes the issue.
    let issue = w.ok(&["issue", "view", "1"]);
    assert!(
        issue.contains("linked to app:issue-1-login-page-crashes"),
        "{issue}"
    );

    // $ svc issue agent 2       a closed issue
    let err = w.fails(&["issue", "agent", "2"]);
    assert_eq!(
        err,
        "svc: issue #2 is closed\n\
         hint: reopen it first with svc issue reopen\n"
    );
    assert_eq!(
        w.json(&["agent", "list"])["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// Answers the newest question: the prompt on a chat's first run, the last `[user]`
/// line of the transcript on a later one.
const ASSISTANT: &str = r#"#!/bin/sh
told=$(cat)
asked=$(printf '%s\n' "$told" | sed -n 's/^\[user\] //p' | tail -n 1)
[ -n "$asked" ] || asked=$told
echo "{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"You asked: $asked\"}]}"
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chats_are_listed_apart_from_the_agents_and_the_models_are_listed() {
    let w = World::start(ASSISTANT).await;

    // $ svc agent models
    assert_eq!(
        w.ok(&["agent", "models"]),
        "MODEL    RUNNER  DEFAULT\n\
         fast     script  yes\n\
         careful  script\n"
    );

    // $ svc agent chat "What does app do?"
    let out = w.ok(&["agent", "chat", "What does app do?"]);
    let id = session_id(&out);
    assert_eq!(
        started(&scrub(&out, &id)),
        "Started chat <id> (chat, running) on app\n\
         svc agent log -R ann/mono <id> --follow shows its work\n\
         svc agent send -R ann/mono <id> <MESSAGE> asks the next question\n"
    );
    assert_eq!(w.settled(&id).await["state"], "idle");
    let log = w.ok(&["agent", "log", &id]);
    assert_eq!(
        scrub(&log, &id),
        "── user <when>\n\
         What does app do?\n\
         \n\
         ── agent <when>\n\
         You asked: What does app do?\n"
    );

    // The next question in the same chat, its answer followed.
    let out = w.ok(&["agent", "send", &id, "How do I run it?", "--follow"]);
    assert!(
        started(&scrub(&out, &id)).starts_with("Sent to <id> (chat, running) on app\n"),
        "{out}"
    );
    assert!(out.ends_with("You asked: How do I run it?\n"), "{out}");

    // $ svc agent chat --list       ann's chats; svc agent list has none of them
    assert_eq!(
        rows(&w.ok(&["agent", "chat", "--list"]), &id),
        [
            [
                "ID", "KIND", "STATE", "REPO", "BRANCH", "LAUNCHER", "UPDATED"
            ],
            ["<id>", "chat", "idle", "app", "-", "ann", "<when>"],
        ]
    );
    let out = w.svc(&["agent", "list"]).output().unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    assert_eq!(
        (
            out.stdout.as_slice(),
            String::from_utf8(out.stderr).unwrap()
        ),
        (&b""[..], "ann/mono has no agent sessions\n".to_owned()),
        "an empty list prints no table, and says so on stderr"
    );
}
