//! `svc mcp` end to end: the real `svc` as an MCP server on stdin/stdout, spoken to in
//! JSON-RPC lines the way Claude Code or Codex do, against a real server.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::machine::Machine;
use svc_tests::{KillOnDrop, expect_json};

/// A running `svc mcp`: its stdin, and its stdout's lines from a reader thread.
pub(crate) struct Mcp {
    child: KillOnDrop,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Mcp {
    pub(crate) fn start(machine: &Machine, env: &[(&str, &str)]) -> Mcp {
        Mcp::start_with(machine, &[], env)
    }

    /// `svc mcp <args>`, initialized.
    pub(crate) fn start_with(machine: &Machine, args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut cmd = machine.svc(&["mcp"]);
        cmd.args(args);
        cmd.envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child: KillOnDrop(child),
            stdin,
            lines,
            next_id: 1,
        };
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "svc-tests", "version": "1"},
            }),
        );
        assert_eq!(init["serverInfo"]["name"], "svc", "{init}");
        assert!(init["capabilities"]["tools"].is_object(), "{init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and answers its `result`, insisting on one.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let message = self.exchange(method, params);
        assert!(message["error"].is_null(), "{method}: {message}");
        message["result"].clone()
    }

    /// Sends a request and answers the whole answer: its `result` or its `error`.
    pub(crate) fn exchange(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("svc mcp did not answer {method}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    pub(crate) fn tool_names(&mut self) -> Vec<String> {
        let list = self.request("tools/list", json!({}));
        list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Calls a tool; answers (is_error, the text of its content).
    pub(crate) fn call(&mut self, name: &str, arguments: Value) -> (bool, String) {
        let result = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let text = result["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("");
        (result["isError"] == json!(true), text)
    }

    /// Closes stdin, which ends the server, and insists it exits cleanly.
    pub(crate) fn finish(self) {
        let Mcp {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        for _ in 0..100 {
            if let Some(status) = child.0.try_wait().unwrap() {
                assert!(status.success(), "svc mcp exited with {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("svc mcp did not exit when its stdin closed");
    }
}

#[tokio::test]
async fn an_agent_reads_the_monorepo_through_svc_mcp() {
    let svc_tests::Cloned {
        app,
        token,
        git,
        work,
    } = svc_tests::Cloned::new("mono", "app").await;
    git.commit(
        &work,
        "first",
        &[
            ("README.md", b"# App\n\nHello from svc.\n"),
            ("src/lib.rs", b"pub fn x() {}\n"),
            ("logo.bin", b"\x89PNG\0\0\0"),
        ],
    );
    git.ok(&work, &["push", "-q", "origin", "main"]);
    git.ok(&work, &["checkout", "-q", "-b", "feature"]);
    git.commit(
        &work,
        "change x",
        &[("src/lib.rs", b"pub fn x() -> u8 { 1 }\n")],
    );
    git.ok(&work, &["push", "-q", "origin", "feature"]);
    let r = app
        .as_user(Method::POST, "/v1/monorepos/ann/mono/issues", &token)
        .json(&json!({"title": "Crash on start", "body": "It crashes."}))
        .send()
        .await
        .unwrap();
    let _: Value = expect_json(r, StatusCode::CREATED).await;

    let machine = Machine::new();
    let env = [
        ("SVC_SERVER", app.base.as_str()),
        ("SVC_TOKEN", token.as_str()),
        ("SVC_MONOREPO", "ann/mono"),
        ("SVC_AGENT_KIND", "task"),
    ];
    let mut mcp = Mcp::start_with(&machine, &["--read-only"], &env);
    let tools = mcp.tool_names();
    for read in [
        "branch_diff",
        "branches",
        "file",
        "history",
        "issue",
        "issues",
        "repos",
        "tree",
    ] {
        assert!(tools.contains(&read.to_owned()), "{read}: {tools:?}");
    }
    assert!(!tools.contains(&"start_branch".to_owned()), "{tools:?}");

    let (error, tree) = mcp.call("tree", json!({"repo": "app"}));
    assert!(!error, "{tree}");
    let lines: Vec<&str> = tree.lines().skip(1).collect();
    assert_eq!(lines, ["src/", "README.md", "logo.bin"], "{tree}");
    let (error, sub) = mcp.call(
        "tree",
        json!({"repo": "app", "path": "src", "ref": "feature"}),
    );
    assert!(!error && sub.ends_with("src/lib.rs\n"), "{sub}");

    let (error, readme) = mcp.call("file", json!({"repo": "app", "path": "README.md"}));
    assert!(!error, "{readme}");
    assert_eq!(readme, "# App\n\nHello from svc.\n");
    let (error, lib) = mcp.call(
        "file",
        json!({"repo": "app", "path": "src/lib.rs", "ref": "feature"}),
    );
    assert_eq!((error, lib.as_str()), (false, "pub fn x() -> u8 { 1 }\n"));
    let (error, logo) = mcp.call("file", json!({"repo": "app", "path": "logo.bin"}));
    assert!(!error && logo.contains("binary file of 7 bytes"), "{logo}");
    // A refusal is a tool error with the server's words; the server goes on serving.
    let (error, missing) = mcp.call("file", json!({"repo": "app", "path": "nope.txt"}));
    assert!(error && missing.contains("not found"), "{missing}");

    let (error, history) = mcp.call("history", json!({"repo": "app", "ref": "feature"}));
    assert!(!error, "{history}");
    let titles: Vec<&str> = history
        .lines()
        .map(|l| l.rsplit("  ").next().unwrap())
        .collect();
    assert_eq!(titles, ["change x", "first"], "{history}");

    let (error, diff) = mcp.call("branch_diff", json!({"repo": "app", "branch": "feature"}));
    assert!(!error, "{diff}");
    assert!(diff.contains("M src/lib.rs (+1 -1)"), "{diff}");
    assert!(diff.contains("+pub fn x() -> u8 { 1 }"), "{diff}");

    let (error, issues) = mcp.call("issues", json!({"q": "crash"}));
    assert!(!error, "{issues}");
    let issues: Value = serde_json::from_str(&issues).unwrap();
    assert_eq!(issues["items"][0]["title"], "Crash on start");
    mcp.finish();

    // A chat session may hand work to a task agent.
    let chat = [env[0], env[1], env[2], ("SVC_AGENT_KIND", "chat")];
    let mut mcp = Mcp::start(&machine, &chat);
    assert!(mcp.tool_names().contains(&"start_branch".to_owned()));
    mcp.finish();
}
