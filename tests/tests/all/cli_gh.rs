//! What a `gh` user reaches for, end to end with the real `svc`: `--jq`, `--web`,
//! `svc status`, `svc checks post`, `svc branch checkout`, completions that know the
//! server's names, deletes that ask, `svc clone <name>`, `-R` everywhere, `-L` past a
//! page, and a second `svc login`.

use std::path::Path;
use std::process::{Output, Stdio};

use serde_json::{Value, json};
use svc_tests::git::all_output;
use svc_tests::machine::Machine;
use svc_tests::{Cloned, workspace_bin};

/// A server with ann, `ann/mono` and its repo `app` (with a commit on main and a branch
/// `topic`), and a machine that reaches it with ann's token.
struct World {
    c: Cloned,
    m: Machine,
}

impl World {
    async fn new() -> World {
        World::of(json!({"email": "ann@example.com", "login": "ann"})).await
    }

    /// The same world, ann being `person` (a bootstrap body).
    async fn of(person: Value) -> World {
        let app = svc_tests::TestApp::start().await;
        let token = app.bootstrap(person).await.credential.token;
        app.monorepo(&token, json!({"name": "mono"})).await;
        let url = app.repo(&token, "ann/mono", "app").await["clone_url"]
            .as_str()
            .unwrap()
            .to_owned();
        let git = svc_tests::git::Git::new(&token);
        git.ok(git.home.path(), &["clone", "-q", &url, "work"]);
        let work = git.path("work");
        git.commit(&work, "first", &[("a.txt", b"a\n")]);
        git.ok(&work, &["push", "-q", "origin", "main"]);
        git.ok(&work, &["checkout", "-q", "-b", "topic"]);
        git.commit(&work, "topic work", &[("t.txt", b"t\n")]);
        git.ok(&work, &["push", "-q", "origin", "topic"]);
        git.ok(&work, &["checkout", "-q", "main"]);
        World {
            c: Cloned {
                app,
                token,
                git,
                work,
            },
            m: Machine::new(),
        }
    }

