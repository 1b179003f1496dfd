//! The README's walkthrough, run as written: every command of its `console` blocks, in
//! order, in a fresh HOME with the real `svc`, `svc-server` and git, on the port the
//! README names. A command that fails, or prints other than the lines the README shows
//! under it, fails the test with the step and the command.
//!
//! What the reader does by hand the test does the way a person would: it types the
//! password at quickstart's prompts (through a terminal made by `script`), and approves
//! `svc login`'s code in "the browser" (the password sign-in and the approve call the
//! device page makes); a sign-in link printed for someone else is opened by them, who
//! set their password there. The server's operator settings (a stand-in Buildkite, a runner
//! for agents) come from the environment, as an operator's would.
//!
//! Block rules (README authors): a line `$ cmd` runs `cmd` (a trailing `\` continues it
//! on the next line); the lines under it are output it must print, each found in order
//! (`...` skips anything within a line). The commands of one block share one shell
//! (variables, the current directory); the current directory carries on to the next
//! block. `svc-server quickstart` and a device-flow `svc login` stand alone in their
//! block.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode, header};
use serde_json::json;
use svc_tests::fake_buildkite::FakeBuildkite;
use svc_tests::workspace_bin;

/// Where the README's server listens.
const SERVER: &str = "http://127.0.0.1:8640";
/// What the reader types at quickstart's password prompts.
const PASSWORD: &str = "walkthrough-pass-1";

/// One command of a block, with the output lines the README shows under it.
#[derive(Debug)]
struct Cmd {
    line: String,
    expect: Vec<String>,
}

/// A `console` block of a step.
#[derive(Debug)]
struct Block {
    step: String,
    cmds: Vec<Cmd>,
}

/// The walkthrough's blocks, in order.
fn blocks(readme: &str) -> Vec<Block> {
    let start = readme
        .find("## Five-minute walkthrough")
        .expect("the README has a walkthrough");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    let mut out = Vec::new();
    let mut step = String::from("intro");
    let mut lines = section[..end].lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if let Some((number, rest)) = trimmed.split_once(". **")
            && number.bytes().all(|b| b.is_ascii_digit())
            && !number.is_empty()
        {
            step = format!("step {number} ({})", rest.split("**").next().unwrap_or(""));
        }
        if trimmed != "```console" {
            continue;
        }
        let mut cmds: Vec<Cmd> = Vec::new();
        let mut continued = false;
        for line in lines.by_ref() {
            let line = line.trim_start();
            if line.starts_with("```") {
                break;
            }
            if continued {
                let cmd = cmds.last_mut().expect("a command to continue");
                cmd.line.push('\n');
                cmd.line.push_str(line);
                continued = line.ends_with('\\');
            } else if let Some(command) = line.strip_prefix("$ ") {
                cmds.push(Cmd {
                    line: command.to_owned(),
                    expect: Vec::new(),
                });
                continued = command.ends_with('\\');
            } else if !line.is_empty() {
                cmds.last_mut()
                    .expect("output follows a command")
                    .expect
                    .push(line.to_owned());
            }
        }
        out.push(Block {
            step: step.clone(),
            cmds,
        });
    }
    out
}

/// Whether `output` has every expected line, in order, each as one line holding its
/// `...`-separated pieces in order.
fn shows(output: &str, expect: &[String]) -> Result<(), String> {
    let mut rest = output.lines();
    for want in expect {
        let pieces: Vec<&str> = want.split("...").map(str::trim).collect();
        let found = rest.by_ref().any(|line| {
            let mut at = 0;
            pieces.iter().all(|p| match line[at..].find(p) {
                Some(i) => {
                    at += i + p.len();
                    true
                }
                None => false,
            })
        });
        if !found {
            return Err(format!("no line like {want:?}"));
        }
    }
    Ok(())
}

/// The reader's machine: a fresh HOME, the built binaries first on PATH.
struct Reader {
    home: tempfile::TempDir,
    cwd: PathBuf,
    path: String,
    env: Vec<(String, String)>,
    background: Vec<Child>,
    /// Terminals' inputs kept open while their programs run.
    keep: Vec<std::process::ChildStdin>,
    /// Sign-in links printed for other people, to be opened by them.
    links: Vec<String>,
    /// People brought in through such links.
    people: usize,
}

