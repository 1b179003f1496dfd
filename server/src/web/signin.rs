//! The few HTML pages the sign-in flows need: confirming a device code and the local
//! provider's password form. They call the JSON API from the page itself.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Deserialize;

use crate::auth;
use crate::error::ApiResult;
use crate::extract::Query;
use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/login/device", get(device_page))
        .route("/login", get(login_page))
}

#[derive(Deserialize)]
struct DeviceQuery {
    user_code: Option<String>,
}

/// Confirms a device code: sign in first when there is no session.
async fn device_page(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<DeviceQuery>,
) -> ApiResult<Response> {
    let code = q.user_code.unwrap_or_default();
    let session = match auth::cookie(&headers, auth::SESSION_COOKIE) {
        Some(token) => auth::authenticate(&state, token).await?,
        None => None,
    };
    let Some(caller) = session else {
        let back = format!("/login/device?user_code={}", encode(&code));
        return Ok(
            Redirect::to(&format!("/v1/login/browser?return_to={}", encode(&back))).into_response(),
        );
    };
    let body = DEVICE_PAGE
        .replace("{login}", &escape(&caller.login))
        .replace("{code}", &escape(&code));
    Ok(page(body))
}

#[derive(Deserialize)]
struct LoginQuery {
    return_to: Option<String>,
}

/// The local identity provider's sign-in form. Where to go next rides in a `data-`
/// attribute, where HTML escaping is the right escaping (inside `<script>` it is not).
/// With `[signup] open = true` it leads to sign-up too.
async fn login_page(State(state): State<AppState>, Query(q): Query<LoginQuery>) -> Response {
    let return_to = safe_return_to(q.return_to.as_deref());
    let signup = if state.config.signup.open {
        SIGNUP_LINK
    } else {
        ""
    };
    page(
        LOGIN_PAGE
            .replace("{return_to}", &escape(&return_to))
            .replace("{signup}", signup),
    )
}

/// Only a path on this host: `/x`, never `//host` or a backslash trick. Where a browser
/// sign-in comes back to, both from the login page and from the provider.
pub fn safe_return_to(path: Option<&str>) -> String {
    match path {
        Some(p)
            if p.starts_with('/')
                && !p.starts_with("//")
                && !p.contains('\\')
                && !p.chars().any(char::is_control) =>
        {
            p.to_owned()
        }
        _ => "/".to_owned(),
    }
}

/// A sign-in page: `body` inside the shared head, under the sign-in pages' CSP.
pub(super) fn page(body: String) -> Response {
    let mut response = Html(format!("{HEAD}{body}</main></body></html>")).into_response();
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'"),
    );
    response
}

fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

const HEAD: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>svc sign-in</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}
input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin:.2rem 0 1rem}
button{font:inherit;padding:.5rem 1rem;margin-right:.5rem}#msg{margin-top:1rem}</style>
</head><body><main>"#;

const DEVICE_PAGE: &str = r#"<h1>Sign in a machine</h1>
<p>Signed in as <b>{login}</b>. Check that the code matches the one your terminal shows.</p>
<form id="f"><label>Code <input id="code" value="{code}" autocomplete="off" required></label>
<label>Machine name <input id="machine" placeholder="as the machine asked"></label>
<button value="1">Approve</button><button value="0">Deny</button></form><p id="msg"></p>
<script>
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const approve = e.submitter && e.submitter.value === '1';
  const body = {user_code: document.getElementById('code').value, approve};
  const machine = document.getElementById('machine').value.trim();
  if (machine) body.machine = machine;
  const r = await fetch('/v1/login/device/approve', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
  const j = await r.json();
  document.getElementById('msg').textContent = r.ok
    ? (j.approved ? 'Approved: ' + j.machine + ' is signing in. You can close this page.' : 'Denied.')
    : j.error.message;
});
</script>"#;

const SIGNUP_LINK: &str = r#"<p>New here? <a href="/signup">Create an account</a></p>"#;

const LOGIN_PAGE: &str = r#"<h1>Sign in to svc</h1>
<form id="f" data-return-to="{return_to}"><label>Login or email <input id="login" autocomplete="username" required></label>
<label>Password <input id="password" type="password" autocomplete="current-password" required></label>
<button>Sign in</button></form><p id="msg"></p>{signup}
<script>
const form = document.getElementById('f');
form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = {login: document.getElementById('login').value, password: document.getElementById('password').value};
  const r = await fetch('/v1/login/password', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
  if (r.ok) { location.href = form.dataset.returnTo; } else { document.getElementById('msg').textContent = (await r.json()).error.message; }
});
</script>"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_to_stays_on_this_host() {
        assert_eq!(
            safe_return_to(Some("/login/device?x=1")),
            "/login/device?x=1"
        );
        for bad in [
            "//evil.example",
            "https://evil.example",
            "/\\evil",
            "evil",
            "",
        ] {
            assert_eq!(safe_return_to(Some(bad)), "/", "{bad}");
        }
        assert_eq!(safe_return_to(None), "/");
    }
}