    /// `svc args` in `dir` (the machine's HOME when None), signed in by environment.
    fn run_in(&self, dir: Option<&Path>, args: &[&str]) -> Output {
        let mut cmd = self.m.svc(args);
        cmd.env("SVC_TOKEN", &self.c.token)
            .env("SVC_SERVER", &self.c.app.base);
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        cmd.stdin(Stdio::null()).output().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in(None, args)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "svc {args:?}: {}", all_output(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn json(&self, args: &[&str]) -> Value {
        let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        serde_json::from_str(&self.ok(&args)).unwrap()
    }

    /// `svc args` on a terminal (script(1) gives it one) with `input` typed in; stdout and
    /// stderr come together, as on a terminal.
    fn on_terminal(&self, args: &[&str], input: &str) -> Output {
        use std::io::Write;
        let line: Vec<String> = std::iter::once(workspace_bin("svc").display().to_string())
            .chain(args.iter().map(|a| format!("'{a}'")))
            .collect();
        let mut cmd = std::process::Command::new("script");
        cmd.env_clear();
        for (key, value) in self.m.svc(&[]).get_envs() {
            if let Some(value) = value {
                cmd.env(key, value);
            }
        }
        let mut child = cmd
            .current_dir(self.m.home.path())
            .env("SVC_TOKEN", &self.c.token)
            .env("SVC_SERVER", &self.c.app.base)
            .args(["-qec", &line.join(" "), "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    async fn api(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let r = self
            .c
            .app
            .as_user(method, path, &self.c.token)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
        r.json().await.unwrap()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn jq_filters_what_json_would_print_and_api_answers() {
    let w = World::new().await;
    w.api(
        reqwest::Method::POST,
        "/v1/monorepos",
        json!({"name": "second"}),
    )
    .await;

    // Strings print bare, one a line; anything else as compact JSON.
    let names = w.ok(&["monorepo", "list", "--jq", ".items[].full_name"]);
    let mut names: Vec<&str> = names.lines().collect();
    names.sort_unstable();
    assert_eq!(names, ["ann/mono", "ann/second"]);
    let repo = w.ok(&["repo", "view", "-R", "ann/mono/app", "--jq", "{name, path}"]);
    assert_eq!(repo, "{\"name\":\"app\",\"path\":\"app\"}\n");
    // --jq implies --json, on commands that look at --json themselves too.
    let branch = w.ok(&[
        "branch",
        "view",
        "topic",
        "-R",
        "ann/mono/app",
        "--jq",
        ".name",
    ]);
    assert_eq!(branch, "topic\n");

    // svc api: the answer filtered, paginated or not.
    assert_eq!(
        w.ok(&["api", "monorepos", "--jq", ".items | length"]),
        "2\n"
    );
    assert_eq!(w.ok(&["api", "user", "--jq", ".login"]), "ann\n");
    let paged = w.ok(&[
        "api",
        "monorepos/ann/mono/repos/app/branches",
        "--paginate",
        "--jq",
        "[.items[].name] | join(\",\")",
    ]);
    assert_eq!(paged, "topic\n");

    // A bad expression is a usage error (exit 2) with jaq's complaint; nothing is asked.
    for (expr, said) in [
        (".items[", "expected"),
        ("nosuchfilter", "undefined filter"),
    ] {
        let out = w.run(&["monorepo", "list", "--jq", expr]);
        assert_eq!(out.status.code(), Some(2), "{}", all_output(&out));
        assert!(stderr(&out).contains(said), "{expr}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    // A filter failing on the data is the command's error (exit 1).
    let out = w.run(&["api", "user", "--jq", ".login | error(\"boom\")"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(stderr(&out).contains("boom"), "{}", stderr(&out));
}

#[tokio::test]
async fn web_opens_the_page_or_prints_its_address() {
    const PASSWORD: &str = "correct horse battery staple";
    let w =
        World::of(json!({"email": "ann@example.com", "login": "ann", "password": PASSWORD})).await;
    let cookie = w.c.app.sign_in("ann", PASSWORD).await;
    let base = &w.c.app.base;
    w.ok(&["issue", "create", "-R", "ann/mono", "-t", "A bug"]);
    w.ok(&["release", "create", "v1.0", "-R", "ann/mono/app"]);
    std::fs::write(w.m.home.path().join("design.md"), "# Design\n").unwrap();
    w.ok(&[
        "artifact",
        "add",
        "design.md",
        "-R",
        "ann/mono/app",
        "-b",
        "topic",
    ]);
    // The sealed machine has no display: every --web prints the page's address.
    for (args, page) in [
        (vec!["monorepo", "view", "ann/mono"], "/ann/mono".to_owned()),
        (
            vec!["repo", "view", "-R", "ann/mono/app"],
            "/ann/mono/-/app".to_owned(),
        ),
        (
            vec!["repo", "view", "ann/mono", "app"],
            "/ann/mono/-/app".to_owned(),
        ),
        (
            vec!["branch", "view", "topic", "-R", "ann/mono/app"],
            "/ann/mono/-/app/branches/topic".to_owned(),
        ),
        (
            vec!["issue", "view", "1", "-R", "ann/mono"],
            "/ann/mono/issues/1".to_owned(),
        ),
        // A release has no page of its own: the repo's releases page lists it.
        (
            vec!["release", "view", "v1.0", "-R", "ann/mono/app"],
            "/ann/mono/-/app/releases".to_owned(),
        ),
        (
            vec![
                "artifact",
                "view",
                "design.md",
                "-R",
                "ann/mono/app",
                "-b",
                "topic",
            ],
            "/ann/mono/-/app/branches/topic/artifacts/design.md".to_owned(),
        ),
    ] {
        let args: Vec<&str> = args.into_iter().chain(["--web"]).collect();
        let out = w.ok(&args);
        assert_eq!(out.trim(), format!("{base}{page}"), "{args:?}");
        let shown = w.json(&args);
        assert_eq!(shown["url"], format!("{base}{page}"));
        assert_eq!(shown["opened"], false);
        // The address is the page of that thing on the server.
        let r = w.c.app.get_page(Some(&cookie), page.as_str()).await;
        assert_eq!(r.status(), reqwest::StatusCode::OK, "{page}");
    }
    // A thing that is not there is still an error, not a page.
    let out = w.run(&["issue", "view", "9", "-R", "ann/mono", "--web"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
}

#[tokio::test]
async fn status_is_the_overview_and_checks_post_posts() {
    let w = World::new().await;
    let head = w.c.git.ok(&w.c.work, &["rev-parse", "origin/topic"]);
    let head = head.trim();
    // checks post, the new spelling: a failing check on topic's head.
    let posted = w.ok(&[
        "checks",
        "post",
        head,
        "ci/test",
        "failure",
        "-R",
        "ann/mono/app",
    ]);
    assert!(posted.contains("Posted ci/test failure"), "{posted}");
    // The old spelling still works, with a note on stderr.
    let out = w.run(&[
        "status",
        "post",
        head,
        "ci/lint",
        "success",
        "-R",
        "ann/mono/app",
    ]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(stderr(&out).contains("svc checks post"), "{}", stderr(&out));
    let checks = w.run(&["checks", head, "-R", "ann/mono/app", "--json"]);
    let checks: Value = serde_json::from_slice(&checks.stdout).unwrap();
    assert_eq!(checks["statuses"].as_array().unwrap().len(), 2, "{checks}");

    w.api(
        reqwest::Method::POST,
        "/v1/monorepos/ann/mono/issues",
        json!({"title": "Mine to fix", "assignees": ["ann"]}),
    )
    .await;
    w.api(
        reqwest::Method::POST,
        "/v1/monorepos/ann/mono/issues",
        json!({"title": "Nobody's"}),
    )
    .await;

    let mut status = Value::Null;
    for _ in 0..100 {
        status = w.json(&["status"]);
        if status["needs"].as_array().is_some_and(|n| !n.is_empty()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let keys: Vec<&String> = status.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 4, "{status}");
    assert_eq!(status["needs"][0]["branch"], "topic", "{status}");
    assert_eq!(status["needs"][0]["state"], "failing");
    let issues = status["issues"].as_array().unwrap();
    assert_eq!(issues.len(), 1, "{status}");
    assert_eq!(issues[0]["title"], "Mine to fix");
    assert_eq!(issues[0]["monorepo"], "ann/mono");
    assert_eq!(status["agents"], json!([]));
    let kinds: Vec<&str> = status["activity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"push") && kinds.contains(&"status"),
        "{kinds:?}"
    );

    let text = w.ok(&["status"]);
    for said in [
        "Needs you",
        "failing",
        "topic",
        "Issues assigned to you",
        "ann/mono#1  Mine to fix",
        "Your agent sessions",
        "None running",
        "Recent activity",
    ] {
        assert!(text.contains(said), "no {said:?} in:\n{text}");
    }
    assert!(!text.contains("Nobody's"), "{text}");
}

#[tokio::test]
async fn deletes_ask_and_need_yes_without_a_terminal() {
    let w = World::new().await;
    let labels = |w: &World| -> Vec<String> {
        w.json(&["label", "list", "-R", "ann/mono"])["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["name"].as_str().unwrap().to_owned())
            .collect()
    };
    w.ok(&["label", "create", "triage", "-R", "ann/mono"]);
    let out = w.run(&["label", "delete", "triage", "-R", "ann/mono"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    assert!(labels(&w).contains(&"triage".to_owned()));
    // On a terminal it asks: no (or Enter) keeps it, y deletes it.
    let out = w.on_terminal(&["label", "delete", "triage", "-R", "ann/mono"], "n\n");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("Delete the label triage of ann/mono? [y/N]"),
        "{said}"
    );
    assert!(said.contains("was not deleted"), "{said}");
    assert!(labels(&w).contains(&"triage".to_owned()));
    let out = w.on_terminal(&["label", "delete", "triage", "-R", "ann/mono"], "y\n");
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(!labels(&w).contains(&"triage".to_owned()));
    w.ok(&["label", "create", "triage", "-R", "ann/mono"]);
    w.ok(&["label", "delete", "triage", "-R", "ann/mono", "--yes"]);
    assert!(!labels(&w).contains(&"triage".to_owned()));

    let out = w.run(&["branch", "delete", "topic", "-R", "ann/mono/app"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(stderr(&out).contains("pass --yes"), "{}", stderr(&out));
    w.ok(&["branch", "view", "topic", "-R", "ann/mono/app"]);
    w.ok(&["branch", "delete", "topic", "-R", "ann/mono/app", "-y"]);

    // A monorepo: --yes stands for the typed confirmation; a wrong --confirm still fails.
    w.api(
        reqwest::Method::POST,
        "/v1/monorepos",
        json!({"name": "gone"}),
    )
    .await;
    let out = w.run(&["monorepo", "delete", "ann/gone"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    let out = w.run(&["monorepo", "delete", "ann/gone", "--confirm", "ann/other"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    w.ok(&["monorepo", "view", "ann/gone"]);
    w.ok(&["monorepo", "delete", "ann/gone", "--yes"]);
    assert_eq!(
        w.run(&["monorepo", "view", "ann/gone"]).status.code(),
        Some(1)
    );
}

#[tokio::test]
async fn clone_by_name_r_everywhere_and_limit_pages_through() {
    let w = World::new().await;
    // `svc clone mono` is ann's own mono.
    w.ok(&["clone", "mono"]);
    let root = w.m.home.path().join("mono");
    assert!(root.join("app/a.txt").exists());

    // repo list/view/edit take -R as well as their positionals.
    let by_r = w.json(&["repo", "list", "-R", "ann/mono"]);
    let by_name = w.json(&["repo", "list", "ann/mono"]);
    assert_eq!(by_r, by_name);
    assert_eq!(by_r["items"][0]["name"], "app");
    let out = w.run_in(Some(&root.join("app")), &["repo", "list", "--json"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), by_r);
    let edited = w.json(&[
        "repo",
        "edit",
        "-R",
        "ann/mono/app",
        "--releases-public",
        "true",
    ]);
    assert_eq!(edited["releases_public"], true);
    let edited = w.json(&[
        "repo",
        "edit",
        "ann/mono",
        "app",
        "--releases-public",
        "false",
    ]);
    assert_eq!(edited["releases_public"], false);
    assert_eq!(
        w.json(&["repo", "view", "-R", "ann/mono/app"])["name"],
        "app"
    );

    // -L above the server's page of 100 pages through.
    for n in 0..105 {
        w.api(
            reqwest::Method::POST,
            "/v1/monorepos/ann/mono/issues",
            json!({"title": format!("issue {n}")}),
        )
        .await;
    }
    let some = w.json(&["issue", "list", "-R", "ann/mono", "-L", "103"]);
    assert_eq!(some["items"].as_array().unwrap().len(), 103);
    assert!(some["next_cursor"].is_string(), "more are left");
    let all = w.json(&["issue", "list", "-R", "ann/mono", "-L", "150"]);
    let numbers: Vec<i64> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["number"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers.len(), 105);
    let mut unique = numbers.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 105, "no issue twice");
    assert!(all["next_cursor"].is_null());
    let rest = w.json(&[
        "issue",
        "list",
        "-R",
        "ann/mono",
        "--cursor",
        some["next_cursor"].as_str().unwrap(),
    ]);
    assert_eq!(rest["items"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn branch_checkout_switches_or_opens_a_worktree() {
    let w = World::new().await;
    w.ok(&["clone", "ann/mono"]);
    let app = w.m.home.path().join("mono/app");
    let out = w.run_in(Some(&app), &["branch", "checkout", "topic"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let git = |args: &[&str]| w.m.git(&app, args).trim().to_owned();
    assert_eq!(git(&["rev-parse", "--abbrev-ref", "HEAD"]), "topic");
    assert_eq!(
        git(&["rev-parse", "--abbrev-ref", "topic@{upstream}"]),
        "origin/topic"
    );
    assert!(app.join("t.txt").exists());

    // New work on the server comes with the next checkout of a branch made after the clone.
    w.c.git.ok(&w.c.work, &["checkout", "-q", "-b", "later"]);
    w.c.git.commit(&w.c.work, "later", &[("l.txt", b"l\n")]);
    w.c.git.ok(&w.c.work, &["push", "-q", "origin", "later"]);
    let out = w.run(&[
        "branch",
        "checkout",
        "later",
        "-R",
        "ann/mono/app",
        "--json",
    ]);
    assert!(out.status.success(), "{}", all_output(&out));
    let said: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(said["created"], true);
    assert_eq!(git(&["rev-parse", "--abbrev-ref", "HEAD"]), "later");

    // A branch the server does not have: its error, and the checkout stays.
    let out = w.run_in(Some(&app), &["branch", "checkout", "nope"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert_eq!(git(&["rev-parse", "--abbrev-ref", "HEAD"]), "later");

    // --worktree: the checkout stays, a worktree opens as svc worktree add opens one.
    let out = w.run_in(Some(&app), &["branch", "checkout", "topic", "--worktree"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert_eq!(git(&["rev-parse", "--abbrev-ref", "HEAD"]), "later");
    let tree = w.m.home.path().join("mono.worktrees/app/topic");
    assert!(tree.join("t.txt").exists(), "{}", all_output(&out));
    assert!(w.ok(&["worktree", "list"]).contains("topic"));
}

#[tokio::test]
async fn completions_know_the_servers_names() {
    let w = World::new().await;
    let complete = |line: &[&str]| -> Vec<String> {
        let out =
            w.m.svc(&[])
                .args(["--", "svc"])
                .args(line)
                .env("COMPLETE", "fish")
                .env("SVC_TOKEN", &w.c.token)
                .env("SVC_SERVER", &w.c.app.base)
                .output()
                .unwrap();
        assert!(out.status.success(), "{}", all_output(&out));
        // The names, without the options offered beside them.
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
            .filter(|l| !l.starts_with('-'))
            .collect()
    };
    assert_eq!(complete(&["monorepo", "view", ""]), ["ann/mono"]);
    assert_eq!(complete(&["clone", "ann/m"]), ["ann/mono"]);
    assert_eq!(complete(&["branch", "list", "-R", ""]), ["ann/mono/"]);
    assert_eq!(
        complete(&["branch", "list", "-R", "ann/mono/"]),
        ["ann/mono/app"]
    );
    assert_eq!(complete(&["issue", "list", "-R", "a"]), ["ann/mono"]);
    let mut branches = complete(&["branch", "view", "-R", "ann/mono/app", ""]);
    branches.sort_unstable();
    assert_eq!(branches, ["main", "topic"]);
    assert_eq!(
        complete(&["branch", "delete", "-R", "ann/mono/app", "to"]),
        ["topic"]
    );
    // Subcommands still complete without the server.
    assert!(complete(&["bra"]).contains(&"branch".to_owned()));

    // The registration scripts call svc back for each shell.
    for shell in ["bash", "zsh", "fish"] {
        let out = std::process::Command::new(workspace_bin("svc"))
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success());
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(
            script.contains(&format!("COMPLETE=\"{shell}\""))
                || script.contains(&format!("COMPLETE={shell}")),
            "{shell}: {script}"
        );
    }
}

#[tokio::test]
async fn a_second_login_says_who_and_asks_first() {
    let w = World::new().await;
    let login = |extra: &[&str]| {
        let mut args = vec!["login", "--server", &w.c.app.base, "--with-token"];
        args.extend_from_slice(extra);
        let mut child =
            w.m.svc(&args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{}\n", w.c.token).as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let out = login(&[]);
    assert!(out.status.success(), "{}", all_output(&out));
    let out = login(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let said = stderr(&out);
    assert!(
        said.contains(&format!("already signed in to {} as ann", w.c.app.base)),
        "{said}"
    );
    assert!(said.contains("--force"), "{said}");
    // On a terminal it asks; no keeps the sign-in, yes goes on (reading the token next).
    let base = w.c.app.base.clone();
    let args = ["login", "--server", &base, "--with-token"];
    let out = w.on_terminal(&args, "n\n");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("You are signed in to {base} as ann")),
        "{said}"
    );
    assert!(
        said.contains("Sign in again and replace it? [y/N]"),
        "{said}"
    );
    assert!(said.contains("nothing changed"), "{said}");
    assert_ne!(out.status.code(), Some(0));
    let out = w.on_terminal(&args, &format!("y\n{}\n", w.c.token));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("Logged in"), "{said}");
    let out = login(&["--force"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Logged in"),
        "{}",
        all_output(&out)
    );
}
