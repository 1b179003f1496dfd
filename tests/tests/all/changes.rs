//! Changes: the branches of one name in several repos of a monorepo, seen together
//! (getChange) and landed together or not at all (mergeChange): every main moves or
//! none, the `merged` events and hook deliveries share the change's id, a main that
//! cannot move puts back the others, and a server killed between the ref moves and
//! their recording comes back with refs and records agreeing. Through merge queues, a
//! change lands when each repo's entry is at its front and green, every main at exactly
//! its tested commit; a part that leaves takes the others with it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::git::Git;
use svc_tests::receiver::Receiver;
use svc_tests::{TestApp, TestAppBuilder, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";

/// `ann/mono` with repos `services-api` and `web-client`, each cloned with a first
/// commit on its main, and `eve`, signed in but no member.
struct World {
    app: TestApp,
    token: String,
    eve: String,
    git: Git,
    /// Repo name → its clone.
    work: BTreeMap<&'static str, PathBuf>,
}

const REPOS: [(&str, &str); 2] = [
    ("services-api", "services/api"),
    ("web-client", "web/client"),
];

async fn world(builder: TestAppBuilder) -> World {
    let app = builder.start().await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    let eve = app
        .bootstrap(json!({"email": "eve@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&token, json!({"name": "mono"})).await;
    let git = Git::new(&token);
    let mut work = BTreeMap::new();
    for (name, path) in REPOS {
        let repo = app.repo(&token, "ann/mono", path).await;
        assert_eq!(repo["name"], name);
        let url = repo["clone_url"].as_str().unwrap();
        git.ok(git.home.path(), &["clone", "-q", url, name]);
        let dir = git.path(name);
        git.commit(
            &dir,
            "first",
            &[("README.md", format!("{name}\n").as_bytes())],
        );
        git.ok(&dir, &["push", "-q", "origin", "main"]);
        work.insert(name, dir);
    }
    World {
        app,
        token,
        eve,
        git,
        work,
    }
}

impl World {
    /// Pushes `branch` of `repo`, made from main with one file of its own; its head.
    fn push_branch(&self, repo: &str, branch: &str) -> String {
        let dir = &self.work[repo];
        self.git
            .ok(dir, &["checkout", "-q", "-B", branch, "origin/main"]);
        let head = self
            .git
            .commit(dir, branch, &[(&format!("{repo}.txt"), repo.as_bytes())]);
        self.git.ok(dir, &["push", "-q", "origin", branch]);
        head
    }

    /// Main's head as git holds it.
    fn git_main(&self, repo: &str) -> String {
        let out = self
            .git
            .ok(&self.work[repo], &["ls-remote", "origin", "main"]);
        out.split('\t').next().unwrap().to_owned()
    }

    /// Main's head as the API records it.
    async fn api_main(&self, repo: &str) -> String {
        let r = self
            .app
            .get_json(&self.token, &format!("{M}/repos/{repo}/branches"))
            .await;
        r["default_head"].as_str().unwrap().to_owned()
    }

    async fn merge(&self, query: &str) -> reqwest::Response {
        self.app
            .as_user(
                Method::POST,
                &format!("{M}/changes/feature/merge{query}"),
                &self.token,
            )
            .send()
            .await
            .unwrap()
    }

    async fn branch(&self, repo: &str) -> Value {
        self.app
            .get_json(&self.token, &format!("{M}/repos/{repo}/branches/feature"))
            .await
    }

    /// The monorepo's events of `kind`, oldest first.
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

    /// Asserts nothing landed: each main where it was in git and in the API, each
    /// `feature` open, and no merge recorded.
    async fn nothing_landed(&self, mains: &BTreeMap<&str, String>) {
        for (repo, main) in mains {
            assert_eq!(&self.git_main(repo), main, "{repo}'s main in git");
            assert_eq!(&self.api_main(repo).await, main, "{repo}'s main in the API");
            assert_eq!(self.branch(repo).await["state"], "open", "{repo}");
        }
        assert!(self.events("merged").await.is_empty());
        assert!(self.events("change.merged").await.is_empty());
        assert!(self.events("default_head.updated").await.is_empty());
    }

    /// Asserts the change landed whole: each main at its merge of `feature`, in git and
    /// the API, one `merged` event per repo sharing one change id, and one
    /// `change.merged` event; answers the change id.
    async fn landed_whole(&self, before: &BTreeMap<&str, String>) -> String {
        let merged = self.events("merged").await;
        assert_eq!(merged.len(), 2, "{merged:?}");
        let change = merged[0]["change"]
            .as_str()
            .unwrap_or_else(|| panic!("a change id in {}", merged[0]))
            .to_owned();
        assert!(change.starts_with("ch_"), "{change}");
        for e in &merged {
            assert_eq!(e["change"], change.as_str(), "{e}");
        }
        let whole = self.events("change.merged").await;
        assert_eq!(whole.len(), 1, "{whole:?}");
        assert_eq!(whole[0]["key"], change.as_str());
        assert_eq!(whole[0]["row"]["change"], change.as_str());
        for (repo, old) in before {
            let main = self.git_main(repo);
            assert_ne!(&main, old, "{repo}'s main moved");
            assert_eq!(self.api_main(repo).await, main, "{repo}");
            let b = self.branch(repo).await;
            assert_eq!(
                (b["state"].as_str(), b["merge_sha"].as_str()),
                (Some("merged"), Some(main.as_str())),
                "{b}"
            );
            let e = merged.iter().find(|e| e["repo"] == *repo).expect(repo);
            assert_eq!(e["head"], main.as_str(), "{e}");
            let m = whole[0]["row"]["merges"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["repo"] == *repo)
                .expect(repo);
            assert_eq!(m["sha"], main.as_str());
        }
        change
    }

    /// Gives the repos `config` as the meta layer's `.svc/svc.toml`.
    fn configure(&self, config: &str) {
        let meta = self.git.path("meta");
        if !meta.exists() {
            let url = self.app.url("/ann/mono/meta.git");
            self.git
                .ok(self.git.home.path(), &["clone", "-q", &url, "meta"]);
        }
        self.git
            .commit(&meta, "config", &[(".svc/svc.toml", config.as_bytes())]);
        self.git.ok(&meta, &["push", "-q", "origin", "main"]);
    }

    /// Posts status `state` of check `ci` on `sha` of `repo`.
    async fn status(&self, repo: &str, sha: &str, state: &str) {
        let r = self
            .app
            .as_user(
                Method::POST,
                &format!("{M}/repos/{repo}/statuses/{sha}"),
                &self.token,
            )
            .json(&json!({"context": "ci", "state": state}))
            .send()
            .await
            .unwrap();
        expect_json::<Value>(r, StatusCode::CREATED).await;
    }

    /// Waits until the queue entry of `feature` in each repo is as `ok` says; answers
    /// them by repo.
    async fn entries(&self, ok: impl Fn(&Value) -> bool) -> BTreeMap<&'static str, Value> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let mut found = BTreeMap::new();
            for (name, _) in REPOS {
                let q = self
                    .app
                    .get_json(&self.token, &format!("{M}/repos/{name}/queue"))
                    .await;
                let e = q["entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|e| e["branch"] == "feature")
                    .cloned();
                if let Some(e) = e.filter(|e| ok(e)) {
                    found.insert(name, e);
                }
            }
            if found.len() == REPOS.len() {
                return found;
            }
            assert!(
                Instant::now() < deadline,
                "the entries never got there: {found:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn mains(&self) -> BTreeMap<&'static str, String> {
        REPOS
            .iter()
            .map(|(name, _)| (*name, self.git_main(name)))
            .collect()
    }

    /// The bare repository of `repo` on the server: the one whose main is `main`.
    fn repo_dir(&self, main: &str) -> PathBuf {
        let dirs = std::fs::read_dir(self.app.data_dir.path().join("repos")).unwrap();
        dirs.map(|d| d.unwrap().path())
            .find(|d| {
                std::fs::read_to_string(d.join("refs/heads/main")).is_ok_and(|s| s.trim() == main)
            })
            .expect("the repo's bare repository")
    }
}

#[tokio::test]
async fn a_change_lands_in_every_repo_at_once() {
    let w = world(TestApp::builder()).await;
    let rx = Receiver::start().await;
    let r = w
        .app
        .as_user(Method::POST, &format!("{M}/hooks"), &w.token)
        .json(&json!({"kind": "web", "url": rx.url, "events": ["merged"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let before = w.mains();
    let heads: BTreeMap<&str, String> = REPOS
        .iter()
        .map(|(name, _)| (*name, w.push_branch(name, "feature")))
        .collect();

    // The change's branches across repos, with facts and checks.
    let change = w
        .app
        .get_json(&w.token, &format!("{M}/changes/feature"))
        .await;
    assert_eq!(change["branch"], "feature");
    let seen: Vec<(&str, &str, &str)> = change["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["repo"].as_str().unwrap(),
                b["state"].as_str().unwrap(),
                b["head"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("services-api", "open", heads["services-api"].as_str()),
            ("web-client", "open", heads["web-client"].as_str())
        ]
    );
    assert!(
        change["branches"][0]["checks"]["state"].is_string(),
        "{change}"
    );

    let landed: Value = expect_json(w.merge("").await, StatusCode::OK).await;
    let id = w.landed_whole(&before).await;
    assert_eq!(landed["change"], id.as_str());
    let repos: Vec<&str> = landed["merges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["repo"].as_str().unwrap())
        .collect();
    assert_eq!(repos.len(), 2);
    for m in landed["merges"].as_array().unwrap() {
        let repo = m["repo"].as_str().unwrap();
        assert_eq!(m["sha"].as_str().unwrap(), w.git_main(repo));
        assert_eq!(
            (m["branch"].as_str(), m["forced"].as_bool()),
            (Some("feature"), Some(false))
        );
        // The merge brought the branch's file onto main.
        let file = w
            .app
            .as_user(
                Method::GET,
                &format!("{M}/repos/{repo}/file?path={repo}.txt"),
                &w.token,
            )
            .send()
            .await
            .unwrap();
        assert_eq!(file.status(), StatusCode::OK);
        assert_eq!(file.text().await.unwrap(), repo);
    }
    // Both mains moved in one transaction: their default_head events are adjacent and
    // the change's event comes with them.
    let moved = w.events("default_head.updated").await;
    assert_eq!(moved.len(), 2, "{moved:?}");
    let whole = w.events("change.merged").await;
    let seqs = [&moved[0], &moved[1], &whole[0]].map(|e| e["seq"].as_i64().unwrap());
    assert!(seqs[2] - seqs[0] <= 3, "{seqs:?}");

    // Each hook delivery carries the change id.
    let got = rx.wait_for(2, Duration::from_secs(15)).await;
    let mut delivered: Vec<(String, String)> = got
        .iter()
        .map(|g| {
            let body = g.json();
            assert_eq!(body["change"], id.as_str(), "{body}");
            (
                body["repo"].as_str().unwrap().to_owned(),
                body["merge_commit"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    delivered.sort();
    assert_eq!(
        delivered,
        REPOS
            .iter()
            .map(|(name, _)| ((*name).to_owned(), w.git_main(name)))
            .collect::<Vec<_>>()
    );

    // Landed: nothing open of that name is left to merge, but the change is still seen.
    expect_error(w.merge("").await, StatusCode::NOT_FOUND, "not_found").await;
    let change = w
        .app
        .get_json(&w.token, &format!("{M}/changes/feature"))
        .await;
    assert!(
        change["branches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["state"] == "merged"),
        "{change}"
    );
}

#[tokio::test]
async fn outsiders_and_unknown_changes_are_not_found() {
    let w = world(TestApp::builder()).await;
    w.push_branch("services-api", "feature");
    for (method, path) in [
        (Method::GET, format!("{M}/changes/feature")),
        (Method::POST, format!("{M}/changes/feature/merge?force=1")),
    ] {
        let r = w
            .app
            .as_user(method.clone(), &path, &w.eve)
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
    assert_eq!(w.branch("services-api").await["state"], "open");
    for (method, path) in [
        (Method::GET, format!("{M}/changes/nothing")),
        (Method::POST, format!("{M}/changes/nothing/merge")),
    ] {
        let r = w.app.as_user(method, &path, &w.token).send().await.unwrap();
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
}

#[tokio::test]
async fn a_gate_failing_in_one_repo_lands_none() {
    let w = world(TestApp::builder()).await;
    // web-client requires a check its branch does not pass.
    let url = w.app.url("/ann/mono/meta.git");
    w.git.ok(w.git.home.path(), &["clone", "-q", &url, "meta"]);
    let meta = w.git.path("meta");
    w.git.commit(
        &meta,
        "config",
        &[(
            ".svc/svc.toml",
            b"[repos.\"web-client\"]\nrequired_checks = [\"ci/build\"]\n",
        )],
    );
    w.git.ok(&meta, &["push", "-q", "origin", "main"]);
    w.push_branch("services-api", "feature");
    let head = w.push_branch("web-client", "feature");
    let r = w
        .app
        .as_user(
            Method::POST,
            &format!("{M}/repos/web-client/statuses/{head}"),
            &w.token,
        )
        .json(&json!({"context": "ci/build", "state": "failure"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let before = w.mains();

    let e = expect_error(
        w.merge("").await,
        StatusCode::PRECONDITION_FAILED,
        "checks_not_green",
    )
    .await;
    let message = e["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("web-client: "), "{message}");
    assert_eq!(e["error"]["checks"]["state"], "failure");
    w.nothing_landed(&before).await;

    // Forced past the gate, it lands whole, recorded as forced.
    let landed: Value = expect_json(w.merge("?force=1").await, StatusCode::OK).await;
    assert!(
        landed["merges"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["forced"] == true),
        "{landed}"
    );
    w.landed_whole(&before).await;
}

#[tokio::test]
async fn a_main_that_cannot_move_puts_back_the_others() {
    let w = world(TestApp::builder()).await;
    w.push_branch("services-api", "feature");
    w.push_branch("web-client", "feature");
    let before = w.mains();
    // The mains move in the order of the repos' ids, the bare repositories' names: the
    // last one's main is held by a lock another writer left, so the first has moved
    // when it refuses.
    let mut dirs: Vec<PathBuf> = before.values().map(|main| w.repo_dir(main)).collect();
    dirs.sort();
    let lock = dirs[1].join("refs/heads/main.lock");
    std::fs::write(&lock, b"").unwrap();

    let e = expect_error(w.merge("").await, StatusCode::CONFLICT, "main_moved").await;
    let blocked = before
        .keys()
        .find(|repo| w.repo_dir(&before[**repo]) == dirs[1])
        .unwrap();
    let message = e["error"]["message"].as_str().unwrap();
    assert!(message.starts_with(&format!("{blocked}: ")), "{message}");
    w.nothing_landed(&before).await;

    // Once the lock is gone the change lands.
    std::fs::remove_file(&lock).unwrap();
    expect_json::<Value>(w.merge("").await, StatusCode::OK).await;
    w.landed_whole(&before).await;
}

/// Waits until the API's mains are git's, as a restarted server settles and records
/// what a crash left.
async fn settled(w: &World) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let mut agree = true;
        for (name, _) in REPOS {
            agree &= w.api_main(name).await == w.git_main(name);
        }
        if agree {
            return;
        }
        assert!(Instant::now() < deadline, "the API's mains are not git's");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_change_killed_midway_is_put_back_or_recorded_whole() {
    let mut w = world(TestApp::builder().process()).await;
    w.push_branch("services-api", "feature");
    w.push_branch("web-client", "feature");
    let before = w.mains();
    let merge = format!("{M}/changes/feature/merge");

    // Killed once one main moved and the other not yet: put back at start-up.
    w.app.crash_at("change.moving").await;
    let r = w.app.as_user(Method::POST, &merge, &w.token).send().await;
    assert!(r.is_err(), "the server answered: {r:?}");
    w.app.crashed("change.moving").await;
    settled(&w).await;
    w.nothing_landed(&before).await;

    // Killed once every main moved but before anything was recorded: recorded whole at
    // start-up.
    w.app.crash_at("change.moved").await;
    let r = w.app.as_user(Method::POST, &merge, &w.token).send().await;
    assert!(r.is_err(), "the server answered: {r:?}");
    w.app.crashed("change.moved").await;
    settled(&w).await;
    w.landed_whole(&before).await;
}

/// Both repos require `ci`; `services-api` has a merge queue, `web-client` none unless
/// `both`.
fn queues(both: bool) -> String {
    format!(
        "[repos.\"services/api\"]\nrequired_checks = [\"ci\"]\nmerge_queue = true\n\
         [repos.\"web/client\"]\nrequired_checks = [\"ci\"]\nmerge_queue = {both}\n"
    )
}

fn tested(e: &Value) -> bool {
    e["state"] == "testing" && e["speculative_sha"].is_string()
}

fn spec(e: &Value) -> String {
    e["speculative_sha"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_change_through_the_queues_lands_every_main_at_once_as_tested() {
    let w = world(TestApp::builder()).await;
    w.configure(&queues(false));
    w.push_branch("services-api", "feature");
    let client_head = w.push_branch("web-client", "feature");
    let before = w.mains();

    let queued: Value = expect_json(w.merge("").await, StatusCode::ACCEPTED).await;
    let change = queued["change"].as_str().unwrap().to_owned();
    assert!(change.starts_with("ch_"), "{queued}");
    let entries = queued["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{queued}");
    for e in entries {
        assert_eq!(e["change"], change.as_str(), "{e}");
        assert_eq!(e["position"], 1, "{e}");
    }
    // Asked again, the change keeps its entries.
    let again: Value = expect_json(w.merge("").await, StatusCode::ACCEPTED).await;
    assert_eq!(again["change"], change.as_str());

    let tested_now = w.entries(tested).await;
    for (repo, e) in &tested_now {
        assert_eq!(e["base_sha"], before[repo].as_str(), "{repo}: made on main");
    }
    // Announced for its CI where the repo has a queue; the other is gated on its head.
    let groups = w.events("merge_group").await;
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0]["repo"], "services-api");
    // The needs-you list says where the change's branches are.
    let needs = w.app.get_json(&w.token, "/v1/branches").await;
    let queued_rows: Vec<&Value> = needs["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["state"] == "queued")
        .collect();
    assert_eq!(queued_rows.len(), 2, "{needs}");
    for n in queued_rows {
        assert_eq!(n["queue"]["change"], change.as_str(), "{n}");
    }

    // One part green is not the change green: nothing lands.
    w.status(
        "services-api",
        &spec(&tested_now["services-api"]),
        "success",
    )
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    w.nothing_landed(&before).await;

    w.status("web-client", &client_head, "success").await;
    let landed = w.entries(|e| e["state"] == "landed").await;
    assert_eq!(w.landed_whole(&before).await, change);
    for (repo, e) in &landed {
        assert_eq!(
            w.git_main(repo),
            spec(e),
            "{repo}: main is exactly the tested commit"
        );
    }
}

#[tokio::test]
async fn a_part_of_a_queued_change_that_fails_takes_the_others_out() {
    let w = world(TestApp::builder()).await;
    w.configure(&queues(true));
    w.push_branch("services-api", "feature");
    w.push_branch("web-client", "feature");
    let before = w.mains();
    expect_json::<Value>(w.merge("").await, StatusCode::ACCEPTED).await;
    let tested_now = w.entries(tested).await;
    w.status(
        "services-api",
        &spec(&tested_now["services-api"]),
        "success",
    )
    .await;
    w.status("web-client", &spec(&tested_now["web-client"]), "failure")
        .await;
    let left = w.entries(|e| e["state"] == "left").await;
    assert_eq!(left["web-client"]["reason"], "checks_failed");
    assert_eq!(left["services-api"]["reason"], "change_left");
    tokio::time::sleep(Duration::from_secs(2)).await;
    w.nothing_landed(&before).await;
    let needs = w.app.get_json(&w.token, "/v1/branches").await;
    let reasons: BTreeMap<&str, &str> = needs["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["state"] == "left_queue")
        .map(|n| {
            (
                n["repo"].as_str().unwrap(),
                n["queue"]["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        BTreeMap::from([
            ("services-api", "change_left"),
            ("web-client", "checks_failed")
        ]),
        "{needs}"
    );
}

#[tokio::test]
async fn a_queued_change_killed_midway_lands_whole_after_restart() {
    let mut w = world(TestApp::builder().process()).await;
    w.configure(&queues(true));
    w.push_branch("services-api", "feature");
    w.push_branch("web-client", "feature");
    let before = w.mains();
    expect_json::<Value>(w.merge("").await, StatusCode::ACCEPTED).await;
    let tested_now = w.entries(tested).await;

    // Killed once one main moved and the other not yet: put back at start-up, then
    // landed whole by the queues, as the commits tested.
    w.app.crash_at("change.moving").await;
    for (repo, e) in &tested_now {
        // The last status may be answered or not: the server dies landing the change.
        let _ = w
            .app
            .as_user(
                Method::POST,
                &format!("{M}/repos/{repo}/statuses/{}", spec(e)),
                &w.token,
            )
            .json(&json!({"context": "ci", "state": "success"}))
            .send()
            .await;
    }
    w.app.crashed("change.moving").await;
    let landed = w.entries(|e| e["state"] == "landed").await;
    settled(&w).await;
    w.landed_whole(&before).await;
    for (repo, e) in &landed {
        assert_eq!(e["speculative_sha"], tested_now[repo]["speculative_sha"]);
        assert_eq!(w.git_main(repo), spec(e), "{repo}");
    }
}
