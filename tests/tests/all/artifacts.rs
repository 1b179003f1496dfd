//! Artifacts on a branch end to end: uploads and their refusals, versions, files and the
//! rendered document under the sandbox policy, delete.

use reqwest::multipart::{Form, Part};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::{expect_error, expect_json};

const B: &str = "/v1/monorepos/ann/mono/repos/app/branches/feat/docs";

/// The smallest PNG: the signature and an IHDR, enough for a type check.
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

async fn world() -> svc_tests::Cloned {
    let c = svc_tests::Cloned::new("mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"a\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    c.git.ok(&c.work, &["checkout", "-q", "-b", "feat/docs"]);
    c.git.commit(&c.work, "docs", &[("b.txt", b"b\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "feat/docs"]);
    c
}

fn part(name: &str, bytes: &[u8]) -> Part {
    Part::bytes(bytes.to_vec()).file_name(name.to_owned())
}

async fn upload(c: &svc_tests::Cloned, form: Form) -> reqwest::Response {
    c.app
        .as_user(Method::POST, &format!("{B}/artifacts"), &c.token)
        .multipart(form)
        .send()
        .await
        .unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

#[tokio::test]
async fn a_document_with_its_images_is_versioned_and_served_sandboxed() {
    let c = world().await;
    let doc = b"# Design\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![arch](img/arch.png) ![gone](img/missing.png)\n";
    let form = Form::new()
        .part("file", part("design.md", doc))
        .part("image", part("img/arch.png", PNG));
    let made: Value = expect_json(upload(&c, form).await, StatusCode::CREATED).await;
    assert_eq!(made["name"], "design.md");
    assert_eq!(made["kind"], "document");
    assert_eq!(made["branch"], "feat/docs");
    let v1 = &made["versions"][0];
    assert_eq!(v1["n"], 1);
    assert_eq!(v1["sha256"], sha256(doc));
    assert_eq!(v1["files"][1]["path"], "img/arch.png");
    assert_eq!(v1["files"][1]["content_type"], "image/png");

    // The same name uploads the next version; the list shows the newest only.
    let doc2 = b"# Design v2\n\n![arch](img/arch.png)\n";
    let form = Form::new()
        .part("file", part("design.md", doc2))
        .part("image", part("img/arch.png", PNG));
    let v2: Value = expect_json(upload(&c, form).await, StatusCode::CREATED).await;
    assert_eq!(v2["versions"].as_array().unwrap().len(), 2);
    assert_eq!(v2["id"], made["id"]);
    let list = c.app.get_json(&c.token, &format!("{B}/artifacts")).await;
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    assert_eq!(list["items"][0]["versions"][0]["n"], 2);
    let one = c
        .app
        .get_json(&c.token, &format!("{B}/artifacts/design.md"))
        .await;
    assert_eq!(one["versions"].as_array().unwrap().len(), 2);

    // A file: its type, the sandbox, its digest; the raw slash in its path works too.
    let r = c
        .app
        .as_user(
            Method::GET,
            &format!("{B}/artifacts/design.md/versions/1/files/img/arch.png"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(
        r.headers()["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    assert_eq!(r.headers()["x-content-type-options"], "nosniff");
    assert_eq!(r.headers()["x-svc-sha256"].to_str().unwrap(), sha256(PNG));
    assert_eq!(&r.bytes().await.unwrap()[..], PNG);

    // The document: Markdown rendered, its own image inlined, a missing one as written.
    let r = c
        .app
        .as_user(
            Method::GET,
            &format!("{B}/artifacts/design.md/versions/1/document"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        r.headers()["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    assert_eq!(r.headers()["x-content-type-options"], "nosniff");
    let html = r.text().await.unwrap();
    assert!(html.contains("<table>"), "{html}");
    use base64::Engine;
    let data = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(PNG)
    );
    assert!(html.contains(&data), "{html}");
    assert!(html.contains("img/missing.png"), "{html}");
    let r = c
        .app
        .as_user(
            Method::GET,
            &format!("{B}/artifacts/design.md/versions/3/document"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // An image artifact answers its image as its document.
    let form = Form::new().part("file", part("shot.png", PNG));
    expect_json::<Value>(upload(&c, form).await, StatusCode::CREATED).await;
    let r = c
        .app
        .as_user(
            Method::GET,
            &format!("{B}/artifacts/shot.png/versions/1/document"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(
        r.headers()["content-security-policy"],
        "sandbox; default-src 'none'; frame-ancestors 'none'"
    );
    assert_eq!(r.headers()["x-content-type-options"], "nosniff");

    // Delete: every version and its bytes go, with an event.
    let r = c
        .app
        .as_user(
            Method::DELETE,
            &format!("{B}/artifacts/design.md"),
            &c.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = c
        .app
        .as_user(Method::GET, &format!("{B}/artifacts/design.md"), &c.token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let folder = c
        .app
        .data_dir
        .path()
        .join("artifacts")
        .join(made["id"].as_str().unwrap());
    assert!(!folder.exists(), "its bytes are gone");
    let events = c
        .app
        .get_json(&c.token, "/v1/monorepos/ann/mono/events?kinds=artifact.added,artifact.versioned,artifact.deleted")
        .await;
    let kinds: Vec<&str> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "artifact.added",
            "artifact.versioned",
            "artifact.added",
            "artifact.deleted"
        ]
    );
}

#[tokio::test]
async fn every_refusal_has_its_code() {
    let c = world().await;
    let refused = async |form: Form, status: StatusCode, code: &str| {
        expect_error(upload(&c, form).await, status, code).await
    };
    // Kinds, names and paths.
    refused(
        Form::new().part("file", part("run.sh", b"echo")),
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    refused(
        Form::new()
            .part("file", part("d.md", b"x"))
            .part("image", part("../up.png", PNG)),
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    refused(
        Form::new()
            .part("file", part("d.md", b"x"))
            .part("image", part("/abs.png", PNG)),
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    // An image's bytes must be its type.
    refused(
        Form::new().part("file", part("fake.png", b"GIF89a....")),
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    refused(Form::new(), StatusCode::BAD_REQUEST, "bad_request").await;
    // 20 files at most.
    let mut form = Form::new().part("file", part("d.md", b"x"));
    for i in 0..20 {
        form = form.part("image", part(&format!("i{i}.png"), PNG));
    }
    refused(form, StatusCode::BAD_REQUEST, "too_many_files").await;
    // A document is at most 1.5 MiB; an upload 10 MiB in all.
    let big = vec![b'a'; 1024 * 1024 * 3 / 2 + 1];
    refused(
        Form::new().part("file", part("d.md", &big)),
        StatusCode::PAYLOAD_TOO_LARGE,
        "too_large",
    )
    .await;
    // One byte over 10 MiB of files (the framing fits the header's allowance, so the
    // count is made as the bytes come).
    let mut png = PNG.to_vec();
    png.resize(5 * 1024 * 1024, 0);
    refused(
        Form::new()
            .part("file", part("d.md", b"x"))
            .part("image", part("a.png", &png))
            .part("image", part("b.png", &png)),
        StatusCode::PAYLOAD_TOO_LARGE,
        "too_large",
    )
    .await;
    // Content-Length is required (a chunked body); too much declared is refused at once.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = c.app.base.trim_start_matches("http://").to_owned();
    for (framing, status) in [
        ("Transfer-Encoding: chunked", "411"),
        ("Content-Length: 20000000", "413"),
    ] {
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST {B}/artifacts HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\nContent-Type: multipart/form-data; boundary=x\r\n{framing}\r\nConnection: close\r\n\r\n",
            c.token
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let mut answer = vec![0u8; 12];
        s.read_exact(&mut answer).await.unwrap();
        assert_eq!(
            String::from_utf8_lossy(&answer),
            format!("HTTP/1.1 {status}")
        );
    }
    // A branch the repo lacks; an outsider.
    let r = c
        .app
        .as_user(
            Method::POST,
            "/v1/monorepos/ann/mono/repos/app/branches/nope/artifacts",
            &c.token,
        )
        .multipart(Form::new().part("file", part("d.md", b"x")))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let eve = c
        .app
        .bootstrap(json!({"email": "eve@example.com"}))
        .await
        .credential
        .token;
    let r = c
        .app
        .as_user(Method::GET, &format!("{B}/artifacts"), &eve)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    // 100 artifacts a branch.
    for i in 0..100 {
        let form = Form::new().part("file", part(&format!("n{i}.md"), b"x"));
        let r = upload(&c, form).await;
        assert_eq!(r.status(), StatusCode::CREATED, "{i}");
    }
    refused(
        Form::new().part("file", part("one-more.md", b"x")),
        StatusCode::CONFLICT,
        "too_many_artifacts",
    )
    .await;
    // A new version of one of them still goes in.
    let r = upload(&c, Form::new().part("file", part("n3.md", b"y"))).await;
    assert_eq!(r.status(), StatusCode::CREATED);
}

/// A comment request on `name`, as `token`.
async fn comment(
    c: &svc_tests::Cloned,
    token: &str,
    name: &str,
    body: Value,
    key: Option<&str>,
) -> reqwest::Response {
    let mut r = c
        .app
        .as_user(
            Method::POST,
            &format!("{B}/artifacts/{name}/comments"),
            token,
        )
        .json(&body);
    if let Some(key) = key {
        r = r.header("idempotency-key", key);
    }
    r.send().await.unwrap()
}

#[tokio::test]
async fn comment_threads_live_and_die_as_specified() {
    let c = world().await;
    let doc = Form::new().part("file", part("plan.md", b"# Plan\n\nShip it.\n"));
    expect_json::<Value>(upload(&c, doc).await, StatusCode::CREATED).await;
    let doc = Form::new().part("file", part("plan.md", b"# Plan\n\nShip it now.\n"));
    expect_json::<Value>(upload(&c, doc).await, StatusCode::CREATED).await;
    // Bob is a member; carol is not.
    let bob = c
        .app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob"}))
        .await
        .credential
        .token;
    c.app
        .bootstrap(json!({"email": "carol@example.com", "login": "carol"}))
        .await;
    let r = c
        .app
        .as_user(Method::PUT, "/v1/monorepos/ann/mono/members/bob", &c.token)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());

    // A thread on an anchor, version defaulting to the newest; mentions of members only.
    let anchor = json!({"blockId": "p-1", "start": 0, "end": 4, "exact": "Ship", "suffix": " it"});
    let r = comment(
        &c,
        &c.token,
        "plan.md",
        json!({"body": "Why now, @bob and @carol?", "anchor": anchor}),
        Some("k1"),
    )
    .await;
    let root: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(root["version"], 2);
    assert_eq!(root["anchor"], anchor);
    assert_eq!(root["mentions"], json!(["bob"]));
    assert_eq!(root["state"], "open");
    let root_id = root["id"].as_str().unwrap().to_owned();
    // The mention shows in the activity of the monorepo's people.
    let mut line = Value::Null;
    for _ in 0..100 {
        let feed = c.app.get_json(&bob, "/v1/events").await;
        if let Some(found) = feed["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["kind"] == "artifact_comment.added")
        {
            line = found.clone();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(line["mentions"], json!(["bob"]), "{line}");
    assert_eq!(line["path"], "plan.md");
    // A retry with the key answers the first; another request with it is refused.
    let r = comment(
        &c,
        &c.token,
        "plan.md",
        json!({"body": "Why now, @bob and @carol?", "anchor": anchor}),
        Some("k1"),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["svc-replayed"], "true");
    let again: Value = r.json().await.unwrap();
    assert_eq!(again["id"], root_id.as_str());
    let r = comment(
        &c,
        &c.token,
        "plan.md",
        json!({"body": "other"}),
        Some("k1"),
    )
    .await;
    expect_error(
        r,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
    )
    .await;
    // A quote is stored as an external anchor; version 1 may be named.
    let r = comment(
        &c,
        &c.token,
        "plan.md",
        json!({"body": "old", "quote": "Ship it.", "version": 1}),
        None,
    )
    .await;
    let quoted: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(
        quoted["anchor"],
        json!({"blockId": "external", "start": 0, "end": 0, "exact": "Ship it."})
    );
    assert_eq!(quoted["version"], 1);
    // Bob replies to the thread through its root; a reply to a reply joins the root.
    let r = comment(
        &c,
        &bob,
        "plan.md",
        json!({"body": "Because.", "in_reply_to": root_id}),
        None,
    )
    .await;
    let reply: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(reply["thread"], root_id.as_str());
    assert!(reply.get("state").is_none());
    let r = comment(
        &c,
        &c.token,
        "plan.md",
        json!({"body": "Fine.", "in_reply_to": reply["id"]}),
        None,
    )
    .await;
    let reply2: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(reply2["thread"], root_id.as_str());
    let r = comment(
        &c,
        &c.token,
        "plan.md",
        json!({"body": "x", "in_reply_to": root_id, "quote": "q"}),
        None,
    )
    .await;
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;

    // Refusals: body size, mentions.
    let r = comment(
        &c,
        &c.token,
        "plan.md",
        json!({"body": "a".repeat(64 * 1024 + 1)}),
        None,
    )
    .await;
    expect_error(r, StatusCode::PAYLOAD_TOO_LARGE, "too_large").await;
    let many: String = (0..21).map(|i| format!("@p{i} ")).collect();
    let r = comment(&c, &c.token, "plan.md", json!({"body": many}), None).await;
    expect_error(r, StatusCode::BAD_REQUEST, "too_many_mentions").await;

    // Editing: only the author, and not over a newer edit.
    let url = |id: &str| format!("/v1/monorepos/ann/mono/repos/app/artifact-comments/{id}");
    let patch = |token: &str, id: &str, body: Value| {
        c.app
            .as_user(Method::PATCH, &url(id), token)
            .json(&body)
            .send()
    };
    let r = patch(&bob, &root_id, json!({"body": "hijack"}))
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "not_author").await;
    let r = patch(
        &c.token,
        &root_id,
        json!({"body": "Why now?", "base_version": 1}),
    )
    .await
    .unwrap();
    let edited: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(edited["body_version"], 2);
    let r = patch(
        &c.token,
        &root_id,
        json!({"body": "late", "base_version": 1}),
    )
    .await
    .unwrap();
    let e = expect_error(r, StatusCode::CONFLICT, "edited").await;
    assert_eq!(e["error"]["current"], "Why now?");
    // Any member resolves (through a reply, answering the root) and reopens.
    let r = patch(
        &bob,
        reply["id"].as_str().unwrap(),
        json!({"state": "resolved"}),
    )
    .await
    .unwrap();
    let resolved: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(resolved["id"], root_id.as_str());
    assert_eq!(resolved["state"], "resolved");
    let r = patch(&bob, &root_id, json!({"state": "open"}))
        .await
        .unwrap();
    assert_eq!(
        expect_json::<Value>(r, StatusCode::OK).await["state"],
        "open"
    );

    // The threads: roots oldest first with their replies; the branch's list too.
    let list = c
        .app
        .get_json(&c.token, &format!("{B}/artifacts/plan.md/threads"))
        .await;
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["root"]["id"], root_id.as_str());
    assert_eq!(items[0]["root"]["reply_count"], 2);
    assert_eq!(items[0]["replies"].as_array().unwrap().len(), 2);
    let all = c
        .app
        .get_json(&c.token, &format!("{B}/artifact-threads"))
        .await;
    assert_eq!(all["items"].as_array().unwrap().len(), 2);
    assert_eq!(all["items"][1]["artifact_name"], "plan.md");

    // Deleting: only your own; a root with replies keeps its place until its last reply.
    let del = |token: &str, id: &str| c.app.as_user(Method::DELETE, &url(id), token).send();
    let r = del(&bob, &root_id).await.unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "not_author").await;
    assert_eq!(
        del(&c.token, &root_id).await.unwrap().status(),
        StatusCode::NO_CONTENT
    );
    let kept = c.app.get_json(&c.token, &url(&root_id)).await;
    assert!(kept["body"].is_null());
    assert_eq!(
        del(&bob, reply["id"].as_str().unwrap())
            .await
            .unwrap()
            .status(),
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        c.app.get_json(&c.token, &url(&root_id)).await["reply_count"],
        1
    );
    assert_eq!(
        del(&c.token, reply2["id"].as_str().unwrap())
            .await
            .unwrap()
            .status(),
        StatusCode::NO_CONTENT
    );
    let r = c
        .app
        .as_user(Method::GET, &url(&root_id), &c.token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let list = c
        .app
        .get_json(&c.token, &format!("{B}/artifacts/plan.md/threads"))
        .await;
    assert_eq!(list["items"].as_array().unwrap().len(), 1);

    // The events, in order.
    let events = c
        .app
        .get_json(&c.token, "/v1/monorepos/ann/mono/events?kinds=artifact_comment.added,artifact_comment.edited,artifact_comment.resolved,artifact_comment.reopened,artifact_comment.deleted")
        .await;
    let kinds: Vec<&str> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"artifact_comment.resolved")
            && kinds.contains(&"artifact_comment.reopened"),
        "{kinds:?}"
    );
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == "artifact_comment.deleted")
            .count(),
        4,
        "{kinds:?}"
    );
}

/// Sends `n` comments on `name` at most eight at a time; each must be taken.
async fn comments(c: &svc_tests::Cloned, name: &str, n: usize, body: impl Fn(usize) -> Value) {
    use futures_util::StreamExt;
    let sent =
        futures_util::stream::iter((0..n).map(|i| comment(c, &c.token, name, body(i), None)))
            .buffer_unordered(8)
            .collect::<Vec<_>>()
            .await;
    for r in sent {
        assert_eq!(r.status(), StatusCode::CREATED);
    }
}

#[tokio::test]
async fn an_artifact_holds_500_threads_and_a_thread_200_replies() {
    let c = world().await;
    let doc = Form::new().part("file", part("plan.md", b"# Plan\n"));
    expect_json::<Value>(upload(&c, doc).await, StatusCode::CREATED).await;
    comments(
        &c,
        "plan.md",
        500,
        |i| json!({"body": format!("thread {i}")}),
    )
    .await;
    let r = comment(&c, &c.token, "plan.md", json!({"body": "one more"}), None).await;
    expect_error(r, StatusCode::CONFLICT, "too_many_threads").await;

    // Replies do not count as threads, and a thread takes 200 of them.
    let list = c
        .app
        .get_json(&c.token, &format!("{B}/artifacts/plan.md/threads"))
        .await;
    assert_eq!(list["items"].as_array().unwrap().len(), 500);
    let root = list["items"][0]["root"]["id"].as_str().unwrap().to_owned();
    comments(
        &c,
        "plan.md",
        200,
        |i| json!({"body": format!("reply {i}"), "in_reply_to": root}),
    )
    .await;
    let r = comment(
        &c,
        &c.token,
        "plan.md",
        json!({"body": "one more", "in_reply_to": root}),
        None,
    )
    .await;
    expect_error(r, StatusCode::CONFLICT, "too_many_replies").await;
    let got = c
        .app
        .get_json(
            &c.token,
            &format!("/v1/monorepos/ann/mono/repos/app/artifact-comments/{root}"),
        )
        .await;
    assert_eq!(got["reply_count"], 200);
}
