//! `svc mcp`'s toolsets end to end: `--toolsets` and `--read-only` choose the tools, every
//! schema is one any client takes, and each toolset's tools work against a real server
//! through the same routes (and refusals) as the API, writes recorded as the agent.

use reqwest::multipart::{Form, Part};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_server::ci::signature::sign;
use svc_tests::fake_buildkite::FakeBuildkite;
use svc_tests::machine::Machine;
use svc_tests::{TestApp, expect_json};

use crate::mcp::Mcp;

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";

/// Every tool `--toolsets all` offers, by toolset.
const CODE: &[&str] = &["commit", "file", "history", "search_code", "tree"];
const BRANCHES: &[&str] = &[
    "auto_merge_branch",
    "branch",
    "branch_commits",
    "branch_diff",
    "branches",
    "create_branch",
    "list_queue",
    "merge_branch",
    "merge_change",
    "update_branch",
    "view_change",
    "write_files",
];
const REVIEWS: &[&str] = &["review_branch", "reviews"];
const CHECKS: &[&str] = &[
    "checks",
    "ci_annotations",
    "ci_build",
    "ci_builds",
    "ci_job_log",
    "rebuild_ci_build",
    "retry_ci_job",
];
const ISSUES: &[&str] = &[
    "assign_issue",
    "close_issue",
    "comment_issue",
    "create_issue",
    "issue",
    "issues",
    "label_issue",
    "labels",
    "reopen_issue",
];
const ARTIFACTS: &[&str] = &["artifact", "artifact_file", "artifacts", "comment_artifact"];
const RELEASES: &[&str] = &["release", "releases", "tags"];
/// The tools that change something.
const WRITES: &[&str] = &[
    "assign_issue",
    "auto_merge_branch",
    "close_issue",
    "comment_artifact",
    "comment_issue",
    "create_branch",
    "create_issue",
    "label_issue",
    "merge_branch",
    "merge_change",
    "rebuild_ci_build",
    "reopen_issue",
    "retry_ci_job",
    "review_branch",
    "update_branch",
    "write_files",
];

fn sorted(sets: &[&[&str]]) -> Vec<String> {
    let mut names: Vec<String> = sets
        .iter()
        .flat_map(|s| s.iter().map(|n| (*n).to_owned()))
        .collect();
    names.push("repos".to_owned());
    names.sort();
    names
}

fn tools(mcp: &mut Mcp) -> Vec<Value> {
    mcp.request("tools/list", json!({}))["tools"]
        .as_array()
        .unwrap()
        .clone()
}

