//! Request rates (`[rate_limits]`): sign-in and device polls per client address, writes
//! per credential, each answered 429 `rate_limited` with `Retry-After` over its rate,
//! and each counted apart.

use reqwest::{Method, Response, StatusCode, header};
use serde_json::json;
use svc_server::rate_limit::RateLimitSettings;
use svc_tests::{TestApp, expect_error};

/// A server allowing three of each a minute.
async fn strict() -> TestApp {
    TestApp::builder()
        .rate_limits(RateLimitSettings {
            sign_in_per_minute: 3,
            device_poll_per_minute: 3,
            writes_per_minute: 3,
            forwarded_for: false,
        })
        .start()
        .await
}

/// 429 `rate_limited` with a `Retry-After` of whole seconds within the minute.
async fn limited(r: Response) {
    let wait: u64 = r.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    let body = expect_error(r, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("try again"),
        "{body}"
    );
}

#[tokio::test]
async fn password_sign_in_is_limited_per_address() {
    let app = strict().await;
    let wrong = || {
        app.request(Method::POST, "/v1/login/password")
            .header(header::ORIGIN, app.origin())
            .json(&json!({"login": "ann", "password": "not-it-at-all"}))
            .send()
    };
    // Three wrong guesses are answered as such; the fourth is not even tried.
    for _ in 0..3 {
        let r = wrong().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }
    limited(wrong().await.unwrap()).await;
    // Starting a device login is signing in too, from the same address.
    limited(
        app.request(Method::POST, "/v1/login/device")
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    // Reads are not counted.
    let r = app
        .request(Method::GET, "/v1/openapi.json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn device_polls_are_limited_per_address() {
    let app = strict().await;
    let poll = || {
        app.request(Method::POST, "/v1/login/token")
            .json(&json!({"device_code": "no-such-code"}))
            .send()
    };
    for _ in 0..3 {
        let r = poll().await.unwrap();
        assert_ne!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    }
    limited(poll().await.unwrap()).await;
}

#[tokio::test]
async fn writes_are_limited_per_credential() {
    let app = strict().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    let bob = app
        .bootstrap(json!({"email": "bob@example.com"}))
        .await
        .credential
        .token;
    let create = |token: &str, name: &str| {
        app.as_user(Method::POST, "/v1/monorepos", token)
            .json(&json!({"name": name}))
            .send()
    };
    for name in ["one", "two", "three"] {
        let r = create(&ann, name).await.unwrap();
        assert_eq!(r.status(), StatusCode::CREATED, "{name}");
    }
    limited(create(&ann, "four").await.unwrap()).await;
    // Nothing of the refused write landed.
    let mine = app.get_json(&ann, "/v1/monorepos").await;
    assert_eq!(mine["items"].as_array().unwrap().len(), 3, "{mine}");
    // Ann may still read, and Bob's writes are his own to count.
    let r = app
        .as_user(Method::GET, "/v1/monorepos/ann/one", &ann)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = create(&bob, "four").await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    // A write without a credential counts against its address (and is then refused
    // for want of one).
    for _ in 0..3 {
        let r = app
            .request(Method::POST, "/v1/monorepos")
            .json(&json!({"name": "x"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }
    limited(
        app.request(Method::POST, "/v1/monorepos")
            .json(&json!({"name": "x"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
}

#[tokio::test]
async fn behind_a_proxy_the_forwarded_address_counts() {
    let app = TestApp::builder()
        .rate_limits(RateLimitSettings {
            sign_in_per_minute: 1,
            forwarded_for: true,
            ..RateLimitSettings::default()
        })
        .start()
        .await;
    let from = |address: &str| {
        app.request(Method::POST, "/v1/login/password")
            .header(header::ORIGIN, app.origin())
            .header("x-forwarded-for", format!("203.0.113.9, {address}"))
            .json(&json!({"login": "ann", "password": "not-it-at-all"}))
            .send()
    };
    assert_eq!(
        from("198.51.100.1").await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    limited(from("198.51.100.1").await.unwrap()).await;
    // The proxy's own entry (the last) is the client; what the client wrote before it
    // does not count.
    assert_eq!(
        from("198.51.100.2").await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn the_document_lists_429_where_rates_apply() {
    let app = TestApp::start().await;
    let doc: serde_json::Value = app
        .request(Method::GET, "/v1/openapi.json")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let has =
        |path: &str, method: &str| doc["paths"][path][method]["responses"].get("429").is_some();
    assert!(has("/v1/login/password", "post"));
    assert!(has("/v1/login/token", "post"));
    assert!(has("/v1/monorepos", "post"));
    assert!(!has("/v1/monorepos", "get"));
    assert!(!has("/v1/ci/webhooks/{connection_id}", "post"));
}
