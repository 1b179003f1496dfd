//! Merges without rename similarity detection, the fast path when main is the merge
//! base, and a branch list that answers from stored facts within its budget, end to end
//! with real git on the database under test.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::Value;
use svc_server::config::FactsSettings;
use svc_tests::git::Git;
use svc_tests::{TestApp, TestAppBuilder, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";

/// 20 numbered lines, some replaced.
fn lines(edits: &[(usize, &str)]) -> Vec<u8> {
    (1..=20)
        .map(|i| match edits.iter().find(|(n, _)| *n == i) {
            Some((_, text)) => format!("{text}\n"),
            None => format!("line {i}\n"),
        })
        .collect::<String>()
        .into_bytes()
}

struct World {
    app: TestApp,
    token: String,
    git: Git,
    work: PathBuf,
}

async fn world(builder: TestAppBuilder) -> World {
    let svc_tests::Cloned {
        app,
        token,
        git,
        work,
    } = svc_tests::Cloned::with(builder, "mono", "app").await;
    git.commit(
        &work,
        "base",
        &[("doc.txt", &lines(&[])), ("gone.txt", b"gone\n")],
    );
    git.ok(&work, &["push", "-q", "origin", "main"]);
    World {
        app,
        token,
        git,
        work,
    }
}

impl World {
    fn git(&self, args: &[&str]) -> String {
        self.git.ok(&self.work, args).trim().to_owned()
    }

    /// Makes `branch` from origin's main, runs `edit` in the checkout, commits and pushes.
    fn push_branch(&self, branch: &str, edit: impl FnOnce(&World)) -> String {
        self.git(&["fetch", "-q", "origin"]);
        self.git(&["checkout", "-q", "-B", branch, "origin/main"]);
        edit(self);
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", &format!("work on {branch}")]);
        self.git(&["push", "-q", "-f", "origin", branch]);
        self.git(&["rev-parse", "HEAD"])
    }

    fn write(&self, path: &str, bytes: &[u8]) {
        let file = self.work.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, bytes).unwrap();
    }

    async fn merge(&self, branch: &str) -> reqwest::Response {
        self.app
            .as_user(
                Method::POST,
                &format!("{R}/branches/{branch}/merge"),
                &self.token,
            )
            .send()
            .await
            .unwrap()
    }

    async fn get(&self, path: &str) -> Value {
        self.app.get_json(&self.token, path).await
    }

    async fn fresh(&self, branch: &str) -> Value {
        for _ in 0..400 {
            let b = self.get(&format!("{R}/branches/{branch}")).await;
            if b["stale"] == false {
                return b;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("facts of {branch} stayed stale");
    }

    async fn list(&self) -> Value {
        self.get(&format!("{R}/branches?limit=100")).await
    }
}

/// Main is the merge base: the merge commit has the branch's very tree (renames with
/// edits, deletes and adds included), with main and the head as parents.
#[tokio::test]
async fn a_merge_where_main_is_the_base_has_the_branch_tree() {
    let w = world(TestApp::builder()).await;
    let main = w.git(&["rev-parse", "origin/main"]);
    let head = w.push_branch("topic", |w| {
        w.git(&["mv", "doc.txt", "moved.txt"]);
        w.write("moved.txt", &lines(&[(3, "edited")]));
        w.git(&["rm", "-q", "gone.txt"]);
        w.write("new/file.txt", b"new\n");
    });
    let b = w.fresh("topic").await;
    assert_eq!(b["mergeable"], "clean");
    assert_eq!(
        (b["ahead"].as_u64(), b["behind"].as_u64()),
        (Some(1), Some(0))
    );
    let merged: Value = expect_json(w.merge("topic").await, StatusCode::OK).await;
    let sha = merged["sha"].as_str().unwrap();
    w.git(&["fetch", "-q", "origin"]);
    assert_eq!(w.git(&["rev-parse", "origin/main"]), sha);
    assert_eq!(
        w.git(&["rev-parse", &format!("{sha}^{{tree}}")]),
        w.git(&["rev-parse", &format!("{head}^{{tree}}")])
    );
    assert_eq!(
        w.git(&["log", "-1", "--format=%P", sha]),
        format!("{main} {head}")
    );
}

/// A file the branch moves and edits while main edits it: with exact renames only,
/// the branch deleted it and added another, so main's edit conflicts with the delete
/// (modify/delete on the old path), in the facts and in the merge. A move without an
/// edit is followed: main's edit lands in the moved file.
#[tokio::test]
async fn a_renamed_and_edited_file_is_a_delete_and_an_add() {
    let w = world(TestApp::builder()).await;
    w.push_branch("edited", |w| {
        w.git(&["mv", "doc.txt", "moved.txt"]);
        w.write("moved.txt", &lines(&[(20, "edited in the move")]));
    });
    w.push_branch("exact", |w| {
        w.git(&["mv", "doc.txt", "exact.txt"]);
    });
    w.push_branch("main-edit", |w| {
        w.write("doc.txt", &lines(&[(1, "main edit")]));
    });
    expect_json::<Value>(w.merge("main-edit").await, StatusCode::OK).await;

    let b = w.fresh("edited").await;
    assert_eq!(b["mergeable"], "conflicts");
    assert_eq!(b["conflicts"], serde_json::json!(["doc.txt"]));
    let body = expect_error(w.merge("edited").await, StatusCode::CONFLICT, "conflicts").await;
    assert_eq!(
        body["error"]["paths"],
        serde_json::json!(["doc.txt"]),
        "{body}"
    );

    let b = w.fresh("exact").await;
    assert_eq!(b["mergeable"], "clean");
    let merged: Value = expect_json(w.merge("exact").await, StatusCode::OK).await;
    let sha = merged["sha"].as_str().unwrap();
    w.git(&["fetch", "-q", "origin"]);
    let text = w.git(&["show", &format!("{sha}:exact.txt")]);
    assert!(text.starts_with("main edit\n"), "{text}");
    let listed = w.git(&["ls-tree", "--name-only", sha]);
    assert!(!listed.lines().any(|l| l == "doc.txt"), "{listed}");
}

/// With no time for stale rows (`list_budget_ms = 0`), a list right after main moves
/// answers the rows the facts worker has not reached as stale: `mergeable: pending`,
/// the earlier value in `last_mergeable`, the old main in `facts_main`. Their facts
/// follow in the background, each with a `branch.updated` event.
#[tokio::test]
async fn a_list_answers_stale_rows_pending_and_their_facts_follow() {
    let builder = TestApp::builder().facts(FactsSettings { list_budget_ms: 0 });
    let w = world(builder).await;
    let names: Vec<String> = (0..12).map(|i| format!("far-{i:02}")).collect();
    for (i, name) in names.iter().enumerate() {
        w.push_branch(name, |w| {
            for j in 0..5 {
                w.write(&format!("far/{i}/{j}.txt"), format!("{i} {j}\n").as_bytes());
            }
        });
    }
    for name in &names {
        assert_eq!(w.fresh(name).await["mergeable"], "clean");
    }
    let mut seen_stale = 0;
    for attempt in 0..5 {
        let before = w.git(&["rev-parse", "origin/main"]);
        let seq = w.get(&format!("{M}/events?limit=1")).await["seq"]
            .as_i64()
            .unwrap();
        let mover = format!("move-{attempt}");
        w.push_branch(&mover, |w| {
            w.write(&format!("moves/{attempt}.txt"), b"moved\n");
        });
        let merged: Value = expect_json(w.merge(&mover).await, StatusCode::OK).await;
        let main = merged["sha"].as_str().unwrap().to_owned();
        let list = w.list().await;
        assert_eq!(list["default_head"], main.as_str());
        let stale: Vec<&Value> = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["name"].as_str().unwrap().starts_with("far-"))
            .filter(|b| b["stale"] == true)
            .collect();
        for b in &stale {
            assert_eq!(b["mergeable"], "pending", "{b}");
            assert_eq!(b["last_mergeable"], "clean", "{b}");
            assert_eq!(b["facts_main"], before.as_str(), "{b}");
        }
        seen_stale += stale.len();
        // Every far branch's facts arrive for the new main, without another list.
        for name in &names {
            let b = w.fresh(name).await;
            assert_eq!(b["facts_main"], main.as_str());
            assert_eq!(b["mergeable"], "clean");
            assert_eq!(b["last_mergeable"], Value::Null);
        }
        let list = w.list().await;
        assert!(
            list["items"]
                .as_array()
                .unwrap()
                .iter()
                .all(|b| b["state"] != "open" || b["stale"] == false),
            "{list}"
        );
        let events = w.get(&format!("{M}/events?since={seq}&limit=500")).await;
        let updated: Vec<&str> = events["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "branch.updated")
            .filter_map(|e| e["row"]["name"].as_str())
            .collect();
        for b in &stale {
            let name = b["name"].as_str().unwrap();
            assert!(
                updated.contains(&name),
                "no branch.updated for {name}: {updated:?}"
            );
        }
        if seen_stale > 0 {
            break;
        }
    }
    assert!(
        seen_stale > 0,
        "every list right after a main move was fresh"
    );
}