impl Reader {
    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.cwd)
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", self.home.path())
            .env("TERM", "dumb")
            .env("GIT_AUTHOR_NAME", "You")
            .env("GIT_AUTHOR_EMAIL", "you@example.com")
            .env("GIT_COMMITTER_NAME", "You")
            .env("GIT_COMMITTER_EMAIL", "you@example.com")
            .env("GIT_TERMINAL_PROMPT", "0")
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd
    }

    /// Runs a block's commands in one shell, each announced by a marker so its output
    /// can be told apart; panics at the first that fails or prints otherwise.
    fn run(&mut self, block: &Block) {
        let state = self.home.path().join(".walkthrough-cwd");
        let mut script = String::from("set -euo pipefail\nexec 2>&1\n");
        script.push_str(&format!("trap 'pwd > {}' EXIT\n", state.display()));
        for (i, cmd) in block.cmds.iter().enumerate() {
            script.push_str(&format!("echo '@@readme-cmd {i}'\n{}\n", cmd.line));
        }
        let out = self
            .command("bash")
            .arg("-c")
            .arg(&script)
            .stdin(Stdio::null())
            .output()
            .expect("bash runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut outputs: Vec<String> = Vec::new();
        for line in text.lines() {
            if line.starts_with("@@readme-cmd ") {
                outputs.push(String::new());
            } else if let Some(o) = outputs.last_mut() {
                o.push_str(line);
                o.push('\n');
            }
        }
        let last = outputs.len().saturating_sub(1);
        if !out.status.success() {
            let cmd = block.cmds.get(last).map_or("", |c| c.line.as_str());
            panic!(
                "README {}: `{cmd}` failed ({}):\n{}",
                block.step,
                out.status,
                outputs.get(last).map_or("", String::as_str)
            );
        }
        for (cmd, output) in block.cmds.iter().zip(&outputs) {
            if let Err(why) = shows(output, &cmd.expect) {
                panic!(
                    "README {}: `{}` printed otherwise than the README shows ({why}):\n{output}",
                    block.step, cmd.line
                );
            }
        }
        if let Ok(cwd) = std::fs::read_to_string(&state) {
            self.cwd = PathBuf::from(cwd.trim());
        }
        self.links.extend(
            text.split_whitespace()
                .filter(|w| w.starts_with(&format!("{SERVER}/login/link/")))
                .map(str::to_owned),
        );
    }

    /// Each sign-in link the walkthrough printed, opened by the person it was for, who
    /// chooses a password there and is signed in.
    async fn follow_links(&mut self) {
        let client = svc_tests::client();
        for link in std::mem::take(&mut self.links) {
            let page = client.get(&link).send().await.expect("open the link");
            assert_eq!(page.status(), StatusCode::OK, "{link}");
            let r = client
                .post(&link)
                .header(header::ORIGIN, SERVER)
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body("password=bobs-password-1&password_again=bobs-password-1")
                .send()
                .await
                .expect("set the password");
            assert_eq!(r.status(), StatusCode::SEE_OTHER, "{link}");
            let cookie = session_cookie(&r);
            let me = client
                .get(format!("{SERVER}/v1/user"))
                .header(header::COOKIE, cookie)
                .send()
                .await
                .expect("who am I");
            assert_eq!(me.status(), StatusCode::OK, "signed in through {link}");
            self.people += 1;
        }
    }

    /// `svc-server quickstart ...` as printed, at a terminal (`script` makes one),
    /// typing the password at both prompts; waits for the server to answer and checks
    /// what it printed. Killing `script` hangs its terminal up, which ends the server.
    fn serve(&mut self, block: &Block) {
        let cmd = &block.cmds[0];
        let mut child = self
            .command("script")
            .args(["-qfec", &cmd.line, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()
            .expect("script runs");
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        // Lines, and prompts (which end in ": " without a line end).
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            let mut byte = [0u8; 1];
            while reader.read(&mut byte).is_ok_and(|n| n == 1) {
                buf.push(byte[0]);
                if byte[0] == b'\n' || buf.ends_with(b": ") {
                    let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
                    buf.clear();
                }
            }
        });
        let mut printed = String::new();
        let mut typed = 0;
        let deadline = Instant::now() + Duration::from_secs(60);
        while !printed.contains("svc login --server") {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(chunk) = rx.recv_timeout(left) else {
                panic!(
                    "README {}: `{}` did not say the next step:\n{printed}",
                    block.step, cmd.line
                );
            };
            if chunk.ends_with(": ") && chunk.to_lowercase().contains("password")
                || chunk.ends_with("again: ")
            {
                stdin
                    .write_all(format!("{PASSWORD}\n").as_bytes())
                    .expect("type the password");
                typed += 1;
            }
            printed.push_str(&chunk);
        }
        // The server's log follows: keep reading it so the terminal never fills.
        std::thread::spawn(move || for _ in rx {});
        self.keep.push(stdin);
        self.background.push(child);
        assert_eq!(
            typed, 2,
            "quickstart asks for the password twice:\n{printed}"
        );
        if let Err(why) = shows(&printed, &cmd.expect) {
            panic!(
                "README {}: `{}` printed otherwise ({why}):\n{printed}",
                block.step, cmd.line
            );
        }
        wait_for_server();
    }

    /// A device-flow `svc login` as printed: the test reads the code it prints and, as
    /// the person in the browser, signs in with the password and approves it.
    async fn login(&mut self, block: &Block) {
        let cmd = &block.cmds[0];
        let mut child = self
            .command("bash")
            .arg("-c")
            .arg(format!("exec 2>&1; {}", cmd.line))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("svc login runs");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut printed = String::new();
        let code = loop {
            let line = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("README {}: no code printed:\n{printed}", block.step));
            printed.push_str(&line);
            printed.push('\n');
            if let Some(code) = line.split_whitespace().find(|w| is_user_code(w)) {
                break code.to_owned();
            }
        };
        approve(&code).await;
        let status = child.wait().expect("svc login ends");
        for line in rx.iter() {
            printed.push_str(&line);
            printed.push('\n');
        }
        assert!(
            status.success(),
            "README {}: `{}` failed:\n{printed}",
            block.step,
            cmd.line
        );
        if let Err(why) = shows(&printed, &cmd.expect) {
            panic!(
                "README {}: `{}` printed otherwise ({why}):\n{printed}",
                block.step, cmd.line
            );
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        // The daemon, if the walkthrough left it running, then the server.
        let _ = self
            .command(workspace_bin("svc").to_str().unwrap_or("svc"))
            .args(["daemon", "stop"])
            .output();
        for child in &mut self.background {
            let _ = Command::new("kill")
                .args(["-TERM", "--", &format!("-{}", child.id())])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
        }
    }
}

