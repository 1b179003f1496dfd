//! `svc hook ...` end to end: the real `svc` against a real server and a real receiver.

use std::time::Duration;

use serde_json::Value;
use svc_tests::git::all_output;
use svc_tests::machine::Machine;
use svc_tests::receiver::Receiver;

#[tokio::test]
async fn hooks_from_the_command_line() {
    let c = svc_tests::Cloned::new("mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"a\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    let machine = Machine::new();
    let svc = |args: &[&str]| {
        let args: Vec<&str> = args.iter().copied().chain(["-R", "ann/mono"]).collect();
        let out = machine
            .svc(&args)
            .env("SVC_TOKEN", &c.token)
            .env("SVC_SERVER", &c.app.base)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", all_output(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let json = |args: &[&str]| -> Value {
        let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        serde_json::from_str(&svc(&args)).unwrap()
    };
    let rx = Receiver::start().await;
    let out = svc(&[
        "hook", "create", "--url", &rx.url, "--event", "push", "--event", "tag",
    ]);
    assert!(out.contains("shown only"), "{out}");
    let hooks = json(&["hook", "list"]);
    let id = hooks["items"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        hooks["items"][0]["events"],
        serde_json::json!(["push", "tag"])
    );

    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    c.git.commit(&c.work, "x", &[("x.txt", b"x\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    rx.wait_for(1, Duration::from_secs(10)).await;
    let mut list = Value::Null;
    for _ in 0..100 {
        list = json(&["hook", "deliveries", &id]);
        if list["items"][0]["state"] == "delivered" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(list["items"][0]["state"], "delivered");
    let delivery = list["items"][0]["id"].as_str().unwrap().to_owned();
    let table = svc(&["hook", "deliveries", &id]);
    assert!(
        table.contains(&delivery) && table.contains("delivered"),
        "{table}"
    );

    svc(&["hook", "redeliver", &id, &delivery]);
    rx.wait_for(2, Duration::from_secs(10)).await;
    let replayed = json(&["hook", "replay", &id, "--since", "0"]);
    assert_eq!(replayed["deliveries"], serde_json::json!([delivery]));
    let got = rx.wait_for(3, Duration::from_secs(10)).await;
    assert!(got.iter().all(|g| g.delivery == delivery));

    svc(&["hook", "delete", &id, "--yes"]);
    assert_eq!(json(&["hook", "list"])["items"], serde_json::json!([]));
}