fn names(tools: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

/// Fails on what some client refuses: a nullable type, a `format` JSON Schema does not
/// define, a required name that is not a property, alternatives instead of an `enum`, a
/// reference.
fn assert_portable(tool: &str, schema: &Value) {
    match schema {
        Value::Object(o) => {
            if let Some(t) = o.get("type") {
                assert!(t.is_string(), "{tool}: type {t} in {schema}");
                assert_ne!(t, "null", "{tool}: {schema}");
            }
            if let Some(f) = o.get("format") {
                assert!(
                    ["date-time", "date", "uri", "email", "uuid"].contains(&f.as_str().unwrap()),
                    "{tool}: format {f}"
                );
            }
            assert!(!o.contains_key("nullable"), "{tool}: {schema}");
            // Choices are plain `enum`s of strings, which every client renders, and no
            // reference needs following.
            for key in ["oneOf", "anyOf", "$ref", "$defs"] {
                assert!(!o.contains_key(key), "{tool}: {key} in {schema}");
            }
            if let (Some(required), Some(props)) = (o.get("required"), o.get("properties")) {
                for name in required.as_array().unwrap() {
                    assert!(
                        props.get(name.as_str().unwrap()).is_some(),
                        "{tool}: {name}"
                    );
                }
            }
            o.values().for_each(|v| assert_portable(tool, v));
        }
        Value::Array(items) => items.iter().for_each(|v| assert_portable(tool, v)),
        _ => {}
    }
}

async fn signed_in() -> (TestApp, String) {
    let app = TestApp::start().await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com", "name": "Ann Example"}))
        .await
        .credential
        .token;
    app.monorepo(&token, json!({"name": "mono"})).await;
    (app, token)
}

#[tokio::test]
async fn toolsets_and_read_only_choose_the_tools_and_every_schema_is_portable() {
    let (app, token) = signed_in().await;
    let machine = Machine::new();
    let env = [
        ("SVC_SERVER", app.base.as_str()),
        ("SVC_TOKEN", token.as_str()),
        ("SVC_MONOREPO", "ann/mono"),
    ];

    let mut mcp = Mcp::start_with(&machine, &["--toolsets", "all"], &env);
    let all = tools(&mut mcp);
    assert_eq!(
        names(&all),
        sorted(&[CODE, BRANCHES, REVIEWS, CHECKS, ISSUES, ARTIFACTS, RELEASES])
    );
    for tool in &all {
        let name = tool["name"].as_str().unwrap();
        let hints = &tool["annotations"];
        for hint in ["readOnlyHint", "destructiveHint", "idempotentHint"] {
            assert!(hints[hint].is_boolean(), "{name} lacks {hint}: {tool}");
        }
        assert_eq!(
            hints["readOnlyHint"],
            json!(!WRITES.contains(&name)),
            "{name}"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert_portable(name, &tool["inputSchema"]);
        if let Some(output) = tool.get("outputSchema") {
            assert_portable(name, output);
        }
    }
    // An optional argument is a plain type left out of `required`.
    let history = all.iter().find(|t| t["name"] == "history").unwrap();
    assert_eq!(
        history["inputSchema"]["properties"]["limit"]["type"],
        "integer"
    );
    assert_eq!(history["inputSchema"]["required"], json!(["repo"]));
    // The review tool has no approve to send.
    let review = all.iter().find(|t| t["name"] == "review_branch").unwrap();
    let text = review["inputSchema"].to_string();
    assert!(
        text.contains("request_changes") && !text.contains("approve"),
        "{text}"
    );
    mcp.finish();

    // The default is every toolset.
    let mut mcp = Mcp::start(&machine, &env);
    assert_eq!(names(&tools(&mut mcp)), names(&all));
    mcp.finish();

    let mut mcp = Mcp::start_with(&machine, &["--read-only"], &env);
    let read = tools(&mut mcp);
    let mut want: Vec<String> = names(&all)
        .into_iter()
        .filter(|n| !WRITES.contains(&n.as_str()))
        .collect();
    want.sort();
    assert_eq!(names(&read), want);
    assert!(
        read.iter()
            .all(|t| t["annotations"]["readOnlyHint"] == true)
    );
    mcp.finish();

    let mut mcp = Mcp::start_with(&machine, &["--toolsets", "issues"], &env);
    assert_eq!(names(&tools(&mut mcp)), sorted(&[ISSUES]));
    mcp.finish();

    let mut mcp = Mcp::start_with(
        &machine,
        &["--toolsets", "releases,reviews", "--read-only"],
        &env,
    );
    assert_eq!(
        names(&tools(&mut mcp)),
        ["release", "releases", "repos", "reviews", "tags"]
    );
    mcp.finish();

    // A chat may hand work on, unless it only reads.
    let chat = [env[0], env[1], env[2], ("SVC_AGENT_KIND", "chat")];
    let mut mcp = Mcp::start_with(&machine, &["--toolsets", "code"], &chat);
    assert!(mcp.tool_names().contains(&"start_branch".to_owned()));
    mcp.finish();
    let mut mcp = Mcp::start_with(&machine, &["--read-only"], &chat);
    assert!(!mcp.tool_names().contains(&"start_branch".to_owned()));
    mcp.finish();

    let out = machine
        .svc(&["mcp", "--toolsets", "code,wiki"])
        .envs(env)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("wiki") && err.contains("releases"), "{err}");
}

/// A monorepo on a fake Buildkite: `app` with main, branch `topic` (one commit, a build
/// started of it), required check `ci/build`, a label, an artifact and a release.
struct World {
    c: svc_tests::Cloned,
    fake: FakeBuildkite,
    build: Value,
    hook_url: String,
    webhook_token: String,
    head: String,
}

async fn world() -> World {
    let fake = FakeBuildkite::start().await;
    let builder = TestApp::builder().buildkite(&fake.api_url, "bk-token");
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git.commit(
        &c.work,
        "first",
        &[
            ("README.md", b"# App\n\nHello from svc.\n"),
            (
                "src/lib.rs",
                b"pub fn hello() -> &'static str {\n    \"Hello\"\n}\n",
            ),
            ("src/deep/more.rs", b"// says hello too\n"),
        ],
    );
    c.git.ok(&c.work, &["tag", "v0.1"]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main", "v0.1"]);
    // `.svc/svc.toml` on the meta layer's main (its first push).
    let url = c.app.url("/ann/mono/meta.git");
    c.git.ok(c.git.home.path(), &["clone", "-q", &url, "meta"]);
    let meta = c.git.path("meta");
    c.git.commit(
        &meta,
        "config",
        &[(
            ".svc/svc.toml",
            b"[repos.\"app\"]\nrequired_checks = [\"ci/build\"]\n",
        )],
    );
    c.git.ok(&meta, &["push", "-q", "origin", "main"]);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    let head = c.git.commit(
        &c.work,
        "Say goodbye",
        &[("src/bye.rs", b"pub fn bye() {}\n")],
    );
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);

    let post = |path: String, body: Value| {
        c.app
            .as_user(Method::POST, &path, &c.token)
            .json(&body)
            .send()
    };
    let r = post(
        format!("{M}/ci/connections"),
        json!({"service": "buildkite", "organization": "acme"}),
    )
    .await
    .unwrap();
    let made: Value = expect_json(r, StatusCode::CREATED).await;
    let r = post(
        format!("{M}/ci/pipelines/pipe/builds"),
        json!({"branch": "topic"}),
    )
    .await
    .unwrap();
    let build: Value = expect_json(r, StatusCode::CREATED).await;
    let r = post(
        format!("{M}/labels"),
        json!({"name": "flaky", "color": "orange"}),
    )
    .await
    .unwrap();
    let _: Value = expect_json(r, StatusCode::CREATED).await;
    let r = post(
        format!("{R}/releases"),
        json!({"tag": "v1.0.0", "title": "First", "notes": "The first one.", "draft": true}),
    )
    .await
    .unwrap();
    let _: Value = expect_json(r, StatusCode::CREATED).await;
    let doc = b"# Design\n\nWe say goodbye politely.\n".to_vec();
    let form = Form::new().part("file", Part::bytes(doc).file_name("design.md"));
    let r = c
        .app
        .as_user(
            Method::POST,
            &format!("{R}/branches/topic/artifacts"),
            &c.token,
        )
        .multipart(form)
        .send()
        .await
        .unwrap();
    let _: Value = expect_json(r, StatusCode::CREATED).await;
    World {
        hook_url: made["webhook_url"].as_str().unwrap().to_owned(),
        webhook_token: made["webhook_token"].as_str().unwrap().to_owned(),
        c,
        fake,
        build,
        head,
    }
}

impl World {
    /// Buildkite's signed webhook: the build runs a job `job-1`.
    async fn job_started(&self) {
        let body = json!({"event": "job.started", "pipeline": {"slug": "pipe"},
            "build": {"id": self.build["id"], "number": self.build["number"], "state": "running",
                "commit": self.head, "branch": "topic", "meta_data": self.build["meta_data"]},
            "job": {"id": "job-1", "name": "test", "state": "running"}});
        let bytes = serde_json::to_vec(&body).unwrap();
        let at = i64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs(),
        )
        .unwrap();
        let r = self
            .c
            .app
            .client
            .post(&self.hook_url)
            .header("x-buildkite-event", "job.started")
            .header(
                "x-buildkite-signature",
                sign(&self.webhook_token, at, &bytes),
            )
            .header("content-type", "application/json")
            .body(bytes)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.status());
    }

    fn env(&self) -> [(&str, &str); 3] {
        [
            ("SVC_SERVER", self.c.app.base.as_str()),
            ("SVC_TOKEN", self.c.token.as_str()),
            ("SVC_MONOREPO", "ann/mono"),
        ]
    }
}

