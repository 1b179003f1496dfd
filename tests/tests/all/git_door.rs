//! The git door with the real git client: clone, push, the push rules, who may do what.

use std::io::Write;

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::git::{Git, all_output};
use svc_tests::{TestApp, expect_error, expect_json};

struct Fixture {
    app: TestApp,
    token: String,
    git: Git,
    url: String,
}

/// A person with monorepo `ann/mono` holding an empty repo at `services/app`.
async fn fixture() -> Fixture {
    let app = TestApp::start().await;
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    app.monorepo(&token, json!({"name": "mono"})).await;
    let repo = app.repo(&token, "ann/mono", "services/app").await;
    let url = repo["clone_url"].as_str().unwrap().to_owned();
    let git = Git::new(&token);
    Fixture {
        app,
        token,
        git,
        url,
    }
}

async fn events(f: &Fixture) -> Vec<Value> {
    f.app
        .get_json(&f.token, "/v1/monorepos/ann/mono/events")
        .await["items"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn first_push_creates_main_and_later_pushes_to_main_are_refused() {
    let f = fixture().await;
    let work = f.git.path("work");
    let out = f
        .git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    assert!(out.is_empty());
    let first = f.git.commit(&work, "first", &[("README.md", b"hello\n")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    let heads = f
        .app
        .get_json(&f.token, "/v1/monorepos/ann/mono/heads")
        .await;
    assert_eq!(heads["heads"][0]["head"], first.as_str());
    // The repo's creation, then main's first push, both in main's collection.
    let ev = events(&f).await;
    assert_eq!(ev.len(), 2);
    assert_eq!(
        (ev[0]["kind"].as_str(), ev[0]["collection"].as_str()),
        (Some("repo.created"), Some("default_heads"))
    );
    assert_eq!(ev[0]["row"]["default_head"], Value::Null, "{}", ev[0]);
    let ev = &ev[1..];
    assert_eq!(
        (ev[0]["kind"].as_str(), ev[0]["collection"].as_str()),
        (Some("push"), Some("default_heads"))
    );
    assert_eq!(
        ev[0]["row"],
        json!({"repo": "services-app", "default_branch": "main", "default_head": first})
    );
    assert_eq!(ev[0]["actor"], "ann");
    assert_eq!(heads["seq"], ev[0]["seq"]);

    // A second push to main is refused with a message, and nothing lands.
    f.git
        .commit(&work, "second", &[("README.md", b"changed\n")]);
    let out = f.git.run(&work, &["push", "origin", "main"]);
    let text = all_output(&out);
    assert!(!out.status.success());
    assert!(
        text.contains("! [remote rejected] main -> main (main moves only by merges)"),
        "{text}"
    );
    assert!(
        text.contains("remote: svc: pushes to main are refused"),
        "{text}"
    );
    let remote = f.git.ok(&work, &["ls-remote", "origin", "refs/heads/main"]);
    assert!(remote.starts_with(&first), "main did not move: {remote}");
    assert_eq!(
        events(&f).await.len(),
        2,
        "the repo's creation and main's first push"
    );
}

#[tokio::test]
async fn branches_open_move_and_delete_with_events() {
    let f = fixture().await;
    let work = f.git.path("work");
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    let base = f.git.commit(&work, "base", &[("a.txt", b"a\n")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    f.git.ok(&work, &["checkout", "-q", "-b", "feature/x"]);
    let one = f.git.commit(&work, "one", &[("b.txt", b"b\n")]);
    f.git.ok(&work, &["push", "-q", "origin", "feature/x"]);
    let two = f.git.commit(&work, "two", &[("b.txt", b"bb\n")]);
    f.git.ok(&work, &["push", "-q", "origin", "feature/x"]);
    f.git
        .ok(&work, &["push", "-q", "origin", "--delete", "feature/x"]);
    let all = events(&f).await;
    let seqs: Vec<i64> = all.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert_eq!(
        seqs,
        (1..=all.len() as i64).collect::<Vec<_>>(),
        "gap-free seqs"
    );
    // Facts computations (`branch.updated`) interleave; the ref events are in order.
    let ev: Vec<Value> = all
        .into_iter()
        .filter(|e| e["kind"] != "branch.updated")
        .collect();
    let kinds: Vec<&str> = ev.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "repo.created",
            "push",
            "branch.opened",
            "push",
            "branch.deleted"
        ]
    );
    let ev = &ev[1..];
    assert_eq!(
        (ev[1]["before"].as_str(), ev[1]["head"].as_str()),
        (Some("0".repeat(40).as_str()), Some(one.as_str()))
    );
    assert_eq!(ev[1]["key"], "services-app/feature/x");
    assert_eq!(ev[1]["partial"], true);
    assert_eq!(ev[1]["row"]["author"], "ann");
    assert_eq!(
        (ev[2]["before"].as_str(), ev[2]["head"].as_str()),
        (Some(one.as_str()), Some(two.as_str()))
    );
    assert_eq!(
        (ev[3]["op"].as_str(), ev[3]["before"].as_str()),
        (Some("delete"), Some(two.as_str()))
    );
    let _ = base;
}

#[tokio::test]
async fn protocol_v0_and_v2_clients_and_plain_repo_urls() {
    let f = fixture().await;
    let work = f.git.path("work");
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    let head = f.git.commit(&work, "c", &[("x/y.txt", b"y\n")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    for version in ["0", "2"] {
        let dir = format!("v{version}");
        let out = f
            .git
            .command(f.git.home.path())
            .args([
                "-c",
                &format!("protocol.version={version}"),
                "clone",
                "-q",
                &f.url,
                &dir,
            ])
            .env("GIT_TRACE_PACKET", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", all_output(&out));
        let trace = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            trace.contains("version 2"),
            version == "2",
            "protocol v{version} was spoken"
        );
        assert_eq!(
            f.git.ok(&f.git.path(&dir), &["rev-parse", "HEAD"]).trim(),
            head
        );
    }

    // A plain repo lives at /<owner>/<name>.git.
    let plain = f
        .app
        .monorepo(&f.token, json!({"name": "tool", "kind": "repo"}))
        .await;
    let url = f
        .app
        .get_json(&f.token, "/v1/monorepos/ann/tool/repos/tool")
        .await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(url, f.app.url("/ann/tool.git"));
    f.git.ok(f.git.home.path(), &["clone", "-q", &url, "tool"]);
    let tool = f.git.path("tool");
    let c = f.git.commit(&tool, "t", &[("t.txt", b"t\n")]);
    f.git.ok(&tool, &["push", "-q", "origin", "main"]);
    let heads = f
        .app
        .get_json(&f.token, "/v1/monorepos/ann/tool/heads")
        .await;
    assert_eq!(heads["heads"][0]["head"], c.as_str());
    // A monorepo's repo path is not a plain repo URL, and the other way round.
    let out = f.git.run(
        f.git.home.path(),
        &["ls-remote", &f.app.url("/ann/mono.git")],
    );
    assert!(!out.status.success());
    let out = f.git.run(
        f.git.home.path(),
        &["ls-remote", &f.app.url("/ann/tool/tool.git")],
    );
    assert!(!out.status.success());
    let _ = plain;
}

#[tokio::test]
async fn outsiders_and_missing_credentials() {
    let f = fixture().await;
    let work = f.git.path("work");
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    f.git.commit(&work, "c", &[("a", b"a")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);

    // No credential: 401 with Basic, so git asks its credential helper.
    let r = f
        .app
        .client
        .get(format!("{}/info/refs?service=git-upload-pack", f.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert!(
        r.headers()[header::WWW_AUTHENTICATE]
            .to_str()
            .unwrap()
            .starts_with("Basic")
    );
    // The credential works as Bearer too.
    let r = f
        .app
        .client
        .get(format!("{}/info/refs?service=git-upload-pack", f.url))
        .bearer_auth(&f.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        r.headers()[header::CONTENT_TYPE],
        "application/x-git-upload-pack-advertisement"
    );
    assert!(
        r.text()
            .await
            .unwrap()
            .starts_with("001e# service=git-upload-pack\n0000")
    );

    // Someone else can neither read nor push.
    let stranger = f
        .app
        .bootstrap(json!({"email": "eve@example.com"}))
        .await
        .credential
        .token;
    let eve = Git::new(&stranger);
    let out = eve.run(eve.home.path(), &["clone", "-q", &f.url, "stolen"]);
    assert!(!out.status.success());
    assert!(
        all_output(&out).contains("not found"),
        "{}",
        all_output(&out)
    );
    f.git.set_token(&stranger);
    f.git.ok(&work, &["checkout", "-q", "-b", "evil"]);
    let out = f.git.run(&work, &["push", "origin", "evil"]);
    assert!(!out.status.success());
    f.git.set_token("svc_revoked_or_wrong");
    let out = f.git.run(&work, &["fetch", "origin"]);
    assert!(!out.status.success(), "a bad credential is refused");
    assert!(
        events(&f)
            .await
            .iter()
            .all(|e| e["kind"] != "branch.opened")
    );
}

#[tokio::test]
async fn a_renamed_monorepo_answers_at_its_old_url() {
    let f = fixture().await;
    let work = f.git.path("work");
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    let c = f.git.commit(&work, "c", &[("a", b"a")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    let r = f
        .app
        .as_user(Method::PATCH, "/v1/monorepos/ann/mono", &f.token)
        .json(&json!({"name": "renamed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "old-url"]);
    assert_eq!(
        f.git
            .ok(&f.git.path("old-url"), &["rev-parse", "HEAD"])
            .trim(),
        c
    );
    f.git.ok(&work, &["checkout", "-q", "-b", "after-rename"]);
    f.git.commit(&work, "d", &[("b", b"b")]);
    f.git.ok(&work, &["push", "-q", "origin", "after-rename"]);
    let new_url = f
        .app
        .get_json(&f.token, "/v1/monorepos/ann/renamed/repos/services-app")
        .await["clone_url"]
        .clone();
    assert_eq!(new_url, f.app.url("/ann/renamed/services-app.git"));
}

/// The attack of issue 13: bob makes alice an owner of his monorepo (no consent needed)
/// and transfers it onto `alice/proj`, a label alice renamed away from. Her alias stays
/// hers: her clone keeps fetching her monorepo and her pushes land in it.
#[tokio::test]
async fn an_alias_is_not_taken_over_by_someone_else() {
    let app = TestApp::start().await;
    let alice = app
        .bootstrap(json!({"email": "alice@example.com"}))
        .await
        .credential
        .token;
    let bob = app
        .bootstrap(json!({"email": "bob@example.com"}))
        .await
        .credential
        .token;
    let (ag, bg) = (Git::new(&alice), Git::new(&bob));
    app.monorepo(&alice, json!({"name": "proj"})).await;
    let url = app.repo(&alice, "alice/proj", "services/app").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let mine = ag.path("mine");
    ag.ok(ag.home.path(), &["clone", "-q", &url, "mine"]);
    let hers = ag.commit(&mine, "alice's", &[("a", b"alice")]);
    ag.ok(&mine, &["push", "-q", "origin", "main"]);
    let rename = app
        .as_user(Method::PATCH, "/v1/monorepos/alice/proj", &alice)
        .json(&json!({"name": "proj2"}))
        .send()
        .await
        .unwrap();
    assert_eq!(rename.status(), StatusCode::OK);

    app.monorepo(&bob, json!({"name": "evil"})).await;
    let bob_url = app.repo(&bob, "bob/evil", "services/app").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let theirs = bg.path("theirs");
    bg.ok(bg.home.path(), &["clone", "-q", &bob_url, "theirs"]);
    bg.commit(&theirs, "bob's", &[("a", b"bob")]);
    bg.ok(&theirs, &["push", "-q", "origin", "main"]);
    let r = app
        .as_user(Method::PUT, "/v1/monorepos/bob/evil/members/alice", &bob)
        .json(&json!({"role": "owner"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    for body in [
        json!({"owner": "alice", "name": "proj"}),
        json!({"owner": "alice", "name": "proj2"}),
    ] {
        let r = app
            .as_user(Method::PATCH, "/v1/monorepos/bob/evil", &bob)
            .json(&body)
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::CONFLICT, "monorepo_exists").await;
    }

    // Alice's clone, at the old URL, still reaches her monorepo both ways.
    ag.ok(&mine, &["fetch", "-q", "origin"]);
    assert_eq!(
        ag.ok(&mine, &["rev-parse", "origin/main"]).trim(),
        hers,
        "her clone fetches her main"
    );
    ag.ok(&mine, &["checkout", "-q", "-b", "after"]);
    ag.commit(&mine, "more", &[("b", b"b")]);
    ag.ok(&mine, &["push", "-q", "origin", "after"]);
    let branches = |label: &str| {
        let path = format!("/v1/monorepos/{label}/repos/services-app/branches");
        let token = alice.clone();
        let app = &app;
        async move {
            app.get_json(&token, &path).await["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["name"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        branches("alice/proj2").await,
        ["after"],
        "the push landed in hers"
    );
    assert!(branches("bob/evil").await.is_empty(), "and not in bob's");

    // Alice's own action still takes her alias over (core rule 2).
    let r = app
        .as_user(Method::PATCH, "/v1/monorepos/bob/evil", &alice)
        .json(&json!({"owner": "alice", "name": "proj"}))
        .send()
        .await
        .unwrap();
    let taken: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(
        (
            taken["full_name"].as_str(),
            taken["replaced_alias"].as_str()
        ),
        (Some("alice/proj"), Some("alice/proj"))
    );
}

#[tokio::test]
async fn a_push_over_64_mib_is_refused_and_nothing_lands() {
    let f = fixture().await;
    let work = f.git.path("work");
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    f.git.commit(&work, "base", &[("a", b"a")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    f.git.ok(&work, &["checkout", "-q", "-b", "big"]);
    // 65 MiB that does not compress.
    let mut blob = vec![0u8; 65 * 1024 * 1024];
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for chunk in blob.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
    }
    std::fs::File::create(work.join("big.bin"))
        .unwrap()
        .write_all(&blob)
        .unwrap();
    f.git.ok(&work, &["add", "big.bin"]);
    f.git.ok(&work, &["commit", "-q", "-m", "big"]);
    let out = f.git.run(&work, &["push", "origin", "big"]);
    let text = all_output(&out);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("push over 64 MiB") && text.contains("push in steps"),
        "{text}"
    );
    assert!(
        f.git
            .ok(&work, &["ls-remote", "origin"])
            .lines()
            .all(|l| !l.ends_with("refs/heads/big"))
    );
    assert!(
        events(&f)
            .await
            .iter()
            .all(|e| e["kind"] != "branch.opened")
    );
    // The process's spool folder stays; the push's spool in it is gone.
    let spools: Vec<_> = std::fs::read_dir(f.app.data_dir.path().join("tmp"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .map(|e| e.path())
        .collect();
    assert!(spools.is_empty(), "the spool is gone: {spools:?}");
}

#[tokio::test]
async fn concurrent_pushes_to_one_repo_all_land() {
    let f = fixture().await;
    let work = f.git.path("work");
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    f.git.commit(&work, "base", &[("a", b"a")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    let mut heads = Vec::new();
    for i in 0..6 {
        f.git
            .ok(&work, &["checkout", "-q", "-B", &format!("b{i}"), "main"]);
        // Over git's unpack limit (100 objects), so each push is kept as a pack.
        let files: Vec<(String, Vec<u8>)> = (0..120)
            .map(|n| (format!("b{i}/f{n}"), format!("{i}-{n}").into_bytes()))
            .collect();
        let files: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_slice()))
            .collect();
        heads.push(f.git.commit(&work, &format!("c{i}"), &files));
    }
    let pushes: Vec<_> = (0..6)
        .map(|i| {
            f.git
                .command(&work)
                .args(["push", "-q", "origin", &format!("b{i}")])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut p in pushes {
        assert!(p.wait().unwrap().success());
    }
    let ev = events(&f).await;
    for (i, head) in heads.iter().enumerate() {
        let opened = ev
            .iter()
            .find(|e| e["key"] == format!("services-app/b{i}"))
            .expect("branch recorded");
        assert_eq!(opened["head"], head.as_str());
    }
    // Six kept packs: the server repacks them into one, with a bitmap.
    let repos = f.app.data_dir.path().join("repos");
    let mut bitmapped = false;
    for _ in 0..200 {
        bitmapped = std::fs::read_dir(&repos).unwrap().any(|r| {
            let packs = r.unwrap().path().join("objects/pack");
            std::fs::read_dir(packs)
                .unwrap()
                .any(|p| p.unwrap().path().extension().is_some_and(|x| x == "bitmap"))
        });
        if bitmapped {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(bitmapped, "the repo was repacked with a bitmap");
}

#[tokio::test]
async fn gzip_request_bodies_are_read() {
    let f = fixture().await;
    let work = f.git.path("work");
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    let head = f.git.commit(&work, "c", &[("a", b"a")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    // A protocol v2 ls-refs request, gzipped as git does with large requests.
    let request = b"0014command=ls-refs\n00010000";
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(request).unwrap();
    let gz = enc.finish().unwrap();
    let r = f
        .app
        .client
        .post(format!("{}/git-upload-pack", f.url))
        .bearer_auth(&f.token)
        .header("git-protocol", "version=2")
        .header(
            header::CONTENT_TYPE,
            "application/x-git-upload-pack-request",
        )
        .header(header::CONTENT_ENCODING, "gzip")
        .body(gz)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let body = r.text().await.unwrap();
    assert!(body.contains(&format!("{head} refs/heads/main")), "{body}");
    let r = f
        .app
        .client
        .post(format!("{}/git-upload-pack", f.url))
        .bearer_auth(&f.token)
        .header("git-protocol", "version=2;rm -rf")
        .body(&request[..])
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "a bad Git-Protocol header is dropped, not passed to git"
    );
}

#[tokio::test]
async fn gzip_bodies_that_are_not_gzip_or_cut_short_are_400() {
    let f = fixture().await;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(b"0014command=ls-refs\n00010000").unwrap();
    let gz = enc.finish().unwrap();
    let cut = gz[..gz.len() - 6].to_vec();
    for (service, body) in [
        ("git-upload-pack", b"not gzip at all".to_vec()),
        ("git-upload-pack", cut.clone()),
        ("git-receive-pack", b"not gzip at all".to_vec()),
        ("git-receive-pack", cut),
    ] {
        let r = f
            .app
            .client
            .post(format!("{}/{service}", f.url))
            .bearer_auth(&f.token)
            .header("git-protocol", "version=2")
            .header(
                header::CONTENT_TYPE,
                format!("application/x-{service}-request"),
            )
            .header(header::CONTENT_ENCODING, "gzip")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{service}");
        let ct = r.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(ct.starts_with("text/plain"), "{ct}");
        let text = r.text().await.unwrap();
        assert!(
            text.starts_with("svc: the request body could not be read"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn refs_git_has_but_the_database_missed_are_recorded_at_start() {
    let mut f = fixture().await;
    let work = f.git.path("work");
    f.git
        .ok(f.git.home.path(), &["clone", "-q", &f.url, "work"]);
    let head = f.git.commit(&work, "c", &[("a", b"a")]);
    f.git.ok(&work, &["push", "-q", "origin", "main"]);
    // A crash between git's ref update and its recording: git has a branch the DB lacks.
    let repos = f.app.data_dir.path().join("repos");
    let bare = std::fs::read_dir(&repos)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            f.git
                .run(p, &["rev-parse", "--verify", "-q", "refs/heads/main"])
                .status
                .success()
        })
        .unwrap();
    f.git.ok(&bare, &["update-ref", "refs/heads/sneaky", &head]);
    f.app.restart().await;
    let mut found = None;
    for _ in 0..100 {
        found = events(&f)
            .await
            .into_iter()
            .find(|e| e["key"] == "services-app/sneaky");
        if found.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let found = found.expect("the start-up pass recorded the branch");
    assert_eq!(
        (found["kind"].as_str(), found["head"].as_str()),
        (Some("branch.opened"), Some(head.as_str()))
    );
}
