//! The API's ground rules: the error shape, health, and a complete OpenAPI document.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::collections::BTreeSet;
use std::path::Path;

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::{TestApp, expect_error, expect_json};

#[tokio::test]
async fn health_answers() {
    let app = TestApp::start().await;
    let body: Value = expect_json(
        app.request(Method::GET, "/healthz").send().await.unwrap(),
        StatusCode::OK,
    )
    .await;
    assert_eq!(body["ok"], true);
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
}

#[tokio::test]
async fn every_error_has_the_error_shape() {
    let app = TestApp::start().await;
    let made = app.bootstrap(json!({"email": "err@example.com"})).await;
    let token = &made.credential.token;

    let r = app
        .request(Method::GET, "/v1/no/such/route")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .request(Method::GET, "/nothing-here")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .as_user(Method::PUT, "/v1/user", token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed").await;

    let bad_json = app
        .as_user(Method::PATCH, "/v1/user", token)
        .header(header::CONTENT_TYPE, "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    expect_error(bad_json, StatusCode::BAD_REQUEST, "bad_request").await;
    let wrong_type = app
        .as_user(Method::PATCH, "/v1/user", token)
        .json(&json!({"name": 7}))
        .send()
        .await
        .unwrap();
    expect_error(wrong_type, StatusCode::UNPROCESSABLE_ENTITY, "bad_request").await;
    let no_type = app
        .as_user(Method::PATCH, "/v1/user", token)
        .body("{}")
        .send()
        .await
        .unwrap();
    expect_error(
        no_type,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    )
    .await;
    let huge = format!("{{\"name\": \"{}\"}}", "x".repeat(2 * 1024 * 1024));
    // Its own client: the server closes a connection whose body it refused.
    let r = svc_tests::client()
        .patch(app.url("/v1/user"))
        .bearer_auth(token)
        .header(header::CONTENT_TYPE, "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::PAYLOAD_TOO_LARGE, "too_large").await;
    let r = app
        .as_user(Method::DELETE, "/v1/user/credentials/%FF", token)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error());
    let body: Value = r.json().await.unwrap();
    assert!(body["error"]["code"].is_string(), "{body}");

    // Every answer carries a request id for the logs.
    let r = app.request(Method::GET, "/healthz").send().await.unwrap();
    assert!(r.headers().contains_key("x-request-id"));
}

/// Each `#[utoipa::path(<method>, path = "<path>"` in the server's sources.
fn annotated_routes(dir: &Path, out: &mut BTreeSet<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            annotated_routes(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for chunk in text.split("#[utoipa::path(").skip(1) {
                let method = chunk.split(',').next().unwrap().trim().to_owned();
                let route = chunk
                    .split("path = \"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .to_owned();
                out.insert((method, route));
            }
            if !path.ends_with("web.rs") {
                assert!(
                    !text.contains(".route(\"/v1"),
                    "{}: /v1 routes are registered through routes::api() so they are documented",
                    path.display()
                );
            }
        }
    }
}

#[tokio::test]
async fn the_openapi_document_lists_every_route() {
    let app = TestApp::start().await;
    let doc: Value = expect_json(
        app.request(Method::GET, "/v1/openapi.json")
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));

    let mut in_code = BTreeSet::new();
    annotated_routes(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/src"),
        &mut in_code,
    );
    assert!(in_code.len() >= 15, "found {in_code:?}");
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.insert((method.clone(), path.clone()));
        }
    }
    assert_eq!(
        in_code, documented,
        "routes in the code and in the OpenAPI document differ"
    );

    // And the server really serves each documented route (not the unknown-route 404).
    for (method, path) in &documented {
        let concrete = path.replace('{', "x").replace('}', "");
        let r = app
            .request(method.to_uppercase().parse().unwrap(), &concrete)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body = r.text().await.unwrap();
        assert!(
            status != StatusCode::METHOD_NOT_ALLOWED && !body.contains("route not found"),
            "{method} {path} is documented but not served ({status}: {body})"
        );
    }
}