/// `BCDF-GHJK`: eight letters of the device code alphabet around a dash.
fn is_user_code(word: &str) -> bool {
    word.len() == 9
        && word.as_bytes()[4] == b'-'
        && word
            .bytes()
            .enumerate()
            .all(|(i, b)| i == 4 || b.is_ascii_uppercase())
}

fn wait_for_server() {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect("127.0.0.1:8640").is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the README's server did not start listening on {SERVER}");
}

/// The `name=value` of the session cookie a sign-in answer sets.
fn session_cookie(r: &reqwest::Response) -> String {
    let set = r.headers()[header::SET_COOKIE].to_str().unwrap();
    set.split(';').next().unwrap().to_owned()
}

/// What the device page does for a person signed in with their password.
async fn approve(code: &str) {
    let client = svc_tests::client();
    let r = client
        .post(format!("{SERVER}/v1/login/password"))
        .header(header::ORIGIN, SERVER)
        .json(&json!({"login": "you", "password": PASSWORD}))
        .send()
        .await
        .expect("sign in");
    assert_eq!(r.status(), StatusCode::OK, "the password sign-in");
    let cookie = session_cookie(&r);
    let r = client
        .request(Method::POST, format!("{SERVER}/v1/login/device/approve"))
        .header(header::ORIGIN, SERVER)
        .header(header::COOKIE, cookie)
        .json(&json!({"user_code": code, "approve": true}))
        .send()
        .await
        .expect("approve");
    assert_eq!(r.status(), StatusCode::OK, "approving {code}");
}

