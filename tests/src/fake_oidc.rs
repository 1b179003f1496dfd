//! An OpenID Connect provider faked at its wire protocol (discovery, authorize, token),
//! for the browser sign-in tests. It signs in whoever the test says is at the browser.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use svc_server::config::OidcSettings;

pub const CLIENT_ID: &str = "svc-test-client";
pub const CLIENT_SECRET: &str = "svc test secret/with+odd=chars";

/// The person the fake provider signs in next.
#[derive(Debug, Clone)]
pub struct Person {
    pub sub: String,
    pub email: Option<String>,
    pub email_verified: bool,
    pub name: Option<String>,
}

#[derive(Default)]
struct Inner {
    next: Option<Person>,
    /// code -> (person, nonce, code_challenge, redirect_uri)
    codes: HashMap<String, (Person, String, String, String)>,
}

#[derive(Clone)]
pub struct FakeOidc {
    pub issuer: String,
    inner: Arc<Mutex<Inner>>,
}

impl FakeOidc {
    pub async fn start() -> FakeOidc {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let issuer = format!("http://{}", listener.local_addr().expect("addr"));
        let fake = FakeOidc {
            issuer,
            inner: Arc::default(),
        };
        let app = Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(fake.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        fake
    }

    pub fn settings(&self) -> OidcSettings {
        OidcSettings {
            issuer: self.issuer.parse().expect("issuer URL"),
            client_id: CLIENT_ID.into(),
            client_secret: CLIENT_SECRET.into(),
        }
    }

    /// The next browser at `/authorize` is this person.
    pub fn sign_in_as(&self, person: Person) {
        self.inner.lock().expect("lock").next = Some(person);
    }
}

async fn discovery(State(f): State<FakeOidc>) -> Json<Value> {
    Json(json!({
        "issuer": f.issuer,
        "authorization_endpoint": format!("{}/authorize", f.issuer),
        "token_endpoint": format!("{}/token", f.issuer),
        "end_session_endpoint": format!("{}/logout", f.issuer),
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
    }))
}

async fn authorize(
    State(f): State<FakeOidc>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let ok = q.get("client_id").map(String::as_str) == Some(CLIENT_ID)
        && q.get("response_type").map(String::as_str) == Some("code")
        && q.get("code_challenge_method").map(String::as_str) == Some("S256")
        && q.get("scope")
            .is_some_and(|s| s.split(' ').any(|x| x == "openid"));
    let (Some(redirect_uri), Some(state), Some(nonce), Some(challenge), true) = (
        q.get("redirect_uri"),
        q.get("state"),
        q.get("nonce"),
        q.get("code_challenge"),
        ok,
    ) else {
        return (StatusCode::BAD_REQUEST, "bad authorize request").into_response();
    };
    let mut inner = f.inner.lock().expect("lock");
    let Some(person) = inner.next.take() else {
        return (StatusCode::FORBIDDEN, "nobody at the browser").into_response();
    };
    let code = format!("code-{}", inner.codes.len());
    inner.codes.insert(
        code.clone(),
        (
            person,
            nonce.clone(),
            challenge.clone(),
            redirect_uri.clone(),
        ),
    );
    Redirect::to(&format!("{redirect_uri}?code={code}&state={state}")).into_response()
}

async fn token(
    State(f): State<FakeOidc>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let expected = format!(
        "Basic {}",
        STANDARD.encode(format!("{}:{}", enc(CLIENT_ID), enc(CLIENT_SECRET)))
    );
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": "invalid_client"})),
        )
            .into_response();
    }
    let Some(entry) = form
        .get("code")
        .and_then(|c| f.inner.lock().expect("lock").codes.remove(c))
    else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response();
    };
    let (person, nonce, challenge, redirect_uri) = entry;
    let verifier = form.get("code_verifier").cloned().unwrap_or_default();
    if URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) != challenge
        || form.get("redirect_uri") != Some(&redirect_uri)
    {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response();
    }
    let exp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        + 300;
    let claims = json!({
        "iss": f.issuer, "sub": person.sub, "aud": CLIENT_ID, "exp": exp, "nonce": nonce,
        "email": person.email, "email_verified": person.email_verified, "name": person.name,
    });
    let jwt = format!(
        "{}.{}.{}",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(claims.to_string()),
        URL_SAFE_NO_PAD.encode(b"signature")
    );
    Json(json!({"access_token": "at", "token_type": "Bearer", "id_token": jwt})).into_response()
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
