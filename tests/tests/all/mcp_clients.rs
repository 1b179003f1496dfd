//! `svc mcp` as real MCP clients see it: every tool schema compiled by ajv in strict mode
//! (JSON Schema 2020-12), and tools listed and called through MCP Inspector's command
//! line (npm), against a real server. The tools come from `.ci/mcp-clients.sh`.

use std::path::Path;
use std::process::Command;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::expect_json;
use svc_tests::machine::Machine;
use svc_tests::npm_tools::NpmTools;

use crate::mcp::Mcp;

const M: &str = "/v1/monorepos/ann/mono";

#[tokio::test]
async fn every_tool_schema_compiles_in_ajv_strict_mode() {
    let Some(tools) = NpmTools::find() else {
        return;
    };
    let c = svc_tests::Cloned::new("mono", "app").await;
    let machine = Machine::new();
    let env = [
        ("SVC_SERVER", c.app.base.as_str()),
        ("SVC_TOKEN", c.token.as_str()),
        ("SVC_MONOREPO", "ann/mono"),
        // A chat's server offers start_branch as well: every tool there is.
        ("SVC_AGENT_KIND", "chat"),
    ];
    let mut mcp = Mcp::start_with(&machine, &["--toolsets", "all"], &env);
    let list = mcp.request("tools/list", json!({}));
    mcp.finish();
    let count = list["tools"].as_array().unwrap().len();
    assert!(count > 30, "{list}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    std::fs::write(&file, list.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("node/check-schemas.mjs");
    let out = Command::new("node")
        .arg(&script)
        .arg(&tools.dir)
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ajv refused:\n{stderr}{stdout}");
    assert_eq!(
        stdout.trim(),
        format!("{count} tools, 0 schemas refused"),
        "{stderr}"
    );
}

/// `mcp-inspector --cli` running `svc mcp` (stdio) with the credential in its
/// environment; answers the JSON it prints.
fn inspector(tools: &NpmTools, c: &svc_tests::Cloned, machine: &Machine, args: &[&str]) -> Value {
    let svc = svc_tests::workspace_bin("svc");
    let mut cmd = Command::new(tools.inspector());
    cmd.arg("--cli")
        .arg("-e")
        .arg(format!("SVC_SERVER={}", c.app.base))
        .arg("-e")
        .arg(format!("SVC_TOKEN={}", c.token))
        .arg("-e")
        .arg("SVC_MONOREPO=ann/mono")
        .arg("-e")
        .arg(format!("HOME={}", machine.home.path().display()))
        .args(args)
        .arg("--")
        .arg(&svc)
        .args(["mcp", "--toolsets", "all"]);
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "mcp-inspector {args:?} failed:\n{stderr}{stdout}"
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}\n{stderr}"))
}

/// The text of a `tools/call` answer, insisting it is no error.
fn text(answer: &Value) -> String {
    assert_ne!(answer["isError"], true, "{answer}");
    answer["content"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect()
}

#[tokio::test]
async fn mcp_inspector_lists_and_calls_the_tools() {
    let Some(tools) = NpmTools::find() else {
        return;
    };
    let c = svc_tests::Cloned::new("mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"one\n")]);
    c.git.commit(&c.work, "second", &[("a.txt", b"two\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    c.git.commit(&c.work, "on topic", &[("b.txt", b"b\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let machine = Machine::new();

    let list = inspector(&tools, &c, &machine, &["--method", "tools/list"]);
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for name in ["branches", "create_issue", "write_files", "merge_branch"] {
        assert!(names.contains(&name), "{name}: {names:?}");
    }

    let branches = inspector(
        &tools,
        &c,
        &machine,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "branches",
            "--tool-arg",
            "repo=app",
        ],
    );
    let branches: Value = serde_json::from_str(&text(&branches)).unwrap();
    assert_eq!(branches["items"][0]["name"], "topic", "{branches}");

    // An optional integer goes as a number, as its schema says.
    let history = inspector(
        &tools,
        &c,
        &machine,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "history",
            "--tool-arg",
            "repo=app",
            "limit=1",
        ],
    );
    let history = text(&history);
    assert!(
        history.contains("  second") && !history.contains("  first"),
        "{history}"
    );

    let made = inspector(
        &tools,
        &c,
        &machine,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "create_issue",
            "--tool-arg",
            "title=Made through the inspector",
        ],
    );
    let made: Value = serde_json::from_str(&text(&made)).unwrap();
    let number = made["number"].as_u64().unwrap();
    let r = c
        .app
        .as_user(Method::GET, &format!("{M}/issues/{number}"), &c.token)
        .send()
        .await
        .unwrap();
    let issue: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(issue["title"], "Made through the inspector");
    assert_eq!(issue["author"], "ann");
}
