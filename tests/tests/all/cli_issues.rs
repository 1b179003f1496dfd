//! `svc issue ...` and `svc label ...` end to end: the real `svc` against a real server.

use std::process::{Command, Output};

use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::git::all_output;
use svc_tests::machine::Machine;

/// ann, who owns `ann/mono` (repo `api`), at her machine.
struct Ann {
    app: TestApp,
    token: String,
    machine: Machine,
}

impl Ann {
    async fn new() -> Ann {
        let app = TestApp::start().await;
        let token = app
            .bootstrap(json!({"email": "ann@example.com"}))
            .await
            .credential
            .token;
        app.monorepo(&token, json!({"name": "mono"})).await;
        app.repo(&token, "ann/mono", "api").await;
        Ann {
            app,
            token,
            machine: Machine::new(),
        }
    }

    fn svc(&self, args: &[&str]) -> Command {
        let mut cmd = self.machine.svc(args);
        cmd.env("SVC_TOKEN", &self.token)
            .env("SVC_SERVER", &self.app.base);
        cmd
    }

    fn ok(&self, args: &[&str]) -> String {
        let out: Output = self.svc(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", all_output(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn json(&self, args: &[&str]) -> Value {
        let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        serde_json::from_str(&self.ok(&args)).unwrap()
    }
}

#[tokio::test]
async fn issues_from_the_command_line() {
    let ann = Ann::new().await;
    let r = ["-R", "ann/mono"];
    let out = ann.ok(&[
        &["issue", "create"],
        &r[..],
        &[
            "--title",
            "Crash on start",
            "--body",
            "It crashes.",
            "--label",
            "bug",
        ],
    ]
    .concat());
    assert_eq!(out.trim(), "Opened issue #1 in ann/mono: Crash on start");
    let two = ann.json(&[&["issue", "create"], &r[..], &["-t", "Docs", "-a", "ann"]].concat());
    assert_eq!(
        (&two["number"], &two["assignees"]),
        (&json!(2), &json!(["ann"]))
    );

    let list = ann.json(&[&["issue", "list"], &r[..], &["--label", "bug"]].concat());
    assert_eq!(list["items"][0]["title"], "Crash on start");
    assert_eq!(list["open_count"], 1);
    // The table alone on stdout, header first; the counts on stderr.
    let out = ann
        .svc(&[&["issue", "list"], &r[..]].concat())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.starts_with("#  STATE  TITLE"), "{table}");
    assert!(table.contains("Crash on start"), "{table}");
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "2 open, 0 closed in ann/mono\n"
    );

    ann.ok(&[
        &["issue", "comment", "1"],
        &r[..],
        &["--body", "Seen on Linux too."],
    ]
    .concat());
    ann.ok(&[&["issue", "react", "1", "+1"], &r[..]].concat());
    ann.ok(&[
        &["issue", "edit", "1"],
        &r[..],
        &[
            "--add-label",
            "question",
            "--remove-label",
            "bug",
            "--title",
            "Crash at start",
        ],
    ]
    .concat());
    let closed = ann.json(&[&["issue", "close", "1"], &r[..], &["--not-planned"]].concat());
    assert_eq!(
        (&closed["state"], &closed["state_reason"]),
        (&json!("closed"), &json!("not_planned"))
    );
    ann.ok(&[&["issue", "link", "1", "api:fix"], &r[..]].concat());

    let view = ann.ok(&[&["issue", "view", "1"], &r[..]].concat());
    for line in [
        "#1 closed: Crash at start [question]",
        "linked to api:fix",
        "+1 ×1",
        "It crashes.",
        "── ann commented",
        "Seen on Linux too.",
        "· ann renamed this from \"Crash on start\" to \"Crash at start\"",
        "· ann added the label question",
        "· ann removed the label bug",
        "· ann closed this (not planned)",
        "· ann linked api:fix",
    ] {
        assert!(view.contains(line), "{line:?} in:\n{view}");
    }
    let reopened = ann.json(&[&["issue", "reopen", "1"], &r[..]].concat());
    assert_eq!(reopened["state"], "open");
    let found = ann.json(&[&["issue", "list"], &r[..], &["--search", "cras"]].concat());
    assert_eq!(found["items"].as_array().unwrap().len(), 1);

    ann.ok(&[
        &["label", "create", "needs-info"],
        &r[..],
        &["--color", "yellow", "-d", "Waiting"],
    ]
    .concat());
    ann.ok(&[
        &["label", "edit", "question"],
        &r[..],
        &["--rename", "asked"],
    ]
    .concat());
    ann.ok(&[&["label", "delete", "bug", "--yes"], &r[..]].concat());
    let labels = ann.json(&[&["label", "list"], &r[..]].concat());
    let names: Vec<&str> = labels["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["asked", "documentation", "enhancement", "needs-info"]
    );
    assert_eq!(
        ann.json(&[&["issue", "view", "1"], &r[..]].concat())["issue"]["labels"],
        json!(["asked"])
    );
}

/// Without --body on a terminal, `svc issue create` opens $EDITOR (as gh does); the
/// first line is the title when --title is not given. Run under `script` for a terminal.
#[tokio::test]
async fn issue_create_opens_the_editor_on_a_terminal() {
    let ann = Ann::new().await;
    let editor = ann.machine.home.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\n{ printf 'Written in the editor\\n\\n# Steps\\nrun it\\n'; cat \"$1\"; } > \"$1.new\" && mv \"$1.new\" \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let svc = ann.svc(&["issue", "create", "-R", "ann/mono"]);
    let mut line = vec![svc.get_program().to_string_lossy().into_owned()];
    line.extend(svc.get_args().map(|a| a.to_string_lossy().into_owned()));
    let mut script = Command::new("script");
    script.args(["-qec", &line.join(" "), "/dev/null"]);
    if let Some(dir) = svc.get_current_dir() {
        script.current_dir(dir);
    }
    script.env_clear();
    for (k, v) in svc.get_envs() {
        if let Some(v) = v {
            script.env(k, v);
        }
    }
    script.env("EDITOR", &editor).env("TERM", "dumb");
    let out = script.output().unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    let issue = ann
        .app
        .get_json(&ann.token, "/v1/monorepos/ann/mono/issues/1")
        .await;
    assert_eq!(issue["title"], "Written in the editor");
    assert_eq!(issue["body"], "# Steps\nrun it");
}
