//! Bootstrap, the Login rule and the credential lifecycle.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_protocol::user::{CredentialList, NewCredential, User};
use svc_tests::{BOOTSTRAP_SECRET, TestApp, expect_error, expect_json};

#[tokio::test]
async fn bootstrap_needs_the_configured_secret() {
    let closed = TestApp::builder().without_bootstrap().start().await;
    let r = closed
        .request(Method::POST, "/v1/users")
        .bearer_auth(BOOTSTRAP_SECRET)
        .json(&json!({"email": "a@example.com"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    let app = TestApp::start().await;
    let body = json!({"email": "ada@example.com"});
    let r = app
        .request(Method::POST, "/v1/users")
        .json(&body)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let r = app
        .request(Method::POST, "/v1/users")
        .bearer_auth("not-the-secret")
        .json(&body)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;

    let made = app
        .bootstrap(json!({"email": "Ada.Lovelace@Example.com", "name": "Ada"}))
        .await;
    assert_eq!(made.user.login, "ada-lovelace");
    assert_eq!(made.user.email.as_deref(), Some("ada.lovelace@example.com"));
    assert_eq!(made.user.name.as_deref(), Some("Ada"));
    assert!(made.credential.token.starts_with("svc_"));
    assert!(
        made.credential.token.len() >= 47,
        "256 random bits need 43 base62 characters"
    );
    let me: User = expect_json(
        app.as_user(Method::GET, "/v1/user", &made.credential.token)
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    assert_eq!(me, made.user);
}

#[tokio::test]
async fn logins_follow_the_rule() {
    let app = TestApp::start().await;
    let post = |body: Value| {
        app.request(Method::POST, "/v1/users")
            .bearer_auth(BOOTSTRAP_SECRET)
            .json(&body)
            .send()
    };
    // Chosen logins are lowered and checked.
    let made = app
        .bootstrap(json!({"login": "GRACE", "email": "g@example.com"}))
        .await;
    assert_eq!(made.user.login, "grace");
    for bad in ["-x", "x-", "a--b", "a_b", &"a".repeat(40)] {
        let r = post(json!({"login": bad, "email": format!("{}@example.com", bad.len())}))
            .await
            .unwrap();
        expect_error(r, StatusCode::BAD_REQUEST, "bad_login").await;
    }
    let r = post(json!({"login": "Settings", "email": "s@example.com"}))
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "reserved_name").await;
    let r = post(json!({"login": "grace", "email": "other@example.com"}))
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "namespace_taken").await;
    let r = post(json!({"email": "G@example.com"})).await.unwrap();
    expect_error(r, StatusCode::CONFLICT, "email_taken").await;

    // Derivation: base, base-2, ...; reserved bases are skipped.
    let logins = [
        ("jo@a.example", "jo"),
        ("jo@b.example", "jo-2"),
        ("Jo@c.example", "jo-3"),
        ("api@a.example", "api-2"),
        ("grace@b.example", "grace-2"),
        ("first.last+tag@a.example", "first-last-tag"),
        ("__@a.example", "user"),
    ];
    for (email, login) in logins {
        assert_eq!(
            app.bootstrap(json!({"email": email})).await.user.login,
            login,
            "{email}"
        );
    }
}

#[tokio::test]
async fn credentials_are_listed_created_and_revoked() {
    let app = TestApp::start().await;
    let made = app.bootstrap(json!({"email": "cred@example.com"})).await;
    let token = made.credential.token.clone();

    let r = app
        .as_user(Method::POST, "/v1/user/credentials", &token)
        .json(&json!({"name": "ci sandbox", "kind": "sandbox", "expires_in": 3600}))
        .send()
        .await
        .unwrap();
    let sandbox: NewCredential = expect_json(r, StatusCode::CREATED).await;
    assert!(sandbox.expires_at.is_some());
    let r = app
        .as_user(Method::POST, "/v1/user/credentials", &token)
        .json(&json!({"name": "x", "kind": "browser"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let r = app
        .as_user(Method::POST, "/v1/user/credentials", &token)
        .json(&json!({"name": "  ", "kind": "machine"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;

    // The new credential works, and its use is recorded.
    let r = app
        .as_user(Method::GET, "/v1/user", &sandbox.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = app
        .as_user(Method::GET, "/v1/user/credentials", &token)
        .send()
        .await
        .unwrap();
    let text = r.text().await.unwrap();
    assert!(
        !text.contains(&sandbox.token) && !text.contains(&token),
        "a list never shows a token"
    );
    let list: CredentialList = serde_json::from_str(&text).unwrap();
    assert_eq!(list.items.len(), 2);
    assert_eq!(list.items[0].id, sandbox.id, "newest first");
    assert_eq!(list.items[0].name, "ci sandbox");
    assert!(list.items[0].last_used_at.is_some());

    // Revoked: its very next request fails.
    let r = app
        .as_user(
            Method::DELETE,
            &format!("/v1/user/credentials/{}", sandbox.id),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = app
        .as_user(Method::GET, "/v1/user", &sandbox.token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let r = app
        .as_user(
            Method::DELETE,
            &format!("/v1/user/credentials/{}", sandbox.id),
            &token,
        )
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // Another user's credential is not ours to revoke.
    let other = app.bootstrap(json!({"email": "other@example.com"})).await;
    let r = app
        .as_user(
            Method::DELETE,
            &format!("/v1/user/credentials/{}", other.credential.id),
            &token,
        )
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .as_user(Method::GET, "/v1/user", &other.credential.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);

    // Revoking the calling credential itself ends it too.
    let r = app
        .as_user(
            Method::DELETE,
            &format!("/v1/user/credentials/{}", made.credential.id),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = app
        .as_user(Method::GET, "/v1/user/credentials", &token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn expired_credentials_fail_and_junk_tokens_are_refused() {
    let app = TestApp::start().await;
    let made = app.bootstrap(json!({"email": "exp@example.com"})).await;
    let r = app
        .as_user(Method::POST, "/v1/user/credentials", &made.credential.token)
        .json(&json!({"name": "short", "kind": "sandbox", "expires_in": 1}))
        .send()
        .await
        .unwrap();
    let short: NewCredential = expect_json(r, StatusCode::CREATED).await;
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let r = app
        .as_user(Method::GET, "/v1/user", &short.token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    for junk in ["svc_nope", "", "Basic abc", "svc_\u{7f}"] {
        let r = app
            .request(Method::GET, "/v1/user")
            .header("authorization", format!("Bearer {junk}"))
            .send()
            .await;
        if let Ok(r) = r {
            expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
        }
    }
}

#[tokio::test]
async fn profile_updates() {
    let app = TestApp::start().await;
    let made = app
        .bootstrap(json!({"email": "p@example.com", "name": "Old"}))
        .await;
    let t = &made.credential.token;
    let r = app
        .as_user(Method::PATCH, "/v1/user", t)
        .json(&json!({"picture_url": "https://img.example/p.png"}))
        .send()
        .await
        .unwrap();
    let me: User = expect_json(r, StatusCode::OK).await;
    assert_eq!(me.name.as_deref(), Some("Old"), "omitted fields are kept");
    assert_eq!(me.picture_url.as_deref(), Some("https://img.example/p.png"));
    let r = app
        .as_user(Method::PATCH, "/v1/user", t)
        .json(&json!({"name": null}))
        .send()
        .await
        .unwrap();
    let me: User = expect_json(r, StatusCode::OK).await;
    assert_eq!(me.name, None, "null clears");
    let r = app
        .as_user(Method::PATCH, "/v1/user", t)
        .json(&json!({"picture_url": "javascript:alert(1)"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
}

#[tokio::test]
async fn names_and_emails_git_cannot_sign_with_are_refused() {
    let app = TestApp::start().await;
    let made = app
        .bootstrap(json!({"email": "p@example.com", "name": "Kept"}))
        .await;
    let t = &made.credential.token;
    for bad in [
        "a<b>",
        "a>b",
        "two\nlines",
        "nul\u{0}",
        "bell\u{7}",
        "tab\there",
    ] {
        let r = app
            .as_user(Method::PATCH, "/v1/user", t)
            .json(&json!({ "name": bad }))
            .send()
            .await
            .unwrap();
        let body = expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "bad_request").await;
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("git cannot write it"),
            "{bad:?}: {message}"
        );
    }
    let me: User = expect_json(
        app.as_user(Method::GET, "/v1/user", t)
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    assert_eq!(me.name.as_deref(), Some("Kept"), "nothing was written");
    let r = app
        .as_user(Method::PATCH, "/v1/user", t)
        .json(&json!({"name": "Ada Lovelace (she/her) 🚀"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);

    let bootstrap = |body: Value| {
        app.request(Method::POST, "/v1/users")
            .bearer_auth(BOOTSTRAP_SECRET)
            .json(&body)
            .send()
    };
    let r = bootstrap(json!({"email": "n@example.com", "name": "Eve <eve@evil>"}))
        .await
        .unwrap();
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "bad_request").await;
    let r = bootstrap(json!({"email": "e<v>e@example.com"}))
        .await
        .unwrap();
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "bad_email").await;
}

#[tokio::test]
async fn a_person_whose_stored_name_git_refuses_still_merges() {
    use svc_server::store::{Store, users};
    let c = svc_tests::Cloned::new("mono", "app").await;
    c.git.commit(&c.work, "first", &[("a.txt", b"one\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "main"]);
    // Rows written before names were checked, or by a path that forgot to.
    let store = Store::open(&c.app.config.database_url).await.unwrap();
    {
        let mut tx = store.begin().await.unwrap();
        let ann = users::by_login(tx.h(), "ann").await.unwrap().unwrap();
        users::update_profile(tx.h(), &ann.id, Some("Ann <x>\nInjected: 1"), None)
            .await
            .unwrap();
        users::set_email(tx.h(), &ann.id, Some("ann@example.com>\n"), true)
            .await
            .unwrap();
        tx.commit().await.unwrap();
    }
    store.close().await;

    c.git.ok(&c.work, &["checkout", "-q", "-b", "topic"]);
    c.git.commit(&c.work, "topic", &[("b.txt", b"b\n")]);
    c.git.ok(&c.work, &["push", "-q", "origin", "topic"]);
    let r = c
        .app
        .as_user(
            Method::POST,
            "/v1/monorepos/ann/mono/repos/app/branches/topic/merge",
            &c.token,
        )
        .send()
        .await
        .unwrap();
    let merged: Value = expect_json(r, StatusCode::OK).await;
    let sha = merged["sha"].as_str().unwrap().to_owned();
    c.git.ok(&c.work, &["fetch", "-q", "origin"]);
    assert_eq!(
        c.git
            .ok(&c.work, &["log", "-1", "--format=%an|%ae", &sha])
            .trim(),
        "Ann xInjected: 1|ann@example.com"
    );
    c.git.ok(&c.work, &["fsck", "--strict", "--no-dangling"]);
    // A meta save (the meta repo's first main) and a merge there sign the same way.
    let body = b"kept\n";
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(body));
    let meta = "/v1/monorepos/ann/mono/meta";
    let r = c
        .app
        .as_user(Method::PUT, &format!("{meta}/blobs/{sha}"), &c.token)
        .body(&body[..])
        .send()
        .await
        .unwrap();
    expect_json::<Value>(r, StatusCode::OK).await;
    let r = c
        .app
        .as_user(Method::POST, &format!("{meta}/saves"), &c.token)
        .json(&json!({"base": null, "changes": [{"path": "notes.md", "sha256": sha}]}))
        .send()
        .await
        .unwrap();
    let saved: Value = expect_json(r, StatusCode::OK).await;
    assert!(saved["version"].is_string(), "{saved}");
    c.app
        .merge_into_meta(&c.token, "ann/mono", "merged.md", b"merged\n")
        .await;
}

#[tokio::test]
async fn a_revocation_reaches_every_server_process() {
    if std::env::var_os("SVC_TEST_DATABASE_URL").is_none() {
        eprintln!("several server processes share PostgreSQL only; set SVC_TEST_DATABASE_URL");
        return;
    }
    let app = TestApp::start().await;
    let twin = app.twin().await;
    let made = app.bootstrap(json!({"email": "twin@example.com"})).await;
    let token = &made.credential.token;
    for _ in 0..3 {
        let r = twin
            .as_user(Method::GET, "/v1/user", token)
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.status(),
            StatusCode::OK,
            "the twin has checked (and cached) the credential"
        );
    }
    let r = app
        .as_user(
            Method::DELETE,
            &format!("/v1/user/credentials/{}", made.credential.id),
            token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let mut refused = false;
    for _ in 0..40 {
        let r = twin
            .as_user(Method::GET, "/v1/user", token)
            .send()
            .await
            .unwrap();
        if r.status() == StatusCode::UNAUTHORIZED {
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(
        refused,
        "the other process stopped accepting the revoked credential within a second"
    );
}
