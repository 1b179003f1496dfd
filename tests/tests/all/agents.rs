//! Agent sessions end to end: the models a server offers.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::{TestApp, expect_error, expect_json};

const RUNNERS: &str = r#"
[runners.claude]
command = ["claude", "-p", "--output-format", "stream-json", "--verbose"]
format = "claude-stream-json"
[runners.codex]
command = ["codex", "exec", "--json"]
format = "codex-json"
[[models]]
id = "claude-sonnet"
runner = "claude"
args = ["--model", "sonnet"]
[[models]]
id = "codex"
runner = "codex"
"#;

#[tokio::test]
async fn members_see_the_models_the_server_offers_and_outsiders_nothing() {
    let app = TestApp::builder().agents(RUNNERS).start().await;
    let ann = app
        .bootstrap(json!({"email": "ann@example.com", "login": "ann"}))
        .await
        .credential
        .token;
    app.monorepo(&ann, json!({"name": "mono"})).await;
    let models = app
        .get_json(&ann, "/v1/monorepos/ann/mono/agent-models")
        .await;
    assert_eq!(
        models,
        json!({"items": [
            {"id": "claude-sonnet", "runner": "claude", "default": true},
            {"id": "codex", "runner": "codex", "default": false},
        ]})
    );

    let bob = app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob"}))
        .await
        .credential
        .token;
    let r = app
        .as_user(Method::GET, "/v1/monorepos/ann/mono/agent-models", &bob)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // A server without runners offers none.
    let plain = TestApp::start().await;
    let carol = plain
        .bootstrap(json!({"email": "carol@example.com", "login": "carol"}))
        .await
        .credential
        .token;
    plain.monorepo(&carol, json!({"name": "mono"})).await;
    let r = plain
        .as_user(Method::GET, "/v1/monorepos/carol/mono/agent-models", &carol)
        .send()
        .await
        .unwrap();
    let none: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(none, json!({"items": []}));
}
