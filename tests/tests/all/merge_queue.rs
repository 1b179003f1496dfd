//! The merge queue end to end: with `merge_queue = true` a merge joins the repo's queue;
//! each entry is tested as a speculative merge commit (main, the entries ahead, its
//! branch) under `refs/svc/queue/<entry>`, announced by a `merge_group` event and hook
//! delivery, and main moves to exactly that commit once its required check passes. A red
//! entry leaves and the one behind is tested again without it; entries that conflict
//! together, wait too long or are taken out by hand leave with their reason; a server
//! killed at each step leaves the refs, rows and events agreeing after its restart. An
//! armed branch joins the queue once green; the repo's queue page lists it and takes an
//! entry out without JavaScript.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_server::config::MergeQueueSettings;
use svc_tests::fake_buildkite::FakeBuildkite;
use svc_tests::git::all_output;
use svc_tests::machine::Machine;
use svc_tests::receiver::Receiver;
use svc_tests::{TestApp, TestAppBuilder, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";
const R: &str = "/v1/monorepos/ann/mono/repos/app";

/// `ann/mono` with repo `app` (main pushed; `ci` required and a merge queue, by the meta
/// layer's config), cloned in `work`.
async fn world(builder: TestAppBuilder) -> svc_tests::Cloned {
    let c = svc_tests::Cloned::with(builder, "mono", "app").await;
    c.git
        .commit(&c.work, "base", &[("a.txt", b"one\ntwo\nthree\n" as &[u8])]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    let url = c.app.url("/ann/mono/meta.git");
    c.git.ok(c.git.home.path(), &["clone", "-q", &url, "meta"]);
    let meta = c.git.path("meta");
    c.git.commit(
        &meta,
        "config",
        &[(
            ".svc/svc.toml",
            b"[repos.\"app\"]\nrequired_checks = [\"ci\"]\nmerge_queue = true\n" as &[u8],
        )],
    );
    c.git.ok(&meta, &["push", "-q", "origin", "main"]);
    c
}

/// Makes `branch` from main with `files` committed and pushes it; its head.
fn push_branch(c: &svc_tests::Cloned, branch: &str, files: &[(&str, &[u8])]) -> String {
    c.git.ok(&c.work, &["fetch", "-q", "origin"]);
    c.git
        .ok(&c.work, &["checkout", "-q", "-B", branch, "origin/main"]);
    let sha = c.git.commit(&c.work, branch, files);
    c.git.ok(&c.work, &["push", "-q", "-f", "origin", branch]);
    sha
}

/// Main's head as git holds it.
fn git_main(c: &svc_tests::Cloned) -> String {
    git_ref(c, "refs/heads/main").expect("main")
}

/// A ref of the repo as the git door advertises it.
fn git_ref(c: &svc_tests::Cloned, name: &str) -> Option<String> {
    let out = c.git.ok(&c.work, &["ls-remote", "origin", name]);
    out.lines()
        .find(|l| l.ends_with(&format!("\t{name}")))
        .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
}

async fn enqueue(c: &svc_tests::Cloned, branch: &str) -> Value {
    let r = c
        .app
        .as_user(
            Method::POST,
            &format!("{R}/branches/{branch}/merge"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    expect_json(r, StatusCode::ACCEPTED).await
}

async fn status(c: &svc_tests::Cloned, sha: &str, state: &str) {
    let r = c
        .app
        .as_user(Method::POST, &format!("{R}/statuses/{sha}"), &c.token)
        .json(&json!({"context": "ci", "state": state}))
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::CREATED).await;
}

/// The queue's entry `id` (in or out of the queue).
async fn entry(c: &svc_tests::Cloned, id: &str) -> Value {
    let q = c.app.get_json(&c.token, &format!("{R}/queue")).await;
    q["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("entry {id} in {q}"))
        .clone()
}

/// Waits until entry `id` is as `ok` says, answering it.
async fn wait_entry(c: &svc_tests::Cloned, id: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let e = entry(c, id).await;
        if ok(&e) {
            return e;
        }
        assert!(Instant::now() < deadline, "entry never got there: {e}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until entry `id` is tested as a speculative commit other than `not`.
async fn tested(c: &svc_tests::Cloned, id: &str, not: Option<&str>) -> Value {
    wait_entry(c, id, |e| {
        e["state"] == "testing"
            && e["speculative_sha"].is_string()
            && e["speculative_sha"].as_str() != not
    })
    .await
}

/// The monorepo's events of `kind`, oldest first.
async fn events(c: &svc_tests::Cloned, kind: &str) -> Vec<Value> {
    let page = c
        .app
        .get_json(&c.token, &format!("{M}/events?limit=500"))
        .await;
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == kind)
        .cloned()
        .collect()
}

/// The first parent of `sha` in the work clone (fetched first).
fn parent(c: &svc_tests::Cloned, sha: &str) -> String {
    c.git.ok(&c.work, &["fetch", "-q", "origin", "main"]);
    c.git
        .ok(&c.work, &["rev-parse", &format!("{sha}^1")])
        .trim()
        .to_owned()
}

/// A web session of `login`, a new member of `ann/mono` who signs in with a password.
async fn member_session(c: &svc_tests::Cloned, login: &str) -> String {
    let password = "a long enough password";
    c.app
        .bootstrap(
            json!({"email": format!("{login}@example.com"), "login": login, "password": password}),
        )
        .await;
    let r = c
        .app
        .as_user(Method::PUT, &format!("{M}/members/{login}"), &c.token)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;
    c.app.sign_in(login, password).await
}

#[tokio::test]
async fn a_queued_branch_lands_as_exactly_its_tested_commit() {
    let c = world(TestApp::builder()).await;
    let rx = Receiver::start().await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/hooks"), &c.token)
        .json(&json!({"kind": "web", "url": rx.url, "events": ["merge_group"]}))
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::CREATED).await;
    let main = git_main(&c);
    let head = push_branch(&c, "topic", &[("b.txt", b"b\n")]);

    let queued = enqueue(&c, "topic").await;
    let id = queued["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("q_"), "{queued}");
    assert_eq!(queued["position"], 1, "{queued}");
    assert_eq!(queued["ref"], format!("refs/svc/queue/{id}"));
    assert_eq!(queued["head"], head.as_str());
    // Asked again, the branch keeps its place.
    assert_eq!(enqueue(&c, "topic").await["id"], id.as_str());

    let e = tested(&c, &id, None).await;
    let spec = e["speculative_sha"].as_str().unwrap().to_owned();
    assert_eq!(e["base_sha"], main.as_str(), "made on main: {e}");
    let branch = c
        .app
        .get_json(&c.token, &format!("{R}/branches/topic"))
        .await;
    assert_eq!(branch["queue"]["id"], id.as_str(), "{branch}");
    assert_eq!(branch["queue"]["speculative_sha"], spec.as_str());
    assert_eq!(branch["state"], "open");
    // The branch page says it, with a way out.
    let cookie = member_session(&c, "pat").await;
    let r = c
        .app
        .get_page(Some(&cookie), "/ann/mono/-/app/branches/topic")
        .await;
    let html = r.text().await.unwrap();
    assert!(
        html.contains("In the merge queue at position 1 (testing), tested as")
            && html.contains(&spec[..7])
            && html.contains("id=\"merge-queue-leave\""),
        "{html}"
    );

    // Announced: a merge_group event and a hook delivery whose read token fetches the
    // speculative commit through the git door.
    let group = events(&c, "merge_group").await;
    assert_eq!(group.len(), 1, "{group:?}");
    assert_eq!(group[0]["head"], spec.as_str());
    assert_eq!(group[0]["before"], main.as_str());
    let got = rx.wait_for(1, Duration::from_secs(10)).await;
    let body = got[0].json();
    assert_eq!(got[0].event, "merge_group");
    assert_eq!(body["head"], spec.as_str(), "{body}");
    assert_eq!(body["ref"], format!("refs/svc/queue/{id}"));
    assert_eq!(body["queue_entry"], id.as_str());
    let read = body["read_token"].as_str().unwrap();
    let header = format!("http.extraHeader=Authorization: Bearer {read}");
    c.git.ok(c.git.home.path(), &["init", "-q", "ci"]);
    let ci = c.git.path("ci");
    let fetch = c.git.run(
        &ci,
        &[
            "-c",
            "credential.helper=",
            "-c",
            &header,
            "fetch",
            "-q",
            body["clone_url"].as_str().unwrap(),
            &format!("refs/svc/queue/{id}"),
        ],
    );
    assert!(fetch.status.success(), "{}", all_output(&fetch));
    assert_eq!(c.git.ok(&ci, &["rev-parse", "FETCH_HEAD"]).trim(), spec);

    // The branch's own green check is not the gate: the speculative commit's is.
    status(&c, &head, "success").await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(git_main(&c), main, "nothing lands on the branch's check");
    assert_eq!(entry(&c, &id).await["state"], "testing");

    status(&c, &spec, "success").await;
    let e = wait_entry(&c, &id, |e| e["state"] == "landed").await;
    assert_eq!(e["position"], Value::Null);
    assert_eq!(git_main(&c), spec, "main is exactly the tested commit");
    let branch = c
        .app
        .get_json(&c.token, &format!("{R}/branches/topic"))
        .await;
    assert_eq!(
        (branch["state"].as_str(), branch["merge_sha"].as_str()),
        (Some("merged"), Some(spec.as_str())),
        "{branch}"
    );
    assert_eq!(branch["queue"], Value::Null);
    let list = c.app.get_json(&c.token, &format!("{R}/branches")).await;
    assert_eq!(list["default_head"], spec.as_str());
    let merged = events(&c, "merged").await;
    assert_eq!(merged.len(), 1, "{merged:?}");
    assert_eq!(merged[0]["head"], spec.as_str());
    // The ref goes with the entry.
    let deadline = Instant::now() + Duration::from_secs(10);
    while git_ref(&c, &format!("refs/svc/queue/{id}")).is_some() {
        assert!(Instant::now() < deadline, "the queue ref stays");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn branches_that_pass_alone_but_conflict_together_land_one() {
    let c = world(TestApp::builder()).await;
    push_branch(&c, "left", &[("a.txt", b"LEFT\ntwo\nthree\n")]);
    push_branch(&c, "right", &[("a.txt", b"RIGHT\ntwo\nthree\n")]);
    let one = enqueue(&c, "left").await["id"].as_str().unwrap().to_owned();
    let two = enqueue(&c, "right").await["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let e = wait_entry(&c, &two, |e| e["state"] == "left").await;
    assert_eq!(e["reason"], "conflict", "{e}");
    let first = tested(&c, &one, None).await;
    let spec = first["speculative_sha"].as_str().unwrap().to_owned();
    let left = events(&c, "queue.left").await;
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["reason"], "conflict");
    assert_eq!(left[0]["row"]["branch"], "right");

    status(&c, &spec, "success").await;
    wait_entry(&c, &one, |e| e["state"] == "landed").await;
    assert_eq!(git_main(&c), spec);
    let right = c
        .app
        .get_json(&c.token, &format!("{R}/branches/right"))
        .await;
    assert_eq!(right["state"], "open", "{right}");
}

#[tokio::test]
async fn a_red_entry_leaves_and_the_one_behind_lands_without_it() {
    let c = world(TestApp::builder()).await;
    let main = git_main(&c);
    push_branch(&c, "red", &[("red.txt", b"red\n")]);
    push_branch(&c, "green", &[("green.txt", b"green\n")]);
    let one = enqueue(&c, "red").await["id"].as_str().unwrap().to_owned();
    let two = enqueue(&c, "green").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(entry(&c, &two).await["position"], 2);

    // Side by side: both are tested at once, the second on the first's commit.
    let first = tested(&c, &one, None).await;
    let spec1 = first["speculative_sha"].as_str().unwrap().to_owned();
    let second = tested(&c, &two, None).await;
    let spec2 = second["speculative_sha"].as_str().unwrap().to_owned();
    assert_eq!(second["base_sha"], spec1.as_str(), "{second}");

    status(&c, &spec1, "failure").await;
    let e = wait_entry(&c, &one, |e| e["state"] == "left").await;
    assert_eq!(e["reason"], "checks_failed");
    let again = tested(&c, &two, Some(&spec2)).await;
    assert_eq!(
        again["base_sha"],
        main.as_str(),
        "made again without it: {again}"
    );
    assert_eq!(again["position"], 1);
    let spec = again["speculative_sha"].as_str().unwrap().to_owned();
    // The old speculative commit's checks count for nothing now.
    status(&c, &spec2, "success").await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(git_main(&c), main);

    status(&c, &spec, "success").await;
    wait_entry(&c, &two, |e| e["state"] == "landed").await;
    assert_eq!(git_main(&c), spec);
    assert_eq!(parent(&c, &spec), main, "the red branch is not on main");
    let red = c.app.get_json(&c.token, &format!("{R}/branches/red")).await;
    assert_eq!(red["state"], "open");
}

#[tokio::test]
async fn entries_leave_on_timeout_and_by_hand_and_outsiders_see_nothing() {
    let builder = TestApp::builder().merge_queue(MergeQueueSettings { timeout_secs: 3 });
    let c = world(builder).await;
    push_branch(&c, "slow", &[("slow.txt", b"slow\n")]);
    let id = enqueue(&c, "slow").await["id"].as_str().unwrap().to_owned();
    let e = wait_entry(&c, &id, |e| e["state"] == "left").await;
    assert_eq!(e["reason"], "timeout", "{e}");

    push_branch(&c, "manual", &[("manual.txt", b"manual\n")]);
    let id = enqueue(&c, "manual").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let eve = c
        .app
        .bootstrap(json!({"email": "eve@example.com"}))
        .await
        .credential
        .token;
    let r = c
        .app
        .as_user(Method::GET, &format!("{R}/queue"), &eve)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = c
        .app
        .as_user(Method::DELETE, &format!("{R}/branches/manual/queue"), &eve)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = c
        .app
        .as_user(
            Method::DELETE,
            &format!("{R}/branches/manual/queue"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let e = entry(&c, &id).await;
    assert_eq!(
        (e["state"].as_str(), e["reason"].as_str()),
        (Some("left"), Some("by_hand"))
    );
    // Out of the queue already: nothing more happens.
    let r = c
        .app
        .as_user(
            Method::DELETE,
            &format!("{R}/branches/manual/queue"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let reasons: Vec<Value> = events(&c, "queue.left")
        .await
        .iter()
        .map(|e| e["reason"].clone())
        .collect();
    assert_eq!(reasons, [json!("timeout"), json!("by_hand")]);
}

#[tokio::test]
async fn a_queue_killed_at_each_step_agrees_after_restart() {
    let mut c = world(TestApp::builder().process()).await;
    push_branch(&c, "one", &[("one.txt", b"one\n")]);
    let merge = format!("{R}/branches/one/merge");

    // Killed with the speculative commit made and its ref set, unrecorded: made again.
    c.app.crash_at("queue.built").await;
    let _ = c.app.as_user(Method::POST, &merge, &c.token).send().await;
    c.app.crashed("queue.built").await;
    let q = c.app.get_json(&c.token, &format!("{R}/queue")).await;
    let id = q["entries"][0]["id"].as_str().unwrap().to_owned();
    let e = tested(&c, &id, None).await;
    let spec = e["speculative_sha"].as_str().unwrap().to_owned();
    assert_eq!(
        git_ref(&c, &format!("refs/svc/queue/{id}")),
        Some(spec.clone())
    );
    let group = events(&c, "merge_group").await;
    assert_eq!(group.len(), 1, "{group:?}");
    assert_eq!(group[0]["head"], spec.as_str());

    // Killed with the merge written, main not moved: landed after the restart, as the
    // same tested commit.
    c.app.crash_at("queue.moving").await;
    status(&c, &spec, "success").await;
    c.app.crashed("queue.moving").await;
    wait_entry(&c, &id, |e| e["state"] == "landed").await;
    assert_eq!(git_main(&c), spec);
    assert_eq!(events(&c, "merged").await.len(), 1);

    // Killed with main moved, unrecorded: recorded (merged, landed) after the restart.
    push_branch(&c, "two", &[("two.txt", b"two\n")]);
    let two = enqueue(&c, "two").await["id"].as_str().unwrap().to_owned();
    let e = tested(&c, &two, None).await;
    let spec2 = e["speculative_sha"].as_str().unwrap().to_owned();
    c.app.crash_at("queue.moved").await;
    status(&c, &spec2, "success").await;
    c.app.crashed("queue.moved").await;
    wait_entry(&c, &two, |e| e["state"] == "landed").await;
    assert_eq!(git_main(&c), spec2);
    let list = c.app.get_json(&c.token, &format!("{R}/branches")).await;
    assert_eq!(list["default_head"], spec2.as_str());
    for (branch, sha) in [("one", &spec), ("two", &spec2)] {
        let b = c
            .app
            .get_json(&c.token, &format!("{R}/branches/{branch}"))
            .await;
        assert_eq!(b["merge_sha"], sha.as_str(), "{b}");
    }
    let merged = events(&c, "merged").await;
    assert_eq!(merged.len(), 2, "one merged event each: {merged:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while git_ref(&c, &format!("refs/svc/queue/{two}")).is_some() {
        assert!(Instant::now() < deadline, "the queue ref stays");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_cli_queues_a_merge_and_lists_the_queue() {
    let c = world(TestApp::builder()).await;
    push_branch(&c, "topic", &[("b.txt", b"b\n")]);
    let m = Machine::new();
    let svc = |args: &[&str]| {
        let out = m
            .svc(args)
            .env("SVC_TOKEN", &c.token)
            .env("SVC_SERVER", &c.app.base)
            .output()
            .unwrap();
        assert!(out.status.success(), "svc {args:?}: {}", all_output(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let said = svc(&["branch", "merge", "topic", "-R", "ann/mono/app"]);
    assert!(
        said.contains("topic joined the merge queue at position 1"),
        "{said}"
    );
    let listed: Value =
        serde_json::from_str(&svc(&["queue", "list", "-R", "ann/mono/app", "--json"])).unwrap();
    let id = listed["entries"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(listed["entries"][0]["branch"], "topic", "{listed}");
    let e = tested(&c, &id, None).await;
    let spec = e["speculative_sha"].as_str().unwrap();
    let table = svc(&["queue", "list", "-R", "ann/mono/app"]);
    let row = table
        .lines()
        .find(|l| l.contains("topic"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        row.contains("testing") && row.contains(&spec[..7]) && row.contains(&id),
        "{table}"
    );
}

#[tokio::test]
async fn a_ci_hook_builds_the_speculative_commit_whose_status_lands_it() {
    let fake = FakeBuildkite::start().await;
    let c = world(TestApp::builder().buildkite(&fake.api_url, "bk-token")).await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{M}/hooks"), &c.token)
        .json(&json!({"kind": "ci", "pipeline": "acme/pipe", "events": ["merge_group"]}))
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::CREATED).await;
    push_branch(&c, "topic", &[("b.txt", b"b\n")]);
    let id = enqueue(&c, "topic").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let spec = tested(&c, &id, None).await["speculative_sha"]
        .as_str()
        .unwrap()
        .to_owned();
    let got = fake.wait_for(1).await;
    let build = &got[0].body;
    assert_eq!(build["commit"], spec.as_str(), "{build}");
    assert_eq!(build["branch"], "topic");
    let env = &build["env"];
    assert_eq!(env["SVC_HEAD"], spec.as_str(), "{env}");
    // The build's status token reports on the speculative commit: that is the gate.
    let r = c
        .app
        .client
        .post(env["SVC_STATUS_URL"].as_str().unwrap())
        .bearer_auth(env["SVC_STATUS_TOKEN"].as_str().unwrap())
        .json(&json!({"context": "ci", "state": "success"}))
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::CREATED).await;
    wait_entry(&c, &id, |e| e["state"] == "landed").await;
    assert_eq!(git_main(&c), spec);
}

#[tokio::test]
async fn an_armed_branch_on_a_queued_repo_joins_the_queue_when_green() {
    let c = world(TestApp::builder()).await;
    let main = git_main(&c);
    let head = push_branch(&c, "topic", &[("b.txt", b"b\n")]);
    let r = c
        .app
        .as_user(
            Method::PUT,
            &format!("{R}/branches/topic/auto-merge"),
            &c.token,
        )
        .header("x-svc-agent", "claude")
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;
    status(&c, &head, "success").await;

    // The gate passed: the branch joins the queue as its armer (and agent), not main.
    let deadline = Instant::now() + Duration::from_secs(30);
    let e = loop {
        let q = c.app.get_json(&c.token, &format!("{R}/queue")).await;
        if let Some(e) = q["entries"].as_array().unwrap().first() {
            break e.clone();
        }
        assert!(Instant::now() < deadline, "the branch never joined: {q}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        (
            e["branch"].as_str(),
            e["enqueued_by"].as_str(),
            e["enqueued_agent"].as_str()
        ),
        (Some("topic"), Some("ann"), Some("claude")),
        "{e}"
    );
    assert_eq!(git_main(&c), main, "nothing merged past the queue");
    let branch = c
        .app
        .get_json(&c.token, &format!("{R}/branches/topic"))
        .await;
    assert_eq!(branch["auto_merge"], Value::Null, "{branch}");
    let disabled = events(&c, "auto_merge.disabled").await;
    assert_eq!(disabled.len(), 1, "{disabled:?}");
    assert_eq!(disabled[0]["reason"], "joined_queue");

    let id = e["id"].as_str().unwrap().to_owned();
    let spec = tested(&c, &id, None).await["speculative_sha"]
        .as_str()
        .unwrap()
        .to_owned();
    status(&c, &spec, "success").await;
    wait_entry(&c, &id, |e| e["state"] == "landed").await;
    assert_eq!(git_main(&c), spec);
    let merged = events(&c, "merged").await;
    assert_eq!(merged[0]["agent"], "claude", "{merged:?}");
}

#[tokio::test]
async fn the_queue_page_lists_entries_and_takes_one_out_without_javascript() {
    let c = world(TestApp::builder()).await;
    push_branch(&c, "first", &[("first.txt", b"1\n")]);
    push_branch(&c, "second", &[("second.txt", b"2\n")]);
    let one = enqueue(&c, "first").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let two = enqueue(&c, "second").await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let spec = tested(&c, &one, None).await["speculative_sha"]
        .as_str()
        .unwrap()
        .to_owned();
    tested(&c, &two, None).await;
    let cookie = member_session(&c, "pat").await;
    let page = "/ann/mono/-/app/queue";
    let html = c
        .app
        .get_page(Some(&cookie), page)
        .await
        .text()
        .await
        .unwrap();
    let first = html.find("first</a>").expect(&html);
    let second = html.find("second</a>").expect(&html);
    assert!(first < second, "front first: {html}");
    assert!(
        html.contains(&format!("/ann/mono/-/app/commit/{spec}")) && html.contains("#1 testing"),
        "{html}"
    );
    assert!(html.len() < 100_000);

    // "Leave the queue" is a plain form: the service's Origin, then back to the page.
    let leave = "/ann/mono/-/app/branches/second/queue/leave?from=queue";
    let r = c
        .app
        .post_form(&cookie, "https://evil.example", leave, &[])
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER, "back, with the refusal");
    assert_eq!(entry(&c, &two).await["state"], "testing");
    let r = c.app.post_form(&cookie, c.app.origin(), leave, &[]).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], page);
    let e = entry(&c, &two).await;
    assert_eq!(
        (e["state"].as_str(), e["reason"].as_str()),
        (Some("left"), Some("by_hand"))
    );
    let html = c
        .app
        .get_page(Some(&cookie), page)
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("taken out by hand"), "{html}");

    // An outsider gets the 404 page, and a stranger's form changes nothing.
    let eve = c
        .app
        .bootstrap(json!({"email": "eve@example.com", "login": "eve", "password": "a long enough password"}))
        .await;
    drop(eve);
    let stranger = c.app.sign_in("eve", "a long enough password").await;
    let r = c.app.get_page(Some(&stranger), page).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = c
        .app
        .post_form(
            &stranger,
            c.app.origin(),
            "/ann/mono/-/app/branches/first/queue/leave",
            &[],
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(entry(&c, &one).await["state"], "testing");
}
