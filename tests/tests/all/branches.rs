//! Branches, facts, statuses, checks, merges and reviews, end to end with real git.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::git::Git;
use svc_tests::{TestApp, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";

/// `ann/mono` with repo `app` (main pushed) and its meta repo, cloned in `work`.
struct World {
    app: TestApp,
    token: String,
    git: Git,
    work: PathBuf,
}

async fn world() -> World {
    let svc_tests::Cloned {
        app,
        token,
        git,
        work,
    } = svc_tests::Cloned::new("mono", "app").await;
    git.commit(
        &work,
        "base",
        &[
            ("a.txt", b"one\ntwo\nthree\n"),
            ("src/lib.rs", b"fn x() {}\n"),
        ],
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
    /// Makes `branch` from main with `files` committed, and pushes it.
    fn push_branch(&self, branch: &str, message: &str, files: &[(&str, &[u8])]) -> String {
        self.git
            .ok(&self.work, &["checkout", "-q", "-B", branch, "origin/main"]);
        let sha = self.git.commit(&self.work, message, files);
        self.git
            .ok(&self.work, &["push", "-q", "-f", "origin", branch]);
        sha
    }

    fn fetch(&self) {
        self.git.ok(&self.work, &["fetch", "-q", "origin"]);
    }

    async fn send(&self, method: Method, path: &str, body: Option<Value>) -> reqwest::Response {
        let mut r = self.app.as_user(method, path, &self.token);
        if let Some(b) = body {
            r = r.json(&b);
        }
        r.send().await.unwrap()
    }

    async fn merge(&self, branch: &str, query: &str) -> reqwest::Response {
        self.send(
            Method::POST,
            &format!("{R}/branches/{branch}/merge{query}"),
            None,
        )
        .await
    }

    async fn status(&self, sha: &str, context: &str, state: &str) {
        let r = self
            .send(
                Method::POST,
                &format!("{R}/statuses/{sha}"),
                Some(json!({"context": context, "state": state})),
            )
            .await;
        let s: Value = expect_json(r, StatusCode::CREATED).await;
        assert_eq!(s["creator"], "ann");
        assert_eq!(s["app"], Value::Null);
    }

    /// The branch once its facts are fresh (the background worker computes them).
    async fn fresh(&self, branch: &str) -> Value {
        for _ in 0..200 {
            let b = self
                .app
                .get_json(&self.token, &format!("{R}/branches/{branch}"))
                .await;
            if b["stale"] == false {
                return b;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("facts of {branch} stayed stale");
    }

    async fn events(&self, kind: &str) -> Vec<Value> {
        let page = self
            .app
            .get_json(&self.token, &format!("{M}/events?limit=500"))
            .await;
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == kind)
            .cloned()
            .collect()
    }
}

#[tokio::test]
async fn facts_follow_pushes_and_main_moves() {
    let w = world().await;
    let main = w.git.ok(&w.work, &["rev-parse", "main"]).trim().to_owned();
    let topic = w.push_branch("topic", "topic", &[("b.txt", b"b\n")]);
    let b = w.fresh("topic").await;
    assert_eq!(b["head"], topic.as_str());
    assert_eq!(b["author"], "ann");
    assert_eq!(
        (b["ahead"].as_u64(), b["behind"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(b["base"], main.as_str());
    assert_eq!(b["mergeable"], "clean");
    assert_eq!(b["last_mergeable"], Value::Null);
    assert_eq!(b["checks"]["state"], "success");
    assert_eq!(b["checks"]["build_state"], "not_built");

    // Main moves (another branch merged): the facts go stale, then fresh with behind 1.
    w.push_branch("other", "other", &[("c.txt", b"c\n")]);
    let merged: Value = expect_json(w.merge("other", "").await, StatusCode::OK).await;
    let b = w.fresh("topic").await;
    assert_eq!(b["facts_main"], merged["sha"]);
    assert!(!w.events("branch.updated").await.is_empty());
    // git agrees on ahead/behind: main gained the merge and the merged commit.
    w.fetch();
    let counts = w.git.ok(
        &w.work,
        &[
            "rev-list",
            "--left-right",
            "--count",
            "origin/main...origin/topic",
        ],
    );
    assert_eq!(counts.split_whitespace().collect::<Vec<_>>(), ["2", "1"]);
    assert_eq!(
        (b["ahead"].as_u64(), b["behind"].as_u64()),
        (Some(1), Some(2))
    );
}

#[tokio::test]
async fn conflicts_are_found_and_refused() {
    let w = world().await;
    w.push_branch("left", "left", &[("a.txt", b"one\nLEFT\nthree\n")]);
    w.push_branch("right", "right", &[("a.txt", b"one\nRIGHT\nthree\n")]);
    assert_eq!(w.fresh("right").await["mergeable"], "clean");
    expect_json::<Value>(w.merge("left", "").await, StatusCode::OK).await;
    let b = w.fresh("right").await;
    assert_eq!(b["mergeable"], "conflicts");
    assert_eq!(b["conflicts"], json!(["a.txt"]));
    let e = expect_error(
        w.merge("right", "?force=1").await,
        StatusCode::CONFLICT,
        "conflicts",
    )
    .await;
    assert_eq!(e["error"]["paths"], json!(["a.txt"]));
}

#[tokio::test]
async fn list_order_cursor_create_update_delete() {
    let w = world().await;
    let main = w.git.ok(&w.work, &["rev-parse", "main"]).trim().to_owned();
    for name in ["b1", "b2", "b3"] {
        let r = w
            .send(
                Method::POST,
                &format!("{R}/branches"),
                Some(json!({"name": name, "title": format!("T {name}")})),
            )
            .await;
        let b: Value = expect_json(r, StatusCode::CREATED).await;
        assert_eq!(b["head"], main.as_str());
        assert_eq!(b["author"], "ann");
        assert_eq!(b["title"], format!("T {name}"));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let r = w
        .send(
            Method::POST,
            &format!("{R}/branches"),
            Some(json!({"name": "b1"})),
        )
        .await;
    expect_error(r, StatusCode::CONFLICT, "branch_exists").await;
    // Git's own rules (`git check-ref-format --branch`), and no `refs/...`.
    for name in [
        "bad..name",
        "HEAD",
        "@",
        "-x",
        "refs/heads/x",
        "a\u{1}b",
        "a@{1}",
        "x.lock",
        "a/.b",
        "a b",
        "a:b",
        "a/",
    ] {
        let r = w
            .send(
                Method::POST,
                &format!("{R}/branches"),
                Some(json!({"name": name})),
            )
            .await;
        expect_error(r, StatusCode::BAD_REQUEST, "bad_branch_name").await;
    }
    let refs = w.git.ok(&w.work, &["ls-remote", "origin"]);
    assert!(
        !refs.contains("refs/heads/HEAD") && !refs.contains("refs/heads/refs/"),
        "no branch was made: {refs}"
    );

    let list = w
        .app
        .get_json(&w.token, &format!("{R}/branches?limit=2"))
        .await;
    assert_eq!(list["default_branch"], "main");
    assert_eq!(list["default_head"], main.as_str());
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["b3", "b2"], "newest push first");
    let cursor = list["next_cursor"].as_str().unwrap();
    let rest = w
        .app
        .get_json(&w.token, &format!("{R}/branches?limit=2&cursor={cursor}"))
        .await;
    assert_eq!(rest["items"][0]["name"], "b1");
    assert_eq!(rest["next_cursor"], Value::Null);

    let r = w
        .send(
            Method::PATCH,
            &format!("{R}/branches/b1"),
            Some(json!({"description": "why"})),
        )
        .await;
    let b: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(
        (b["title"].as_str(), b["description"].as_str()),
        (Some("T b1"), Some("why"))
    );

    let r = w
        .send(Method::DELETE, &format!("{R}/branches/main"), None)
        .await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "default_branch").await;
    let r = w
        .send(Method::DELETE, &format!("{R}/branches/b1"), None)
        .await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = w.send(Method::GET, &format!("{R}/branches/b1"), None).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    assert_eq!(w.events("branch.deleted").await.len(), 1);
    w.fetch();
    let out = w.git.run(
        &w.work,
        &["rev-parse", "--verify", "-q", "refs/remotes/origin/b1"],
    );
    assert!(
        w.git
            .ok(&w.work, &["ls-remote", "origin"])
            .lines()
            .all(|l| !l.ends_with("refs/heads/b1")),
        "{out:?}"
    );

    // A raw slash in a branch name works as well as %2F.
    let r = w
        .send(
            Method::POST,
            &format!("{R}/branches"),
            Some(json!({"name": "feat/x"})),
        )
        .await;
    expect_json::<Value>(r, StatusCode::CREATED).await;
    assert_eq!(
        w.app
            .get_json(&w.token, &format!("{R}/branches/feat/x"))
            .await["name"],
        "feat/x"
    );
    assert_eq!(
        w.app
            .get_json(&w.token, &format!("{R}/branches/feat%2Fx/commits"))
            .await["items"],
        json!([])
    );
}

#[tokio::test]
async fn branch_commits_are_topological_with_trailers() {
    let w = world().await;
    w.git.ok(&w.work, &["checkout", "-q", "-b", "topic"]);
    w.git.commit(
        &w.work,
        "first\n\nSvc-Agent: claude\nSvc-Worktree: wt-1\nSvc-Machine: box",
        &[("x", b"1\n")],
    );
    w.git
        .ok(&w.work, &["checkout", "-q", "-b", "side", "HEAD~1"]);
    w.git.commit(&w.work, "side", &[("y", b"1\n")]);
    w.git.ok(&w.work, &["checkout", "-q", "topic"]);
    w.git.ok(&w.work, &["merge", "-q", "--no-edit", "side"]);
    w.git.commit(&w.work, "last", &[("x", b"2\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "topic"]);
    let page = w
        .app
        .get_json(&w.token, &format!("{R}/branches/topic/commits"))
        .await;
    let got: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["sha"].as_str().unwrap())
        .collect();
    let want = w
        .git
        .ok(&w.work, &["rev-list", "--topo-order", "origin/main..topic"]);
    assert_eq!(got, want.lines().collect::<Vec<_>>());
    let first = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["title"] == "first")
        .unwrap();
    assert_eq!(
        first["trailers"],
        json!({"Svc-Agent": "claude", "Svc-Worktree": "wt-1", "Svc-Machine": "box"})
    );
    let one = w
        .app
        .get_json(&w.token, &format!("{R}/branches/topic/commits?limit=1"))
        .await;
    assert_eq!(one["items"].as_array().unwrap().len(), 1);
    let next = one["next_cursor"].as_str().unwrap();
    let two = w
        .app
        .get_json(
            &w.token,
            &format!("{R}/branches/topic/commits?limit=10&cursor={next}"),
        )
        .await;
    assert_eq!(two["items"][0]["sha"], got[1]);
}

/// Writes `.svc/svc.toml` on the meta layer's main (its first push).
fn push_meta_config(w: &World, toml: &str) -> PathBuf {
    let url = w.app.url("/ann/mono/meta.git");
    w.git.ok(w.git.home.path(), &["clone", "-q", &url, "meta"]);
    let meta = w.git.path("meta");
    w.git
        .commit(&meta, "config", &[(".svc/svc.toml", toml.as_bytes())]);
    w.git.ok(&meta, &["push", "-q", "origin", "main"]);
    meta
}

#[tokio::test]
async fn merge_gate_with_required_checks() {
    let w = world().await;
    push_meta_config(
        &w,
        "[repos.\"app\"]\nrequired_checks = [\"ci/build\", \"lint\"]\n",
    );
    let head = w.push_branch("topic", "topic", &[("b.txt", b"b\n")]);

    // Missing: nothing reported.
    let e = expect_error(
        w.merge("topic", "").await,
        StatusCode::PRECONDITION_FAILED,
        "checks_not_green",
    )
    .await;
    assert_eq!(e["error"]["checks"]["state"], "missing");
    assert_eq!(e["error"]["checks"]["missing"], json!(["ci/build", "lint"]));
    // Failure.
    w.status(&head, "ci/build", "success").await;
    w.status(&head, "lint", "failure").await;
    let e = expect_error(
        w.merge("topic", "").await,
        StatusCode::PRECONDITION_FAILED,
        "checks_not_green",
    )
    .await;
    assert_eq!(e["error"]["checks"]["state"], "failure");
    // Latest per context wins: success on both passes the gate.
    w.status(&head, "lint", "pending").await;
    w.status(&head, "lint", "success").await;
    w.status(&head, "extra", "failure").await;
    let checks = w
        .app
        .get_json(&w.token, &format!("{R}/commits/{head}/checks"))
        .await;
    assert_eq!(checks["state"], "success", "{checks}");
    assert_eq!(checks["required"], json!(["ci/build", "lint"]));
    assert_eq!(checks["statuses"].as_array().unwrap().len(), 3);
    let m: Value = expect_json(w.merge("topic", "").await, StatusCode::OK).await;
    assert_eq!(
        (m["forced"].as_bool(), m["merged_by"].as_str()),
        (Some(false), Some("ann"))
    );
    assert_eq!(m["branch"], "topic");

    // The merge commit: two parents, authored as the user, message from the title.
    w.fetch();
    let sha = m["sha"].as_str().unwrap();
    let parents = w.git.ok(&w.work, &["rev-list", "--parents", "-n1", sha]);
    assert_eq!(parents.split_whitespace().count(), 3);
    assert_eq!(
        w.git
            .ok(&w.work, &["log", "-1", "--format=%an <%ae>|%s", sha])
            .trim(),
        "Ann Example <ann@example.com>|Merge branch 'topic'"
    );
    assert_eq!(w.git.ok(&w.work, &["rev-parse", "origin/main"]).trim(), sha);
    let b = w
        .app
        .get_json(&w.token, &format!("{R}/branches/topic"))
        .await;
    assert_eq!(
        (b["state"].as_str(), b["merge_sha"].as_str()),
        (Some("merged"), Some(sha))
    );
    let c = w
        .app
        .get_json(&w.token, &format!("{R}/commits/{sha}"))
        .await;
    assert_eq!(c["merged_branch"], "topic");
    let merged = w.events("merged").await;
    assert_eq!(merged.len(), 1);
    let moved = w.events("default_head.updated").await;
    assert_eq!(moved.last().unwrap()["head"], sha);
    let r = w.merge("topic", "").await;
    expect_error(r, StatusCode::CONFLICT, "not_open").await;
    // Pushed again after its merge, the branch is open again without merge facts.
    w.git.ok(&w.work, &["checkout", "-q", "topic"]);
    w.git.commit(&w.work, "more", &[("more.txt", b"m\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "topic"]);
    let b = w
        .app
        .get_json(&w.token, &format!("{R}/branches/topic"))
        .await;
    assert_eq!(
        (b["state"].as_str(), b["merged_at"].as_str()),
        (Some("open"), None)
    );

    // Forced: red checks are passed and the merge says so.
    let head = w.push_branch("red", "red", &[("r.txt", b"r\n")]);
    w.status(&head, "ci/build", "failure").await;
    let m: Value = expect_json(w.merge("red", "?force=1").await, StatusCode::OK).await;
    assert_eq!(m["forced"], true);
    assert_eq!(
        w.app.get_json(&w.token, &format!("{R}/branches/red")).await["forced"],
        true
    );
}

#[tokio::test]
async fn unknown_checks_and_meta_merges() {
    let w = world().await;
    let meta = push_meta_config(&w, "[repos.\"app\"]\n\nrequired_checks = [\"ci\"\n");
    w.push_branch("topic", "topic", &[("b.txt", b"b\n")]);
    let b = w.fresh("topic").await;
    assert_eq!(b["checks"]["state"], "unknown");
    assert_eq!(b["checks"]["required"], Value::Null);
    let reason = b["checks"]["checks_unknown"].as_str().unwrap();
    assert!(
        reason.starts_with("line 3: ") || reason.starts_with("line 4: "),
        "{reason}"
    );
    let e = expect_error(
        w.merge("topic", "").await,
        StatusCode::SERVICE_UNAVAILABLE,
        "checks_unknown",
    )
    .await;
    assert!(e["error"]["message"].as_str().unwrap().contains("line "));
    expect_json::<Value>(w.merge("topic", "?force=1").await, StatusCode::OK).await;

    // Fix the file through a branch of the meta repo: once merged it is live at once.
    w.git.ok(&meta, &["checkout", "-q", "-b", "fix"]);
    w.git.commit(
        &meta,
        "fix",
        &[(".svc/svc.toml", b"[repos.\"app\"]\nrequired_checks = []\n")],
    );
    w.git.ok(&meta, &["push", "-q", "origin", "fix"]);
    let r = w
        .send(
            Method::POST,
            &format!("{M}/repos/meta/branches/fix/merge?force=1"),
            None,
        )
        .await;
    expect_json::<Value>(r, StatusCode::OK).await;
    let raw = w
        .app
        .as_user(Method::GET, "/ann/mono/raw/svc.toml", &w.token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        raw.text().await.unwrap(),
        "[repos.\"app\"]\nrequired_checks = []\n"
    );
    let head = w.push_branch("next", "next", &[("n.txt", b"n\n")]);
    let checks = w
        .app
        .get_json(&w.token, &format!("{R}/commits/{head}/checks"))
        .await;
    assert_eq!(
        (checks["state"].as_str(), checks["build_state"].as_str()),
        (Some("success"), Some("not_built"))
    );
}

#[tokio::test]
async fn plain_repo_reads_its_own_config_and_none_required_gate() {
    let app = TestApp::start().await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&token, json!({"name": "solo", "kind": "repo"}))
        .await;
    let git = Git::new(&token);
    git.ok(
        git.home.path(),
        &["clone", "-q", &app.url("/ann/solo.git"), "w"],
    );
    let work = git.path("w");
    git.commit(
        &work,
        "base",
        &[(
            ".svc/svc.toml",
            b"[repos.\".\"]\nrequired_checks = [\"ci\"]\n",
        )],
    );
    git.ok(&work, &["push", "-q", "origin", "main"]);
    git.ok(&work, &["checkout", "-q", "-b", "t"]);
    let head = git.commit(&work, "t", &[("t", b"t\n")]);
    git.ok(&work, &["push", "-q", "origin", "t"]);
    let rp = "/v1/monorepos/ann/solo/repos/solo";
    let checks = app
        .get_json(&token, &format!("{rp}/commits/{head}/checks"))
        .await;
    assert_eq!(checks["required"], json!(["ci"]));
    assert_eq!(checks["state"], "missing");

    // With none required, every reported context must pass.
    let w = world().await;
    let head = w.push_branch("topic", "topic", &[("b.txt", b"b\n")]);
    w.status(&head, "ci", "failure").await;
    let e = expect_error(
        w.merge("topic", "").await,
        StatusCode::PRECONDITION_FAILED,
        "checks_not_green",
    )
    .await;
    assert_eq!(e["error"]["checks"]["state"], "failure");
    assert_eq!(e["error"]["checks"]["required"], json!([]));
    w.status(&head, "ci", "success").await;
    expect_json::<Value>(w.merge("topic", "").await, StatusCode::OK).await;
}

#[tokio::test]
async fn agents_merge_and_review_but_never_approve() {
    let w = world().await;
    w.push_branch("topic", "topic", &[("b.txt", b"b\n")]);
    let review = |state: &str, agent: Option<&str>| {
        let mut r = w.app.as_user(
            Method::POST,
            &format!("{R}/branches/topic/reviews"),
            &w.token,
        );
        if let Some(a) = agent {
            r = r.header("X-Svc-Agent", a);
        }
        r.json(&json!({"state": state, "body": "looks fine"}))
            .send()
    };
    expect_error(
        review("approve", Some("claude")).await.unwrap(),
        StatusCode::FORBIDDEN,
        "agent_cannot_approve",
    )
    .await;
    let r: Value = expect_json(
        review("request_changes", Some("claude")).await.unwrap(),
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(
        (r["agent"].as_str(), r["author"].as_str()),
        (Some("claude"), Some("ann"))
    );
    expect_json::<Value>(review("approve", None).await.unwrap(), StatusCode::CREATED).await;
    let list = w
        .app
        .get_json(&w.token, &format!("{R}/branches/topic/reviews"))
        .await;
    let states: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["request_changes", "approve"], "oldest first");
    assert_eq!(w.events("review").await.len(), 2);

    let r = w
        .app
        .as_user(Method::POST, &format!("{R}/branches/topic/merge"), &w.token)
        .header("X-Svc-Agent", "claude")
        .send()
        .await
        .unwrap();
    let m: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(m["merged_agent"], "claude");
    let merged = w.events("merged").await;
    assert_eq!(merged[0]["agent"], "claude");
}

#[tokio::test]
async fn concurrent_merges_into_one_repo_both_land() {
    let w = world().await;
    w.push_branch("one", "one", &[("one.txt", b"1\n")]);
    w.push_branch("two", "two", &[("two.txt", b"2\n")]);
    let (a, b) = tokio::join!(w.merge("one", ""), w.merge("two", ""));
    let a: Value = expect_json(a, StatusCode::OK).await;
    let b: Value = expect_json(b, StatusCode::OK).await;
    w.fetch();
    let firsts = w
        .git
        .ok(&w.work, &["rev-list", "--first-parent", "origin/main"]);
    let firsts: Vec<&str> = firsts.lines().collect();
    assert_eq!(firsts.len(), 3, "base and two merges: {firsts:?}");
    assert!(
        firsts.contains(&a["sha"].as_str().unwrap())
            && firsts.contains(&b["sha"].as_str().unwrap())
    );
    let tree = w
        .git
        .ok(&w.work, &["ls-tree", "--name-only", "origin/main"]);
    assert!(tree.contains("one.txt") && tree.contains("two.txt"));
}

/// A merge cut off after main's ref moved (the process died before recording it) is
/// finished when the server starts: git and the database agree again.
#[tokio::test]
async fn a_merge_cut_off_after_moving_main_is_finished_at_start_up() {
    use svc_server::git::merge::Person;
    use svc_server::git::{read::Repo, storage};
    use svc_server::store::{Store, merges, now_ms, repos};

    let mut w = world().await;
    let head = w.push_branch("topic", "topic", &[("b.txt", b"b\n")]);
    let monorepo_id = w.app.get_json(&w.token, M).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let store = Store::open(&w.app.config.database_url).await.unwrap();
    let repo = {
        let mut conn = store.read().await.unwrap();
        repos::by_name(conn.h(), &monorepo_id, "app")
            .await
            .unwrap()
            .unwrap()
    };
    let git = Repo::open(&storage::repo_dir(&w.app.config.data_dir, &repo.id)).unwrap();
    let main = git
        .commit_exists(repo.default_head.as_deref().unwrap())
        .unwrap()
        .unwrap();
    let topic = git.commit_exists(&head).unwrap().unwrap();
    let ann = Person {
        name: "Ann".into(),
        email: "ann@example.com".into(),
    };
    let sha = git
        .merge(main, topic, &ann, &ann, "Merge branch 'topic'\n")
        .unwrap();
    let pending = merges::MergeRow {
        repo_id: repo.id.clone(),
        sha: sha.to_string(),
        branch: "topic".into(),
        head: head.clone(),
        merged_by: "ann".into(),
        merged_agent: Some("claude".into()),
        forced: false,
        merged_at: now_ms(),
        done: false,
        change_id: None,
        main_before: None,
    };
    let mut tx = store.begin().await.unwrap();
    merges::insert(tx.h(), &pending).await.unwrap();
    tx.commit().await.unwrap();
    git.update_ref("refs/heads/main", main, sha).unwrap();
    store.close().await;

    w.app.restart().await;
    let mut b = Value::Null;
    for _ in 0..200 {
        b = w
            .app
            .get_json(&w.token, &format!("{R}/branches/topic"))
            .await;
        if b["state"] == "merged" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(
        (b["state"].as_str(), b["merge_sha"].as_str()),
        (Some("merged"), Some(sha.to_string().as_str()))
    );
    assert_eq!(b["merged_agent"], "claude");
    let heads = w.app.get_json(&w.token, &format!("{M}/heads")).await;
    assert_eq!(heads["heads"][0]["head"], sha.to_string());
    let merged = w.events("merged").await;
    assert_eq!(
        (merged.len(), merged[0]["agent"].as_str()),
        (1, Some("claude"))
    );
    let moved = w.events("default_head.updated").await;
    assert_eq!(moved.last().unwrap()["head"], sha.to_string());
    let c = w
        .app
        .get_json(&w.token, &format!("{R}/commits/{sha}"))
        .await;
    assert_eq!(c["merged_branch"], "topic");
}

/// git keeps a branch as a file under `refs/heads/`, so `a` and `a/b` cannot both exist:
/// a create or push of one while the other exists is refused clearly, never a 500.
#[tokio::test]
async fn branch_names_that_clash_as_git_refs_are_refused() {
    let w = world().await;
    let create = |name: &'static str| {
        let w = &w;
        async move {
            w.send(
                Method::POST,
                &format!("{R}/branches"),
                Some(json!({"name": name})),
            )
            .await
        }
    };
    expect_json::<Value>(create("feature").await, StatusCode::CREATED).await;
    expect_json::<Value>(create("topic/deep/x").await, StatusCode::CREATED).await;
    for (name, existing) in [
        ("feature/x", "feature"),
        ("feature/x/y", "feature"),
        ("topic", "topic/deep/x"),
        ("topic/deep", "topic/deep/x"),
        ("main/x", "main"),
    ] {
        let e = expect_error(create(name).await, StatusCode::CONFLICT, "branch_exists").await;
        let message = e["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!(
                "{name} clashes with the existing branch {existing}"
            )),
            "{message}"
        );
    }
    // Names that only share a prefix are no clash.
    expect_json::<Value>(create("feature-2").await, StatusCode::CREATED).await;
    expect_json::<Value>(create("topic/deeper").await, StatusCode::CREATED).await;

    // The same through the git door: git refuses the ref, the push lands nothing.
    w.git.ok(
        &w.work,
        &["checkout", "-q", "-B", "feature/y", "origin/main"],
    );
    w.git.commit(&w.work, "y", &[("y.txt", b"y\n")]);
    let out = w.git.run(&w.work, &["push", "origin", "feature/y"]);
    let said = svc_tests::git::all_output(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("feature/y clashes with the existing branch feature"),
        "{said}"
    );
    let list = w.app.get_json(&w.token, &format!("{R}/branches")).await;
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"feature/y"), "{names:?}");
    let refs = w.git.ok(&w.work, &["ls-remote", "origin"]);
    assert!(!refs.contains("refs/heads/feature/y"), "{refs}");
}

/// A merged branch keeps the facts it merged with: a later main move makes it neither
/// stale nor recomputed (no `branch.updated` for it), however many lists read it.
#[tokio::test]
async fn a_merged_branch_keeps_its_facts_when_main_moves_on() {
    let w = world().await;
    w.push_branch("topic", "topic", &[("b.txt", b"b\n")]);
    expect_json::<Value>(w.merge("topic", "").await, StatusCode::OK).await;
    let before = w.events("branch.updated").await.len();
    w.push_branch("later", "later", &[("c.txt", b"c\n")]);
    expect_json::<Value>(w.merge("later", "").await, StatusCode::OK).await;
    for _ in 0..3 {
        let list = w.app.get_json(&w.token, &format!("{R}/branches")).await;
        let topic = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == "topic")
            .cloned()
            .unwrap();
        assert_eq!(topic["state"], "merged");
        assert_eq!(topic["stale"], false, "{topic}");
    }
    let updated: Vec<Value> = w.events("branch.updated").await[before..].to_vec();
    assert!(
        !updated.iter().any(|e| e["key"] == "app/topic"),
        "{updated:?}"
    );
}

/// A branch main has already (pushed at main's head, or behind it, as `git push --mirror`
/// of an existing project makes them) has nothing to merge: it is never `ready` in
/// needs-you, and a merge, forced or not, red checks or not, is 409 `nothing_to_merge`
/// that moves no main, writes no `merged` event and leaves the branch open.
#[tokio::test]
async fn a_branch_main_has_already_has_nothing_to_merge() {
    let w = world().await;
    let old = w.git.ok(&w.work, &["rev-parse", "main"]).trim().to_owned();
    w.push_branch("landed", "landed", &[("l.txt", b"l\n")]);
    expect_json::<Value>(w.merge("landed", "").await, StatusCode::OK).await;
    w.fetch();
    let main = w
        .git
        .ok(&w.work, &["rev-parse", "origin/main"])
        .trim()
        .to_owned();
    for (branch, at) in [("same", &main), ("behind", &old)] {
        let refspec = format!("{at}:refs/heads/{branch}");
        w.git.ok(&w.work, &["push", "-q", "origin", &refspec]);
    }
    w.push_branch("work", "work", &[("w.txt", b"w\n")]);
    for branch in ["same", "behind", "work"] {
        let b = w.fresh(branch).await;
        assert_eq!(
            (b["state"].as_str(), b["author"].as_str()),
            (Some("open"), Some("ann"))
        );
    }

    // Only the branch with work of its own is ready.
    let needs = w.app.get_json(&w.token, "/v1/branches").await;
    let rows: Vec<(&str, &str)> = needs["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["branch"].as_str().unwrap(), r["state"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, [("work", "ready")], "{needs}");

    let merged_events = w.events("merged").await.len();
    let refused = |e: &Value| e["error"]["message"].as_str().unwrap_or("").to_owned();
    for branch in ["same", "behind"] {
        for query in ["", "?force=1"] {
            let e = expect_error(
                w.merge(branch, query).await,
                StatusCode::CONFLICT,
                "nothing_to_merge",
            )
            .await;
            assert!(
                refused(&e).contains(&format!("every commit of {branch} already")),
                "{e}"
            );
        }
    }
    // Before the gate: required checks that have not reported do not hide the reason.
    push_meta_config(&w, "[repos.\"app\"]\nrequired_checks = [\"ci\"]\n");
    expect_error(
        w.merge("same", "").await,
        StatusCode::CONFLICT,
        "nothing_to_merge",
    )
    .await;

    w.fetch();
    let now = w.git.ok(&w.work, &["rev-parse", "origin/main"]);
    assert_eq!(now.trim(), main);
    assert_eq!(w.events("merged").await.len(), merged_events);
    for branch in ["same", "behind"] {
        let b = w
            .app
            .get_json(&w.token, &format!("{R}/branches/{branch}"))
            .await;
        assert_eq!(b["state"], "open", "{b}");
        assert_eq!(b["merge_sha"], Value::Null, "{b}");
    }
}

/// A merged branch keeps its diff: what its merge brought into main (from the merge's
/// first parent to the merge commit), in the plain, patch and streamed forms, also
/// after main moved on; once deleted, the branch has no diff (404) as before.
#[tokio::test]
async fn a_merged_branch_keeps_the_diff_its_merge_brought_in() {
    let w = world().await;
    w.push_branch(
        "topic",
        "topic",
        &[("b.txt", b"b\n"), ("src/lib.rs", b"fn y() {}\n")],
    );
    let before = w.git.ok(&w.work, &["rev-parse", "main"]).trim().to_owned();
    let merged: Value = expect_json(w.merge("topic", "").await, StatusCode::OK).await;
    let sha = merged["sha"].as_str().unwrap();
    w.fetch();
    w.push_branch("later", "later", &[("c.txt", b"c\n")]);
    expect_json::<Value>(w.merge("later", "").await, StatusCode::OK).await;

    let path = format!("{R}/branches/topic/diff");
    let d = w.app.get_json(&w.token, &path).await;
    let paths = |files: &Value| -> Vec<String> {
        files
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(paths(&d["files"]), ["src/lib.rs", "b.txt"], "{d}");
    assert_eq!(
        (
            d["base"].as_str(),
            d["merge_base"].as_str(),
            d["head"].as_str()
        ),
        (Some(before.as_str()), Some(before.as_str()), Some(sha))
    );
    assert_eq!(d["stats"]["additions"], 2, "{d}");
    let patch = w
        .app
        .as_user(Method::GET, &format!("{path}?format=patch"), &w.token)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(patch.contains("+++ b/b.txt\n"), "{patch}");
    assert!(patch.contains("-fn x() {}\n+fn y() {}\n"), "{patch}");
    let r = w
        .app
        .as_user(Method::GET, &format!("{path}?patches=1&stream=1"), &w.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let lines: Vec<Value> = r
        .text()
        .await
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "start");
    assert_eq!(lines[0]["head"], sha);
    let files: Vec<Value> = lines
        .iter()
        .filter(|l| l["type"] == "file")
        .cloned()
        .collect();
    assert_eq!(paths(&Value::from(files)), ["src/lib.rs", "b.txt"]);

    let r = w
        .send(Method::DELETE, &format!("{R}/branches/topic"), None)
        .await;
    assert!(r.status().is_success(), "{}", r.status());
    let r = w.send(Method::GET, &path, None).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}