/// The operator's settings the walkthrough assumes (Buildkite, an agent runner), given
/// to the server through `SVC_CONFIG` as an operator would.
fn operator_settings(dir: &Path, buildkite: &FakeBuildkite) -> PathBuf {
    let runner = dir.join("runner.sh");
    std::fs::write(
        &runner,
        "#!/bin/sh\n\
         # A stand-in coding agent speaking svc-jsonl: reads the prompt, commits, pushes.\n\
         cat >/dev/null\n\
         echo '{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"Looking at the test.\"}]}'\n\
         echo 'fixed' > fix.txt && git add fix.txt && git commit -qm 'Fix the flaky test' && git push -q origin HEAD\n\
         echo '{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"Done.\"}]}'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let settings = dir.join("server.toml");
    std::fs::write(
        &settings,
        format!(
            "[ci.buildkite]\napi_url = \"{}\"\ntoken = \"bk-token\"\n\n\
             [agents]\nsvc = \"{}\"\n[agents.runners.stand-in]\ncommand = [\"{}\"]\nformat = \"svc-jsonl\"\n\
             [[agents.models]]\nid = \"stand-in\"\nrunner = \"stand-in\"\n",
            buildkite.api_url,
            workspace_bin("svc").display(),
            runner.display()
        ),
    )
    .unwrap();
    settings
}

#[tokio::test(flavor = "multi_thread")]
async fn the_walkthrough_runs_as_written() {
    if std::env::var_os("SVC_TEST_DATABASE_URL").is_some() {
        // The walkthrough's server is the embedded default (SQLite); the SQLite pass runs it.
        return;
    }
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .expect("README.md");
    let blocks = blocks(&readme);
    assert!(blocks.len() >= 15, "a block or more per step: {blocks:#?}");

    let buildkite = FakeBuildkite::start().await;
    let home = tempfile::tempdir().unwrap();
    let operator = tempfile::tempdir().unwrap();
    let bin = workspace_bin("svc");
    let bin_dir = bin.parent().unwrap().display().to_string();
    let mut reader = Reader {
        cwd: home.path().to_path_buf(),
        home,
        path: format!("{bin_dir}:{}", std::env::var("PATH").unwrap_or_default()),
        env: vec![(
            "SVC_CONFIG".to_owned(),
            operator_settings(operator.path(), &buildkite)
                .display()
                .to_string(),
        )],
        background: Vec::new(),
        keep: Vec::new(),
        links: Vec::new(),
        people: 0,
    };
    for block in &blocks {
        let first = block.cmds.first().map_or("", |c| c.line.as_str());
        if first.starts_with("svc-server quickstart") {
            assert_eq!(block.cmds.len(), 1, "quickstart stands alone in its block");
            reader.serve(block);
        } else if first.starts_with("svc login --server") && !first.contains("--with-token") {
            assert_eq!(block.cmds.len(), 1, "svc login stands alone in its block");
            reader.login(block).await;
        } else {
            reader.run(block);
            reader.follow_links().await;
        }
    }
    assert_eq!(
        reader.people, 1,
        "the walkthrough brings in a second person"
    );
}

/// The changelog the README links: dated entries (`## YYYY-MM-DD`, UTC), newest first.
#[test]
fn the_changelog_is_dated_newest_first() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../CHANGELOG.md"))
            .expect("CHANGELOG.md");
    let dates: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("## ")).collect();
    assert!(!dates.is_empty(), "no dated entry");
    for date in &dates {
        assert!(
            time::Date::parse(
                date,
                time::macros::format_description!("[year]-[month]-[day]")
            )
            .is_ok(),
            "{date:?} is not a date (YYYY-MM-DD)"
        );
    }
    let mut sorted = dates.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    sorted.dedup();
    assert_eq!(dates, sorted, "entries newest first, one per date");
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .expect("README.md");
    assert!(
        readme.contains("(CHANGELOG.md)"),
        "the README links the changelog"
    );
}
