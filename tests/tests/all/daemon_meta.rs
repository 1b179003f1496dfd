//! The daemon keeps `.svc/` live: two sealed machines, each with its own `svc daemon run`
//! and no `svc sync` run by hand, on a real server.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::laptop::{Laptop, until, until_within};
use svc_tests::{TestApp, expect_json};

const M: &str = "/v1/monorepos/ann/mono";
const MONO: &str = "ann/mono";
/// A change reaches the other machine within this (a 2 s quiet period, then seconds).
const REACH: Duration = Duration::from_secs(15);

struct World {
    app: TestApp,
    token: String,
    a: Laptop,
    b: Laptop,
}

/// ann's monorepo `mono` (repo `web`), cloned on two machines whose daemons are connected.
async fn world() -> World {
    let app = TestApp::start().await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&token, json!({"name": "mono"})).await;
    app.repo(&token, MONO, "web").await;
    let mut a = Laptop::new(&app.base, &token, "box-a", MONO);
    let mut b = Laptop::new(&app.base, &token, "box-b", MONO);
    a.start();
    b.start();
    until("both daemons connected", || {
        a.connected(MONO) && b.connected(MONO)
    })
    .await;
    World { app, token, a, b }
}

fn svc_dir(b: &Laptop) -> PathBuf {
    b.path("mono/.svc")
}

fn write(b: &Laptop, path: &str, text: &str) {
    let p = svc_dir(b).join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(b: &Laptop, path: &str) -> Option<String> {
    std::fs::read_to_string(svc_dir(b).join(path)).ok()
}

/// The synced files of a `.svc/` (not the sync's private ones) and their contents.
fn files(b: &Laptop) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut todo = vec![(svc_dir(b), String::new())];
    while let Some((dir, prefix)) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
            if entry.file_name().to_string_lossy().starts_with(".sync-") {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                todo.push((entry.path(), format!("{name}/")));
            } else {
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                out.push((name, text));
            }
        }
    }
    out.sort();
    out
}

