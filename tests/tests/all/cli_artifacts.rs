//! `svc artifact ...` end to end: a Markdown document uploaded with the images it uses,
//! versioned, opened, commented on and deleted with the real `svc`.

use serde_json::Value;
use svc_tests::git::all_output;
use svc_tests::machine::Machine;

/// The smallest PNG: the signature and an IHDR.
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn artifacts_from_the_command_line() {
    let c = svc_tests::Cloned::new("mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"a\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "feat/docs"]);
    c.git.commit(&c.work, "docs", &[("b.txt", b"b\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "feat/docs"]);
    let docs = c.git.home.path().join("docs");
    std::fs::create_dir_all(docs.join("img")).unwrap();
    std::fs::write(docs.join("img/arch.png"), PNG).unwrap();
    std::fs::write(
        docs.join("design.md"),
        "# Design\n\n![arch](img/arch.png)\n![web](https://example.com/x.png)\n",
    )
    .unwrap();
    let machine = Machine::new();
    let svc = |args: &[&str]| {
        // A comment id names its thread: resolve takes no branch.
        let branch: &[&str] = if args[1] == "resolve" {
            &[]
        } else {
            &["-b", "feat/docs"]
        };
        let args: Vec<&str> = args
            .iter()
            .copied()
            .chain(["-R", "ann/mono/app"])
            .chain(branch.iter().copied())
            .collect();
        let out = machine
            .svc(&args)
            .env("SVC_TOKEN", &c.token)
            .env("SVC_SERVER", &c.app.base)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", all_output(&out));
        out
    };
    let json = |args: &[&str]| -> Value {
        let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        serde_json::from_slice(&svc(&args).stdout).unwrap()
    };
    let doc = docs.join("design.md");
    let doc = doc.to_str().unwrap();

    // The document goes up with the image it uses (the web address stays as written).
    let made = json(&["artifact", "add", doc]);
    assert_eq!(made["name"], "design.md");
    let files: Vec<&str> = made["versions"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["design.md", "img/arch.png"]);
    let out = svc(&["artifact", "add", doc]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("version 2"),
        "{}",
        all_output(&out)
    );
    let list = json(&["artifact", "list"]);
    assert_eq!(list["items"][0]["versions"][0]["n"], 2);
    let view = svc(&["artifact", "view", "design.md"]);
    assert!(String::from_utf8_lossy(&view.stdout).contains("img/arch.png"));

    // The rendered page, its image inlined.
    let page = svc(&["artifact", "open", "design.md", "--print"]);
    let page = String::from_utf8_lossy(&page.stdout);
    assert!(page.contains("<h1>Design</h1>"), "{page}");
    assert!(page.contains("data:image/png;base64,"), "{page}");
    assert!(page.contains("https://example.com/x.png"), "{page}");

    // A thread on a passage, a reply, resolved; view shows it.
    let root = json(&[
        "artifact",
        "comment",
        "design.md",
        "Why this?",
        "--quote",
        "Design",
    ]);
    assert_eq!(root["anchor"]["blockId"], "external");
    let id = root["id"].as_str().unwrap();
    let reply = json(&[
        "artifact",
        "comment",
        "design.md",
        "Because.",
        "--reply-to",
        id,
    ]);
    assert_eq!(reply["thread"], id);
    let resolved = json(&["artifact", "resolve", reply["id"].as_str().unwrap()]);
    assert_eq!(
        (resolved["id"].as_str(), resolved["state"].as_str()),
        (Some(id), Some("resolved"))
    );
    let view = svc(&["artifact", "view", "design.md"]);
    let view = String::from_utf8_lossy(&view.stdout);
    assert!(
        view.contains("[resolved]") && view.contains("Because."),
        "{view}"
    );

    svc(&["artifact", "delete", "design.md", "--yes"]);
    assert_eq!(json(&["artifact", "list"])["items"], serde_json::json!([]));
}
