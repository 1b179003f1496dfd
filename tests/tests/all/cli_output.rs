//! How the `svc` CLI's output and errors read: a closed pipe ends a command quietly, an
//! error shows its causes and hints each on its own line, and a refusal carries the
//! CLI's advice for its code.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::git::{Git, all_output};
use svc_tests::machine::Machine;

/// Runs `cmd` with stdout a pipe whose reader reads `lines` lines, then goes away, as
/// `| head -n <lines>` does; answers the exit and stderr.
fn with_reader_gone_after(mut cmd: Command, lines: usize) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut reader = BufReader::new(stdout);
    for _ in 0..lines {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "a line to read");
    }
    drop(reader);
    child.wait_with_output().unwrap()
}

/// Exit 0 and nothing on stderr: the reader stopping is not svc's failure.
fn assert_quiet(what: &str, out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.is_empty(),
        "{what}: {}",
        all_output(out)
    );
}

/// A reader that goes away mid-output (`svc completions bash | head -1`: the script is
/// larger than a pipe holds, so svc is still writing) or before any output
/// (`svc branch list | true`) ends the command quietly, with exit status 0, for every
/// command that prints.
#[tokio::test]
async fn a_closed_pipe_ends_output_quietly() {
    let app = TestApp::start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&ann, json!({"name": "mono"})).await;
    let url = app.repo(&ann, "ann/mono", "web").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let seed = Git::new(&ann);
    seed.ok(seed.home.path(), &["clone", "-q", &url, "web"]);
    seed.commit(&seed.path("web"), "main", &[("a.txt", b"a\n")]);
    seed.ok(&seed.path("web"), &["push", "-q", "origin", "main"]);
    for branch in ["one", "two", "three"] {
        seed.ok(
            &seed.path("web"),
            &["push", "-q", "origin", &format!("main:{branch}")],
        );
    }

    let m = Machine::new();
    let svc = |args: &[&str]| {
        let mut cmd = m.svc(args);
        cmd.env("SVC_TOKEN", &ann).env("SVC_SERVER", &app.base);
        cmd
    };

    let out = with_reader_gone_after(svc(&["completions", "bash"]), 1);
    assert_quiet("completions", &out);

    // The pipe is closed before svc has its answer from the server, so its first write
    // finds the reader gone.
    for args in [
        &["branch", "list", "-R", "ann/mono/web"][..],
        &["branch", "list", "-R", "ann/mono/web", "--json"],
        &["monorepo", "list"],
        &["repo", "list", "ann/mono"],
        &["credential", "list"],
        &["api", "user"],
        &["--help"],
        &["branch", "--help"],
    ] {
        let out = with_reader_gone_after(svc(args), 0);
        assert_quiet(&format!("{args:?}"), &out);
    }

    // With a reader that stays, the same listing is all there.
    let out = svc(&["branch", "list", "-R", "ann/mono/web"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    let list = String::from_utf8(out.stdout).unwrap();
    assert!(
        ["one", "two", "three"].iter().all(|b| list.contains(b)),
        "{list}"
    );
}

/// An error that stands on another keeps it: the message, a `caused by:` line per cause,
/// then a `hint:` line per hint; `--json` carries the causes as an array.
#[tokio::test]
async fn errors_show_their_causes_and_hints_on_lines_of_their_own() {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let m = Machine::new();
    let run = |args: &[&str]| {
        m.svc(args)
            .env("SVC_TOKEN", "svc_x")
            .env("SVC_SERVER", &closed)
            .output()
            .unwrap()
    };

    let out = run(&["monorepo", "list"]);
    assert_eq!(out.status.code(), Some(3), "{}", all_output(&out));
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[0], format!("svc: cannot reach {closed}"), "{err}");
    let causes: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("caused by: "))
        .collect();
    assert!(
        causes.last().is_some_and(|c| c.contains("refused")),
        "the cause at the bottom is the refused connection: {err}"
    );
    assert_eq!(
        lines.last().copied(),
        Some("hint: check --server, your network, or that svc-server is running"),
        "{err}"
    );
    assert_eq!(
        lines.len(),
        1 + causes.len() + 1,
        "message, causes, hint, each a line: {err}"
    );

    let out = run(&["monorepo", "list", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let json: Value = serde_json::from_slice(&out.stderr).unwrap();
    let error = &json["error"];
    assert_eq!(error["code"], "unreachable");
    assert_eq!(error["message"], format!("cannot reach {closed}"));
    assert_eq!(
        error["causes"].as_array().unwrap().len(),
        causes.len(),
        "{json}"
    );
    assert_eq!(error["hints"].as_array().unwrap().len(), 1, "{json}");

    // A damaged config file: its path, then what TOML says is wrong.
    std::fs::create_dir_all(m.config_dir()).unwrap();
    std::fs::write(m.config_dir().join("hosts.toml"), "default = [unclosed\n").unwrap();
    let out = m.run(&["monorepo", "list"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("svc: ") && lines[0].ends_with("hosts.toml is damaged"),
        "{err}"
    );
    assert!(lines[1].starts_with("caused by: TOML parse error"), "{err}");
    assert_eq!(
        lines.last().copied(),
        Some("hint: fix or delete it"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// A refusal the user can act on carries the CLI's advice for its code as a hint line,
/// and in `--json` among the hints, under the server's code.
#[tokio::test]
async fn a_refusal_carries_the_advice_for_its_code() {
    let app = TestApp::start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    let m = Machine::new();
    let svc = |args: &[&str]| {
        m.svc(args)
            .env("SVC_TOKEN", &ann)
            .env("SVC_SERVER", &app.base)
            .output()
            .unwrap()
    };
    let out = svc(&["monorepo", "create", "mono"]);
    assert!(out.status.success(), "{}", all_output(&out));

    let out = svc(&["monorepo", "create", "mono"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].starts_with("svc: "), "{err}");
    assert_eq!(
        lines[1..],
        ["hint: pick another name; svc monorepo list shows yours"],
        "{err}"
    );

    let out = svc(&["monorepo", "create", "mono", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(json["error"]["code"], "monorepo_exists");
    assert_eq!(
        json["error"]["hints"],
        json!(["pick another name; svc monorepo list shows yours"])
    );

    let out = svc(&["repo", "create", "ann/mono", "web"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let out = svc(&["repo", "create", "ann/mono", "web"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.lines()
            .any(|l| l == "hint: pick another path; svc repo list shows the monorepo's repos"),
        "{err}"
    );
}