/// The daemon's last sync of the machine's one clone.
fn last_sync(b: &Laptop) -> Option<Value> {
    b.followed(MONO)?["syncs"].as_array()?.first().cloned()
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_local_edit_reaches_the_other_machine() {
    let w = world().await;
    // Each daemon synced on connect: an empty meta layer, nothing to do.
    until("the first syncs", || {
        last_sync(&w.a).is_some() && last_sync(&w.b).is_some()
    })
    .await;
    let first = last_sync(&w.a).unwrap();
    assert_eq!(first["outcome"], "synced", "{first}");
    assert_eq!(first["path"], w.a.path("mono").display().to_string());

    write(&w.a, "notes/plan.md", "plan v1\n");
    write(&w.a, "svc.toml", "[repos.\"web\"]\n");
    until_within(REACH, "A's files on B", || {
        read(&w.b, "notes/plan.md").as_deref() == Some("plan v1\n")
            && read(&w.b, "svc.toml").as_deref() == Some("[repos.\"web\"]\n")
    })
    .await;

    // Each daemon says what its last sync did.
    until("A's save in its status", || {
        last_sync(&w.a).is_some_and(|s| strings(&s["saved"]).len() == 2)
    })
    .await;
    let a = last_sync(&w.a).unwrap();
    assert_eq!(a["outcome"], "synced", "{a}");
    assert_eq!(strings(&a["saved"]), vec!["notes/plan.md", "svc.toml"]);
    assert!(a["at"].is_string() && a["checked_at"].is_string(), "{a}");
    let files_now = w.app.get_json(&w.token, &format!("{M}/meta/files")).await;
    until("B's download in its status", || {
        last_sync(&w.b).is_some_and(|s| s["version"] == files_now["version"])
    })
    .await;
    let b = last_sync(&w.b).unwrap();
    assert_eq!(strings(&b["downloaded"]), vec!["notes/plan.md", "svc.toml"]);
    assert!(strings(&b["saved"]).is_empty(), "{b}");
    let human = w.b.svc(&["daemon", "status"]);
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(
        human.contains("last sync ") && human.contains("2 downloaded"),
        "{human}"
    );

    // An edit and a deletion on B come back to A.
    write(&w.b, "notes/plan.md", "plan v2\n");
    std::fs::remove_file(svc_dir(&w.b).join("svc.toml")).unwrap();
    until_within(REACH, "B's edit and deletion on A", || {
        read(&w.a, "notes/plan.md").as_deref() == Some("plan v2\n")
            && read(&w.a, "svc.toml").is_none()
    })
    .await;
    // Saved as history, from B's machine.
    let events = w
        .app
        .get_json(&w.token, &format!("{M}/events?kinds=meta.saved"))
        .await;
    let saved: Vec<(&str, &str)> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["key"].as_str().unwrap(),
                e["row"]["machine"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(saved.contains(&("notes/plan.md", "box-b")), "{saved:?}");
    assert!(saved.contains(&("svc.toml", "box-b")), "{saved:?}");
    assert_eq!(files(&w.a), files(&w.b));
    assert!(w.a.log().contains("meta sync of"), "{}", w.a.log());
}

#[tokio::test]
async fn an_api_save_and_a_merge_reach_every_machine() {
    let w = world().await;

    // The first save through the API (the meta repo's first main), as another
    // machine's sync makes it.
    let body = b"from the api\n";
    let sha: String = sha256(body);
    let r = w
        .app
        .as_user(Method::PUT, &format!("{M}/meta/blobs/{sha}"), &w.token)
        .body(&body[..])
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;
    let r = w
        .app
        .as_user(Method::POST, &format!("{M}/meta/saves"), &w.token)
        .json(&json!({
            "base": null,
            "machine": "elsewhere",
            "changes": [{"path": "api.txt", "sha256": sha}]
        }))
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;
    until_within(REACH, "the saved file on both machines", || {
        read(&w.a, "api.txt").as_deref() == Some("from the api\n")
            && read(&w.b, "api.txt").as_deref() == Some("from the api\n")
    })
    .await;

    // A merge into the meta repo.
    let merged = w
        .app
        .merge_into_meta(&w.token, MONO, "merged.txt", b"by merge\n")
        .await;
    until_within(REACH, "the merged file on both machines", || {
        read(&w.a, "merged.txt").as_deref() == Some("by merge\n")
            && read(&w.b, "merged.txt").as_deref() == Some("by merge\n")
    })
    .await;
    until("both at the merge", || {
        [&w.a, &w.b]
            .iter()
            .all(|l| last_sync(l).is_some_and(|s| s["version"] == merged["sha"]))
    })
    .await;

    // What is saved while B's daemon is down reaches B when it connects again.
    let mut b = w.b;
    drop(b.daemon.take());
    write(&w.a, "while-away.txt", "missed?\n");
    until_within(REACH, "A's save", || {
        last_sync(&w.a).is_some_and(|s| strings(&s["saved"]) == ["while-away.txt"])
    })
    .await;
    assert_eq!(read(&b, "while-away.txt"), None);
    b.start();
    until_within(REACH, "the file saved while away on B", || {
        read(&b, "while-away.txt").as_deref() == Some("missed?\n")
    })
    .await;
}

#[tokio::test]
async fn concurrent_edits_lose_nothing() {
    let w = world().await;
    write(&w.a, "svc.toml", "# base\n");
    until_within(REACH, "the base on B", || {
        read(&w.b, "svc.toml").as_deref() == Some("# base\n")
    })
    .await;

    // Both edit before either daemon's quiet period ends.
    write(&w.a, "svc.toml", "# from a\n");
    write(&w.b, "svc.toml", "# from b\n");
    let both: BTreeSet<&str> = ["# from a\n", "# from b\n"].into();
    let settled = |l: &Laptop| {
        let f = files(l);
        let copies = f
            .iter()
            .filter(|(name, _)| name.starts_with("svc.conflict-") && name.ends_with(".toml"))
            .count();
        let contents: BTreeSet<&str> = f.iter().map(|(_, text)| text.as_str()).collect();
        f.len() == 2 && copies == 1 && contents == both
    };
    until_within(REACH, "both edits on both machines", || {
        settled(&w.a) && settled(&w.b) && files(&w.a) == files(&w.b)
    })
    .await;

    // The machine whose edit came second says so (once its sync has ended).
    let conflicted = || {
        [&w.a, &w.b]
            .into_iter()
            .filter_map(last_sync)
            .find(|s| s["outcome"] == "conflicts")
    };
    until("a sync with the conflict", || conflicted().is_some()).await;
    let conflicted = conflicted().unwrap();
    assert_eq!(
        conflicted["conflicts"][0]["path"], "svc.toml",
        "{conflicted}"
    );
    let copy = conflicted["conflicts"][0]["copy"].as_str().unwrap();
    assert!(copy.starts_with("svc.conflict-box-"), "{conflicted}");
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
