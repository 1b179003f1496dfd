//! The device flow, as a machine and its person see it.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;
use svc_protocol::login::{DeviceCode, DeviceDecision};
use svc_protocol::user::{CredentialKind, CredentialList, UserWithCredential};
use svc_tests::{TestApp, expect_error, expect_json};

async fn start(app: &TestApp, body: serde_json::Value) -> DeviceCode {
    let r = app
        .request(Method::POST, "/v1/login/device")
        .json(&body)
        .send()
        .await
        .unwrap();
    expect_json(r, StatusCode::OK).await
}

async fn poll(app: &TestApp, code: &DeviceCode) -> reqwest::Response {
    app.request(Method::POST, "/v1/login/token")
        .json(&json!({"device_code": code.device_code}))
        .send()
        .await
        .unwrap()
}

async fn decide(app: &TestApp, token: &str, user_code: &str, approve: bool) -> reqwest::Response {
    app.as_user(Method::POST, "/v1/login/device/approve", token)
        .json(&json!({"user_code": user_code, "approve": approve}))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn approved_code_gives_one_machine_credential() {
    let app = TestApp::builder().device_flow(900, 1).start().await;
    let person = app.bootstrap(json!({"email": "dev@example.com"})).await;

    let code = start(&app, json!({"machine": "laptop"})).await;
    let letters = code.user_code.replace('-', "");
    assert_eq!(code.user_code.len(), 9);
    assert_eq!(&code.user_code[4..5], "-");
    assert!(letters.len() == 8 && letters.chars().all(|c| c.is_ascii_uppercase()));
    assert_eq!(code.verification_uri, app.url("/login/device"));
    assert_eq!(
        code.verification_uri_complete,
        format!("{}?user_code={}", code.verification_uri, code.user_code)
    );
    assert_eq!((code.expires_in, code.interval), (900, 1));

    expect_error(
        poll(&app, &code).await,
        StatusCode::BAD_REQUEST,
        "authorization_pending",
    )
    .await;

    // The person types the code in any case, without the hyphen.
    let r = decide(
        &app,
        &person.credential.token,
        &letters.to_lowercase(),
        true,
    )
    .await;
    let decision: DeviceDecision = expect_json(r, StatusCode::OK).await;
    assert!(decision.approved);
    assert_eq!(decision.machine, "laptop");
    let r = decide(&app, &person.credential.token, &code.user_code, false).await;
    expect_error(r, StatusCode::CONFLICT, "already_decided").await;

    tokio::time::sleep(Duration::from_millis(1050)).await;
    let signed_in: UserWithCredential = expect_json(poll(&app, &code).await, StatusCode::OK).await;
    assert_eq!(signed_in.user.login, person.user.login);
    assert_eq!(signed_in.credential.name, "laptop");
    assert_eq!(signed_in.credential.kind, CredentialKind::Machine);
    let r = app
        .as_user(Method::GET, "/v1/user", &signed_in.credential.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);

    // One credential per code.
    tokio::time::sleep(Duration::from_millis(1050)).await;
    expect_error(
        poll(&app, &code).await,
        StatusCode::BAD_REQUEST,
        "expired_token",
    )
    .await;
    let r = app
        .as_user(
            Method::GET,
            "/v1/user/credentials",
            &person.credential.token,
        )
        .send()
        .await
        .unwrap();
    let list: CredentialList = expect_json(r, StatusCode::OK).await;
    assert_eq!(list.items.iter().filter(|c| c.name == "laptop").count(), 1);
}

#[tokio::test]
async fn the_approver_may_name_the_machine() {
    let app = TestApp::builder().device_flow(900, 1).start().await;
    let person = app.bootstrap(json!({"email": "n@example.com"})).await;
    let code = start(&app, json!({})).await;
    let r = app
        .as_user(
            Method::POST,
            "/v1/login/device/approve",
            &person.credential.token,
        )
        .json(&json!({"user_code": code.user_code, "approve": true, "machine": "build box"}))
        .send()
        .await
        .unwrap();
    let decision: DeviceDecision = expect_json(r, StatusCode::OK).await;
    assert_eq!(decision.machine, "build box");
    let signed_in: UserWithCredential = expect_json(poll(&app, &code).await, StatusCode::OK).await;
    assert_eq!(signed_in.credential.name, "build box");
}

#[tokio::test]
async fn denied_code_is_refused() {
    let app = TestApp::builder().device_flow(900, 1).start().await;
    let person = app.bootstrap(json!({"email": "deny@example.com"})).await;
    let code = start(&app, json!({"machine": "stranger"})).await;
    let decision: DeviceDecision = expect_json(
        decide(&app, &person.credential.token, &code.user_code, false).await,
        StatusCode::OK,
    )
    .await;
    assert!(!decision.approved);
    expect_error(
        poll(&app, &code).await,
        StatusCode::BAD_REQUEST,
        "access_denied",
    )
    .await;
    let r = app
        .as_user(
            Method::GET,
            "/v1/user/credentials",
            &person.credential.token,
        )
        .send()
        .await
        .unwrap();
    let list: CredentialList = expect_json(r, StatusCode::OK).await;
    assert_eq!(list.items.len(), 1, "no credential was made");
}

#[tokio::test]
async fn codes_expire() {
    let app = TestApp::builder().device_flow(1, 1).start().await;
    let person = app.bootstrap(json!({"email": "late@example.com"})).await;
    let code = start(&app, json!({})).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    expect_error(
        poll(&app, &code).await,
        StatusCode::BAD_REQUEST,
        "expired_token",
    )
    .await;
    let r = decide(&app, &person.credential.token, &code.user_code, true).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn polling_too_fast_slows_the_client_down() {
    let app = TestApp::builder().device_flow(900, 2).start().await;
    let code = start(&app, json!({})).await;
    expect_error(
        poll(&app, &code).await,
        StatusCode::BAD_REQUEST,
        "authorization_pending",
    )
    .await;
    let body = expect_error(
        poll(&app, &code).await,
        StatusCode::BAD_REQUEST,
        "slow_down",
    )
    .await;
    assert!(
        body["error"]["message"].as_str().unwrap().contains("7 s"),
        "interval grew by 5 s: {body}"
    );
    // Waiting the old interval is no longer enough: the interval is now 7 s.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    expect_error(
        poll(&app, &code).await,
        StatusCode::BAD_REQUEST,
        "slow_down",
    )
    .await;
}

#[tokio::test]
async fn bad_input_is_refused_clearly() {
    let app = TestApp::start().await;
    let person = app.bootstrap(json!({"email": "bad@example.com"})).await;
    let r = app
        .request(Method::POST, "/v1/login/token")
        .json(&json!({"device_code": "nope"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "invalid_grant").await;
    let r = app
        .request(Method::POST, "/v1/login/token")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "bad_request").await;
    expect_error(
        decide(&app, &person.credential.token, "AEIO-UAEI", true).await,
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    expect_error(
        decide(&app, &person.credential.token, "BCDF-GHJK", true).await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    let r = app
        .request(Method::POST, "/v1/login/device/approve")
        .json(&json!({"user_code": "BCDF-GHJK", "approve": true}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let r = app
        .request(Method::POST, "/v1/login/device")
        .json(&json!({"machine": ""}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
}
