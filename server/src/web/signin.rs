//! The sign-in flows' own pages: confirming a device code and the local provider's
//! password form. Plain HTML forms that POST to these pages (no JavaScript), which call
//! the JSON API's own handlers, so the API's checks and rate decide.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Deserialize;
use svc_protocol::login::{DeviceApprove, PasswordLogin};

use super::people::{foreign_origin, render};
use crate::auth::{self, Caller};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Query};
use crate::routes::{device, session};
use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/login/device", get(device_page).post(device_submit))
        .route("/login", get(login_page).post(login_submit))
}

#[derive(Template)]
#[template(path = "signin/device.html")]
struct DeviceForm {
    login: String,
    code: String,
    machine: String,
    /// What the last POST did (or why not).
    message: String,
    /// The code was decided: no form any more.
    done: bool,
}

#[derive(Template)]
#[template(path = "signin/login.html")]
struct LoginForm {
    /// Where to go once signed in (a path on this host), as a hidden field.
    return_to: String,
    login: String,
    /// `[signup] open = true`: a link to sign-up.
    signup: bool,
    error: String,
}

#[derive(Deserialize)]
struct DeviceQuery {
    user_code: Option<String>,
}

/// The sign-in page, coming back to the device page with `code`: for a browser with no
/// session.
fn sign_in_first(code: &str) -> Response {
    let back = format!("/login/device?user_code={}", encode(code));
    Redirect::to(&format!("/v1/login/browser?return_to={}", encode(&back))).into_response()
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
        return Ok(sign_in_first(&code));
    };
    let form = DeviceForm {
        login: caller.login,
        code,
        machine: String::new(),
        message: String::new(),
        done: false,
    };
    Ok(render(StatusCode::OK, &form))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct DeviceBody {
    user_code: String,
    machine: String,
    /// The button pressed: `1` approves, anything else denies.
    approve: String,
}

/// Approves or denies the code through `approveDeviceLogin`, and says what it did (or
/// why not, with the form again).
async fn device_submit(
    State(state): State<AppState>,
    headers: HeaderMap,
    caller: Result<Caller, ApiError>,
    axum::Form(body): axum::Form<DeviceBody>,
) -> ApiResult<Response> {
    if let Some(page) = foreign_origin(&headers, &state) {
        return Ok(page);
    }
    let Ok(caller) = caller else {
        return Ok(sign_in_first(&body.user_code));
    };
    let machine = body.machine.trim().to_owned();
    let request = DeviceApprove {
        user_code: body.user_code.clone(),
        approve: body.approve == "1",
        machine: (!machine.is_empty()).then(|| machine.clone()),
    };
    let login = caller.login.clone();
    let (status, message, done) = match device::approve(State(state), caller, Json(request)).await {
        Ok(Json(d)) if d.approved => (
            StatusCode::OK,
            format!(
                "Approved: {} is signing in. You can close this page.",
                d.machine
            ),
            true,
        ),
        Ok(_) => (StatusCode::OK, "Denied.".to_owned(), true),
        Err(e) => (e.status, e.message, false),
    };
    let form = DeviceForm {
        login,
        code: body.user_code,
        machine,
        message,
        done,
    };
    Ok(render(status, &form))
}

#[derive(Deserialize)]
struct LoginQuery {
    return_to: Option<String>,
}

/// The local identity provider's sign-in form. With `[signup] open = true` it leads to
/// sign-up too.
async fn login_page(State(state): State<AppState>, Query(q): Query<LoginQuery>) -> Response {
    let form = LoginForm {
        return_to: safe_return_to(q.return_to.as_deref()),
        login: String::new(),
        signup: state.config.signup.open,
        error: String::new(),
    };
    render(StatusCode::OK, &form)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct LoginBody {
    login: String,
    password: String,
    return_to: String,
}

/// Signs in through `loginPassword` and goes where the form says (on this host); a
/// refusal shows the form again with its reason.
async fn login_submit(
    State(state): State<AppState>,
    headers: HeaderMap,
    axum::Form(body): axum::Form<LoginBody>,
) -> Response {
    let return_to = safe_return_to(Some(&body.return_to));
    let request = PasswordLogin {
        login: body.login.clone(),
        password: body.password,
    };
    let signup = state.config.signup.open;
    match session::password(State(state), headers, Json(request)).await {
        Ok(answer) => {
            let mut response = Redirect::to(&return_to).into_response();
            for cookie in answer.headers().get_all(header::SET_COOKIE) {
                response
                    .headers_mut()
                    .append(header::SET_COOKIE, cookie.clone());
            }
            response
        }
        Err(e) => {
            let form = LoginForm {
                return_to,
                login: body.login,
                signup,
                error: e.message,
            };
            render(e.status, &form)
        }
    }
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
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"),
    );
    response
}

fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

const HEAD: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>svc sign-in</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}
input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin:.2rem 0 1rem}
button{font:inherit;padding:.5rem 1rem;margin-right:.5rem}#msg{margin-top:1rem}</style>
</head><body><main>"#;

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
