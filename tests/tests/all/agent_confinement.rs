//! What a runner cannot do: make the server run its programs outside the sandbox (git
//! over the files it wrote), drive sessions with its credential, or name another agent
//! than its own in what it records.

use std::path::Path;
use std::time::Duration;

use reqwest::multipart::{Form, Part};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::{expect_error, expect_json};

use super::agents::{M, launch, running, settled, with_main};

/// The program a runner plants: it notes its name (the link it runs as) in `$HOME/ran`,
/// tries to write `escaped` in a host folder the sandbox does not show, and leaves a
/// process behind. As a filter it passes its input through.
fn planted(outside: &Path, sleep: &str) -> String {
    format!(
        r#"#!/bin/sh
me=$(basename "$0")
echo "$me" >> "$HOME/ran"
echo "$me" > {outside}/escaped
setsid sleep {sleep} </dev/null >/dev/null 2>&1 &
case "$me" in filter|textconv) cat "$@" ;; esac
exit 0
"#,
        outside = outside.display()
    )
}

/// A runner that on its first run plants `evil` where git finds programs to run: with
/// the prompt `local`, through HOME's configuration (an `include.path` naming a file that
/// sets `core.fsmonitor`), filter and diff drivers named by attributes, and hooks; with
/// `remote`, through the checkout's configuration (`core.fsmonitor`, and an `ext::`
/// remote with `protocol.ext.allow=always`). Later runs only answer.
fn planter(evil: &str) -> String {
    format!(
        r#"#!/bin/sh
told=$(cat)
n=$(cat "$HOME/runs" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$HOME/runs"
if [ "$n" -gt 1 ]; then echo "run $n"; exit 0; fi
cat > "$HOME/evil" <<'EVIL'
{evil}EVIL
chmod +x "$HOME/evil"
for v in fsmonitor-home fsmonitor-work filter textconv diff post-merge post-checkout ext; do
  ln -s "$HOME/evil" "$HOME/$v"
done
case "$told" in
local)
  printf '[include]\n\tpath = %s/included\n' "$HOME" > "$HOME/.gitconfig"
  printf '[core]\n\tfsmonitor = %s/fsmonitor-home\n' "$HOME" > "$HOME/included"
  git config filter.evil.smudge "$HOME/filter"
  git config filter.evil.clean "$HOME/filter"
  git config diff.evil.textconv "$HOME/textconv"
  git config diff.evil.command "$HOME/diff"
  echo '* filter=evil diff=evil' > .git/info/attributes
  mkdir -p .git/hooks
  ln -s "$HOME/post-merge" .git/hooks/post-merge
  ln -s "$HOME/post-checkout" .git/hooks/post-checkout
  ;;
remote)
  git config core.fsmonitor "$HOME/fsmonitor-work"
  git config protocol.ext.allow always
  git config remote.origin.url "ext::$HOME/ext"
  ;;
esac
echo planted
"#
    )
}