/// Calls a tool, insisting it succeeds; answers its text.
fn ok(mcp: &mut Mcp, tool: &str, args: Value) -> String {
    let (error, text) = mcp.call(tool, args.clone());
    assert!(!error, "{tool} {args}: {text}");
    text
}

/// Calls a tool that answers JSON.
fn ok_json(mcp: &mut Mcp, tool: &str, args: Value) -> Value {
    let text = ok(mcp, tool, args);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool}: {e}: {text}"))
}

// Multi-threaded: the fake Buildkite answers while the test waits on svc mcp's stdout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_toolset_works_against_a_real_server() {
    let w = world().await;
    let machine = Machine::new();
    let mut mcp = Mcp::start_with(&machine, &["--toolsets", "all"], &w.env());

    // code
    let found = ok(
        &mut mcp,
        "search_code",
        json!({"repo": "app", "text": "HELLO"}),
    );
    assert!(found.starts_with("4 matches"), "{found}");
    for line in [
        "README.md:3: Hello from svc.",
        "src/deep/more.rs:1: // says hello too",
        "src/lib.rs:1: pub fn hello() -> &'static str {",
        "src/lib.rs:2:     \"Hello\"",
    ] {
        assert!(found.contains(line), "{line}: {found}");
    }
    let found = ok(
        &mut mcp,
        "search_code",
        json!({"repo": "app", "text": "Hello", "case_sensitive": true, "path": "src"}),
    );
    assert!(
        found.starts_with("1 match ") && found.contains("src/lib.rs:2:"),
        "{found}"
    );
    let commit = ok_json(&mut mcp, "commit", json!({"repo": "app", "sha": w.head}));
    assert_eq!(commit["sha"], w.head.as_str());
    assert_eq!(commit["title"], "Say goodbye");

    // branches
    let branch = ok_json(
        &mut mcp,
        "branch",
        json!({"repo": "app", "branch": "topic"}),
    );
    assert_eq!(branch["head"], w.head.as_str());
    assert_eq!(branch["ahead"], 1);
    assert_eq!(branch["checks"]["missing"], json!(["ci/build"]), "{branch}");
    let commits = ok(
        &mut mcp,
        "branch_commits",
        json!({"repo": "app", "branch": "topic"}),
    );
    assert_eq!(commits.lines().count(), 1, "{commits}");
    assert!(commits.starts_with(&w.head) && commits.ends_with("Say goodbye\n"));
    let made = ok_json(
        &mut mcp,
        "create_branch",
        json!({"repo": "app", "name": "fix/typo", "title": "Fix a typo"}),
    );
    assert_eq!(
        (made["name"].as_str(), made["state"].as_str()),
        (Some("fix/typo"), Some("open"))
    );
    let edited = ok_json(
        &mut mcp,
        "update_branch",
        json!({"repo": "app", "branch": "fix/typo", "description": "Typos in the README."}),
    );
    assert_eq!(edited["title"], "Fix a typo");
    assert_eq!(edited["description"], "Typos in the README.");
    let (error, again) = mcp.call("create_branch", json!({"repo": "app", "name": "fix/typo"}));
    assert!(error && again.starts_with("branch_exists"), "{again}");
    let listed = ok_json(&mut mcp, "branches", json!({"repo": "app"}));
    let listed: Vec<&str> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert!(
        listed.contains(&"fix/typo") && listed.contains(&"topic"),
        "{listed:?}"
    );

    // The gate holds while the required check is missing, and lets it through once green.
    let (error, held) = mcp.call("merge_branch", json!({"repo": "app", "branch": "topic"}));
    assert!(error && held.starts_with("checks_not_green"), "{held}");
    let r =
        w.c.app
            .as_user(
                Method::POST,
                &format!("{R}/statuses/{}", w.head),
                &w.c.token,
            )
            .json(&json!({"context": "ci/build", "state": "success"}))
            .send()
            .await
            .unwrap();
    assert!(r.status().is_success());
    let checks = ok_json(&mut mcp, "checks", json!({"repo": "app", "ref": "topic"}));
    assert_eq!(checks["commit"], w.head.as_str());
    assert_eq!(checks["checks"]["state"], "success", "{checks}");

    // reviews: comment and request changes; approve is no value the tool takes.
    for (state, body) in [
        ("comment", "Looks tidy."),
        ("request_changes", "Add a test."),
    ] {
        let review = ok_json(
            &mut mcp,
            "review_branch",
            json!({"repo": "app", "branch": "topic", "state": state, "body": body}),
        );
        assert_eq!(review["state"], state);
    }
    let refused = mcp.exchange(
        "tools/call",
        json!({"name": "review_branch", "arguments":
            {"repo": "app", "branch": "topic", "state": "approve", "body": "LGTM"}}),
    );
    let refused_text = refused.to_string();
    assert!(
        !refused["error"].is_null() || refused["result"]["isError"] == true,
        "{refused}"
    );
    assert!(refused_text.contains("approve"), "{refused}");
    let reviews = ok_json(
        &mut mcp,
        "reviews",
        json!({"repo": "app", "branch": "topic"}),
    );
    let states: Vec<&str> = reviews["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["comment", "request_changes"]);

    let merged = ok(
        &mut mcp,
        "merge_branch",
        json!({"repo": "app", "branch": "topic"}),
    );
    assert!(
        merged.starts_with("Merged topic of app into main as "),
        "{merged}"
    );
    let branch = ok_json(
        &mut mcp,
        "branch",
        json!({"repo": "app", "branch": "topic"}),
    );
    assert_eq!(branch["state"], "merged");

    // checks and CI
    let builds = ok_json(&mut mcp, "ci_builds", json!({"pipeline": "pipe"}));
    assert_eq!(builds["items"][0]["id"], w.build["id"], "{builds}");
    w.job_started().await;
    let build = ok_json(&mut mcp, "ci_build", json!({"id": w.build["id"]}));
    assert_eq!(build["jobs"][0]["id"], "job-1", "{build}");
    let log: String = (1..=300).map(|n| format!("line {n}\n")).collect();
    w.fake.set_log("job-1", log.as_bytes());
    let tail = ok(
        &mut mcp,
        "ci_job_log",
        json!({"build": w.build["id"], "job": "job-1", "lines": 2}),
    );
    assert!(tail.ends_with("\nline 299\nline 300\n"), "{tail}");
    assert!(tail.starts_with("[the last 2 lines of the log"), "{tail}");
    let tail = ok(
        &mut mcp,
        "ci_job_log",
        json!({"build": w.build["id"], "job": "job-1"}),
    );
    assert_eq!(tail.lines().count(), 201, "{tail}");
    w.fake.extras(3);
    let annotations = ok_json(&mut mcp, "ci_annotations", json!({"id": w.build["id"]}));
    assert_eq!(
        annotations["items"].as_array().unwrap().len(),
        3,
        "{annotations}"
    );
    let retried = ok_json(
        &mut mcp,
        "retry_ci_job",
        json!({"build": w.build["id"], "job": "job-1"}),
    );
    assert_eq!(retried["id"], "job-1-retry", "{retried}");
    let (error, twice) = mcp.call(
        "retry_ci_job",
        json!({"build": w.build["id"], "job": "job-1"}),
    );
    assert!(error && twice.starts_with("provider_error"), "{twice}");
    let rebuilt = ok_json(&mut mcp, "rebuild_ci_build", json!({"id": w.build["id"]}));
    assert_eq!(rebuilt["rebuild_of"], w.build["id"], "{rebuilt}");

    // issues
    let issue = ok_json(
        &mut mcp,
        "create_issue",
        json!({"title": "Goodbye is rude", "body": "Say it kindly.", "labels": ["flaky"]}),
    );
    let number = issue["number"].as_u64().unwrap();
    let comment = ok_json(
        &mut mcp,
        "comment_issue",
        json!({"number": number, "body": "I can reproduce it."}),
    );
    assert_eq!(comment["body"], "I can reproduce it.");
    let labeled = ok_json(
        &mut mcp,
        "label_issue",
        json!({"number": number, "remove": ["flaky"]}),
    );
    assert_eq!(labeled["labels"], json!([]), "{labeled}");
    let (error, unknown) = mcp.call("label_issue", json!({"number": number, "add": ["nope"]}));
    assert!(error, "{unknown}");
    let assigned = ok_json(
        &mut mcp,
        "assign_issue",
        json!({"number": number, "add": ["ann"]}),
    );
    assert_eq!(assigned["assignees"], json!(["ann"]), "{assigned}");
    let found = ok_json(&mut mcp, "issues", json!({"q": "rude", "assignee": "ann"}));
    assert_eq!(found["items"][0]["number"], number);
    let closed = ok_json(
        &mut mcp,
        "close_issue",
        json!({"number": number, "reason": "not_planned", "comment": "Won't fix."}),
    );
    assert_eq!(closed["state"], "closed");
    assert_eq!(closed["state_reason"], "not_planned");
    let reopened = ok_json(&mut mcp, "reopen_issue", json!({"number": number}));
    assert_eq!(reopened["state"], "open");
    let viewed = ok_json(&mut mcp, "issue", json!({"number": number}));
    let kinds: Vec<&str> = viewed["timeline"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    for kind in ["comment", "unlabeled", "assigned", "closed", "reopened"] {
        assert!(kinds.contains(&kind), "{kind}: {kinds:?}");
    }
    let labels = ok_json(&mut mcp, "labels", json!({}));
    assert!(
        labels["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["name"] == "flaky"),
        "{labels}"
    );

    // artifacts
    let artifacts = ok_json(
        &mut mcp,
        "artifacts",
        json!({"repo": "app", "branch": "topic"}),
    );
    assert_eq!(artifacts["items"][0]["name"], "design.md");
    let text = ok(
        &mut mcp,
        "artifact_file",
        json!({"repo": "app", "branch": "topic", "name": "design.md"}),
    );
    assert_eq!(text, "# Design\n\nWe say goodbye politely.\n");
    let said = ok_json(
        &mut mcp,
        "comment_artifact",
        json!({"repo": "app", "branch": "topic", "name": "design.md",
            "body": "Politely how?", "quote": "goodbye politely"}),
    );
    assert_eq!(said["body"], "Politely how?");
    let artifact = ok_json(
        &mut mcp,
        "artifact",
        json!({"repo": "app", "branch": "topic", "name": "design.md"}),
    );
    assert_eq!(artifact["artifact"]["versions"][0]["n"], 1);
    assert!(
        artifact["threads"].to_string().contains("Politely how?"),
        "{artifact}"
    );

    // releases
    let releases = ok_json(&mut mcp, "releases", json!({"repo": "app"}));
    assert_eq!(releases["items"][0]["tag"], "v1.0.0");
    let release = ok_json(&mut mcp, "release", json!({"repo": "app", "tag": "v1.0.0"}));
    assert_eq!(release["notes"], "The first one.");
    let tags = ok_json(&mut mcp, "tags", json!({"repo": "app"}));
    assert_eq!(tags["items"][0]["name"], "v0.1", "{tags}");
    let (error, none) = mcp.call("release", json!({"repo": "app", "tag": "v9"}));
    assert!(error && none.starts_with("not_found"), "{none}");
    mcp.finish();
}

/// A task runner that works through `svc mcp` on its PATH, one call a second: opens an
/// issue and comments on it, makes a branch, reviews it and commits a file on it, and
/// says how many calls went through.
const WORKER: &str = r#"#!/bin/sh
cat >/dev/null
{
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_issue","arguments":{"title":"Found by the agent"}}}'
  sleep 1
  echo '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"comment_issue","arguments":{"number":1,"body":"Details."}}}'
  echo '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_branch","arguments":{"repo":"app","name":"agent-made"}}}'
  sleep 1
  echo '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"review_branch","arguments":{"repo":"app","branch":"agent-made","state":"comment","body":"Empty so far."}}}'
  echo '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"write_files","arguments":{"repo":"app","branch":"agent-made","message":"Add notes","files":[{"path":"NOTES.md","content":"notes"}]}}}'
  sleep 2
} | svc mcp --toolsets issues,branches,reviews > "$HOME/mcp.out" 2>&1
n=$(grep -c '"isError":false' "$HOME/mcp.out")
echo "{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"$n calls went through\"}]}"
"#;

#[tokio::test]
async fn writes_through_svc_mcp_are_recorded_as_the_agent() {
    use crate::agents::{M as AM, launch, settled, with_main};
    let svc = svc_tests::workspace_bin("svc");
    let extra = format!("svc = \"{}\"", svc.display());
    let (c, _dir) = with_main(&extra, WORKER, "svc-jsonl").await;
    let (app, ann) = (&c.app, &c.token);
    let session = launch(app, ann, json!({"prompt": "Look around", "branch": "work"})).await;
    let id = session["id"].as_str().unwrap();
    assert_eq!(settled(app, ann, id).await["state"], "idle");
    let t = app
        .get_json(ann, &format!("{AM}/agents/{id}/transcript"))
        .await;
    assert!(t.to_string().contains("5 calls went through"), "{t}");

    let events = app.get_json(ann, &format!("{AM}/events?limit=200")).await;
    let by_agent: Vec<&str> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["actor"] == "ann" && e["agent"] == "r")
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    for kind in [
        "issue.opened",
        "issue.commented",
        "branch.opened",
        "review",
        "push",
    ] {
        assert!(
            by_agent.contains(&kind),
            "no {kind} by agent r: {by_agent:?}"
        );
    }
    let reviews = app
        .get_json(ann, &format!("{R}/branches/agent-made/reviews"))
        .await;
    assert_eq!(reviews["items"][0]["author"], "ann");
    assert_eq!(reviews["items"][0]["agent"], "r");
    // The commit write_files made is authored as ann, stamped with the agent.
    let commits = app
        .get_json(ann, &format!("{R}/branches/agent-made/commits"))
        .await;
    let commit = &commits["items"][0];
    assert_eq!(commit["title"], "Add notes", "{commits}");
    assert_eq!(commit["author"]["email"], "ann@example.com");
    assert_eq!(commit["trailers"]["Svc-Agent"], "r", "{commit}");
}

#[test]
fn mcp_help_matches_its_snapshot() {
    let help = Machine::new().ok(&["mcp", "--help"]);
    svc_tests::snapshot::assert_text("tests/snapshots/svc-mcp-help.txt", &help);
}

#[tokio::test]
async fn write_files_commits_on_a_branch_without_a_checkout() {
    let c = svc_tests::Cloned::new("mono", "app").await;
    c.git.commit(
        &c.work,
        "first",
        &[
            ("README.md", b"# App\n"),
            ("src/lib.rs", b"pub fn x() {}\n"),
        ],
    );
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    let machine = Machine::new();
    let env = [
        ("SVC_SERVER", c.app.base.as_str()),
        ("SVC_TOKEN", c.token.as_str()),
        ("SVC_MONOREPO", "ann/mono"),
    ];
    let mut mcp = Mcp::start_with(&machine, &["--toolsets", "code,branches"], &env);
    // Text, bytes in base64 and a deletion, on a branch made from main by the write.
    let dot: &[u8] = b"\x89PNG\r\n\x1a\n\0\0";
    let commit = ok_json(
        &mut mcp,
        "write_files",
        json!({"repo": "app", "branch": "docs", "message": "Rewrite the docs\n\nAnd drop lib.rs.",
        "files": [
            {"path": "README.md", "content": "# App\n\nNow with docs.\n"},
            {"path": "img/dot.png", "content": base64_of(dot), "encoding": "base64"},
            {"path": "src/lib.rs", "delete": true},
        ]}),
    );
    let sha = commit["sha"].as_str().unwrap().to_owned();
    assert_eq!(commit["title"], "Rewrite the docs", "{commit}");
    assert_eq!(commit["author"]["email"], "ann@example.com", "{commit}");
    let readme = ok(
        &mut mcp,
        "file",
        json!({"repo": "app", "path": "README.md", "ref": "docs"}),
    );
    assert_eq!(readme, "# App\n\nNow with docs.\n");
    let r = c
        .app
        .as_user(
            Method::GET,
            &format!("{R}/file?ref=docs&path=img/dot.png"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.bytes().await.unwrap().as_ref(), dot);
    let tree = ok(&mut mcp, "tree", json!({"repo": "app", "ref": "docs"}));
    assert!(!tree.contains("src/"), "{tree}");
    let branch = ok_json(&mut mcp, "branch", json!({"repo": "app", "branch": "docs"}));
    assert_eq!(branch["head"], sha.as_str());

    // A stale expected head is refused and writes nothing; the current one goes through.
    let main = c.git.ok(&c.work, &["rev-parse", "HEAD"]);
    let (error, moved) = mcp.call(
        "write_files",
        json!({"repo": "app", "branch": "docs", "message": "Late", "expected_head": main.trim(),
            "files": [{"path": "late.txt", "content": "late\n"}]}),
    );
    assert!(error && moved.starts_with("head_moved"), "{moved}");
    let next = ok_json(
        &mut mcp,
        "write_files",
        json!({"repo": "app", "branch": "docs", "message": "On time", "expected_head": sha,
            "files": [{"path": "late.txt", "content": "on time\n"}]}),
    );
    assert_eq!(next["parents"], json!([sha]), "{next}");
    // Main moves only by merges.
    let (error, main_refused) = mcp.call(
        "write_files",
        json!({"repo": "app", "branch": "main", "message": "Sneak",
            "files": [{"path": "x.txt", "content": "x\n"}]}),
    );
    assert!(
        error && main_refused.starts_with("default_branch"),
        "{main_refused}"
    );
    mcp.finish();
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