/// Whether a process with `marker` in its command line is still there, after a moment
/// for the kernel to finish killing it.
async fn left_running(marker: &str) -> bool {
    for _ in 0..20 {
        if !running(marker) {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    true
}

#[tokio::test]
async fn git_over_what_a_runner_wrote_runs_only_in_its_sandbox() {
    let outside = tempfile::tempdir().unwrap();
    let sleep = "3141.59";
    let evil = planted(outside.path(), sleep);
    let (c, _dir) = with_main("", &planter(&evil), "svc-jsonl").await;
    let (app, ann) = (&c.app, &c.token);

    for (n, vectors) in ["local", "remote"].into_iter().enumerate() {
        let branch = format!("planted-{n}");
        let s = launch(app, ann, json!({"prompt": vectors, "branch": branch})).await;
        let id = s["id"].as_str().unwrap().to_owned();
        let s = settled(app, ann, &id).await;
        assert_eq!(s["state"], "idle", "{vectors}: {s}");
        let home = app.config.data_dir.join("agents").join(&id).join("home");
        assert!(home.join("evil").exists(), "{vectors}: the runner planted");

        // Someone else moves the branch on, so the next run's checkout has to change.
        c.git.ok(&c.work, &["fetch", "-q", "origin", &branch]);
        c.git
            .ok(&c.work, &["checkout", "-q", "-B", &branch, "FETCH_HEAD"]);
        c.git.commit(&c.work, "Move on", &[("more.txt", b"more\n")]);
        c.git.ok(&c.work, &["push", "-q", "origin", &branch]);

        let r = app
            .as_user(Method::POST, &format!("{M}/agents/{id}/messages"), ann)
            .json(&json!({"message": "Carry on"}))
            .send()
            .await
            .unwrap();
        let _: Value = expect_json(r, StatusCode::ACCEPTED).await;
        let s = settled(app, ann, &id).await;
        assert_eq!(s["state"], "idle", "{vectors}: {s}");

        let ran = std::fs::read_to_string(home.join("ran")).unwrap_or_default();
        assert!(
            !outside.path().join("escaped").exists(),
            "{vectors}: a planted program ran on the host (it ran as: {ran:?})"
        );
        assert!(
            !left_running(sleep).await,
            "{vectors}: a planted program's process outlived the run"
        );
        if vectors == "local" {
            // The checkout was brought up to date, in the sandbox, where the planted
            // hook ran harmlessly.
            assert!(ran.contains("post-merge"), "{ran:?}");
            let work = home.with_file_name("work");
            assert_eq!(std::fs::read(work.join("more.txt")).unwrap(), b"more\n");
        }
    }
}

/// A runner that pushes its work claiming to be another agent, hands its credential to
/// the test and waits until told to end.
const HANDS_OVER: &str = r#"#!/bin/sh
cat > /dev/null
echo work > WORK.md
git add WORK.md && git commit -q -m "Work" && git -c 'http.extraHeader=X-Svc-Agent: mallory' push -q 2>"$HOME/push.err"
echo "$SVC_TOKEN" > "$HOME/token.part" && mv "$HOME/token.part" "$HOME/token"
while [ ! -e "$HOME/go" ]; do sleep 0.1; done
echo done
"#;

#[tokio::test]
async fn a_sessions_credential_drives_no_session_and_records_its_own_agent() {
    let (c, dir) = with_main("", HANDS_OVER, "svc-jsonl").await;
    let (app, ann) = (&c.app, &c.token);
    let s = launch(app, ann, json!({"prompt": "Work.", "branch": "work"})).await;
    let id = s["id"].as_str().unwrap().to_owned();
    let home = app.config.data_dir.join("agents").join(&id).join("home");
    let mut token = None;
    for _ in 0..400 {
        if let Ok(t) = std::fs::read_to_string(home.join("token")) {
            token = Some(t.trim().to_owned());
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let agent = token.expect("the runner handed its credential over");
    let call = |method: Method, path: &str| app.as_user(method, path, &agent);

    // Only people start and steer sessions: not this one, not another.
    for (path, body) in [
        (
            format!("{M}/agents/{id}/messages"),
            json!({"message": "Again"}),
        ),
        (format!("{M}/agents/{id}/stop"), json!({})),
        (
            format!("{M}/agents"),
            json!({"prompt": "Nested.", "branch": "nested"}),
        ),
        // Only a chat's credential starts its own `assistant/` branch, not a task's.
        (
            format!("{M}/agents"),
            json!({"prompt": "Nested.", "branch": "assistant/nested"}),
        ),
        (
            format!("{M}/chats"),
            json!({"message": "Hello.", "repo": "app"}),
        ),
        (
            format!("{M}/repos/app/branches/work/review-agent"),
            json!({}),
        ),
    ] {
        let r = call(Method::POST, &path).json(&body).send().await.unwrap();
        expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    }
    let issue: Value = expect_json(
        call(Method::POST, &format!("{M}/issues"))
            .json(&json!({"title": "Found while working"}))
            .send()
            .await
            .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    let number = issue["number"].as_i64().unwrap();
    let r = call(Method::POST, &format!("{M}/issues/{number}/agent"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;

    // Whatever X-Svc-Agent says, the server records the session's agent (`r`).
    let lying = |rb: reqwest::RequestBuilder| rb.header("X-Svc-Agent", "mallory");
    let _: Value = expect_json(
        lying(call(Method::POST, &format!("{M}/issues/{number}/comments")))
            .json(&json!({"body": "On it."}))
            .send()
            .await
            .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    let _: Value = expect_json(
        lying(call(Method::POST, &format!("{M}/repos/app/branches")))
            .json(&json!({"name": "side", "from": "main"}))
            .send()
            .await
            .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    let head = app
        .get_json(ann, &format!("{M}/repos/app/branches/work"))
        .await["head"]
        .as_str()
        .unwrap()
        .to_owned();
    let _: Value = expect_json(
        lying(call(
            Method::POST,
            &format!("{M}/repos/app/statuses/{head}"),
        ))
        .json(&json!({"context": "ci/test", "state": "success"}))
        .send()
        .await
        .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    // An agent never approves, whatever kind of session it is.
    let reviews = format!("{M}/repos/app/branches/work/reviews");
    let r = call(Method::POST, &reviews)
        .json(&json!({"state": "approve", "body": ""}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "agent_cannot_approve").await;
    let review: Value = expect_json(
        call(Method::POST, &reviews)
            .json(&json!({"state": "comment", "body": "Reads well."}))
            .send()
            .await
            .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(review["agent"], "r", "{review}");
    let form = Form::new().part(
        "file",
        Part::bytes(b"# Notes\n".to_vec()).file_name("notes.md"),
    );
    let _: Value = expect_json(
        lying(call(
            Method::POST,
            &format!("{M}/repos/app/branches/work/artifacts"),
        ))
        .multipart(form)
        .send()
        .await
        .unwrap(),
        StatusCode::CREATED,
    )
    .await;
    let merged: Value = expect_json(
        lying(call(
            Method::POST,
            &format!("{M}/repos/app/branches/work/merge"),
        ))
        .send()
        .await
        .unwrap(),
        StatusCode::OK,
    )
    .await;
    let branch = app
        .get_json(ann, &format!("{M}/repos/app/branches/work"))
        .await;
    assert_eq!(branch["state"], "merged", "{merged} {branch}");
    assert_eq!(branch["merged_agent"], "r", "{branch}");

    // Every event the credential caused names `r`, and none `mallory`.
    let events = app.get_json(ann, &format!("{M}/events?limit=200")).await;
    let by_session: Vec<&Value> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] != "agent.updated" && e["actor"] == "ann")
        .collect();
    let kinds: Vec<&str> = by_session
        .iter()
        .filter(|e| e["agent"] == "r")
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    for kind in [
        "push",
        "issue.opened",
        "issue.commented",
        "branch.opened",
        "status",
        "review",
        "artifact.added",
        "merged",
    ] {
        assert!(kinds.contains(&kind), "no {kind} by agent r in {kinds:?}");
    }
    assert!(!events.to_string().contains("mallory"), "{events}");

    std::fs::write(home.join("go"), "").unwrap();
    assert_eq!(settled(app, ann, &id).await["state"], "idle");
    drop(dir);
}
