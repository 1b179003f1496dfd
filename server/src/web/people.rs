//! The sign-in link page (set a password, or make an invited account) and sign-up. Plain
//! HTML forms that work without JavaScript; their POSTs must carry this service's
//! `Origin`, like the password sign-in, and end in the session cookie and `/`.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Deserialize;
use subtle::ConstantTimeEq;
use svc_protocol::user::CredentialKind;

use super::signin::page;
use crate::accounts::{self, NewUser};
use crate::auth;
use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::state::AppState;
use crate::store::sign_in_links::{self, SignInLink};
use crate::store::{now_ms, users};
use crate::token;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/login/link/{token}", get(link_page).post(link_submit))
        .route("/signup", get(signup_page).post(signup_submit))
}

#[derive(Template)]
#[template(path = "signin/link.html")]
struct LinkForm {
    /// Setting the password of an account (else making the invited one).
    account: bool,
    login: String,
    email: String,
    inviter: String,
    error: String,
}

#[derive(Template)]
#[template(path = "signin/signup.html")]
struct SignupForm {
    email: String,
    login: String,
    error: String,
}

#[derive(Template)]
#[template(path = "signin/message.html")]
struct Message {
    title: &'static str,
    message: String,
}

pub(super) fn render(status: StatusCode, template: &impl Template) -> Response {
    match template.render() {
        Ok(body) => (status, page(body)).into_response(),
        Err(e) => ApiError::internal(e).into_response(),
    }
}

fn message(status: StatusCode, title: &'static str, message: impl Into<String>) -> Response {
    let message = message.into();
    render(status, &Message { title, message })
}

/// What a link leads to, once found good.
enum Target {
    /// Set the password of this account.
    Account(users::UserRow),
    /// Make the account of the link's email, with this login suggested.
    Invite { suggested: String, inviter: String },
}

/// The link of `token` and what it leads to; else the page saying why not.
async fn open_link(
    state: &AppState,
    token: &str,
) -> ApiResult<Result<(SignInLink, Target), Response>> {
    let hash = token::hash(token);
    let mut conn = state.store.read().await?;
    let found = sign_in_links::by_hash(conn.h(), &hash)
        .await?
        .filter(|l| bool::from(l.token_hash.as_slice().ct_eq(&hash)));
    let Some(link) = found else {
        return Ok(Err(message(
            StatusCode::NOT_FOUND,
            "This sign-in link is not valid",
            "Check that you copied all of it, or ask whoever sent it for a new one.",
        )));
    };
    if link.used_at.is_some() {
        return Ok(Err(message(
            StatusCode::GONE,
            "This sign-in link was used already",
            "A sign-in link works once. Sign in with your login and password, or ask for a new link.",
        )));
    }
    if link.expires_at <= now_ms() {
        return Ok(Err(message(
            StatusCode::GONE,
            "This sign-in link has expired",
            "A sign-in link works for 7 days. Ask whoever sent it for a new one.",
        )));
    }
    let target = match &link.user_id {
        Some(id) => match users::by_id(conn.h(), id).await? {
            Some(user) if user.disabled_at.is_some() => {
                return Ok(Err(disabled_page()));
            }
            Some(user) => Target::Account(user),
            None => {
                return Ok(Err(message(
                    StatusCode::NOT_FOUND,
                    "This sign-in link is not valid",
                    "Its account is gone. Ask the server's admin.",
                )));
            }
        },
        None => {
            if users::by_email(conn.h(), &link.email).await?.is_some() {
                return Ok(Err(message(
                    StatusCode::CONFLICT,
                    "You have an account already",
                    format!(
                        "An account with {} exists; sign in with it. Invites to that email \
                         become memberships once its email is verified.",
                        link.email
                    ),
                )));
            }
            let inviter = match &link.invited_by {
                Some(id) => users::by_id(conn.h(), id).await?.map(|u| u.login),
                None => None,
            };
            Target::Invite {
                suggested: accounts::derive_login(conn.h(), &link.email).await?,
                inviter: inviter.unwrap_or_else(|| "Someone".to_owned()),
            }
        }
    };
    Ok(Ok((link, target)))
}

fn disabled_page() -> Response {
    message(
        StatusCode::FORBIDDEN,
        "This account is disabled",
        "Ask the server's admin to enable it.",
    )
}

fn link_form(link: &SignInLink, target: &Target, login: Option<&str>, error: String) -> LinkForm {
    match target {
        Target::Account(user) => LinkForm {
            account: true,
            login: user.login.clone(),
            email: link.email.clone(),
            inviter: String::new(),
            error,
        },
        Target::Invite { suggested, inviter } => LinkForm {
            account: false,
            login: login.unwrap_or(suggested).to_owned(),
            email: link.email.clone(),
            inviter: inviter.clone(),
            error,
        },
    }
}

/// The form a sign-in link opens: set a password, or choose a login and a password.
async fn link_page(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> ApiResult<Response> {
    let (link, target) = match open_link(&state, &token).await? {
        Ok(found) => found,
        Err(page) => return Ok(page),
    };
    Ok(render(
        StatusCode::OK,
        &link_form(&link, &target, None, String::new()),
    ))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct LinkBody {
    login: String,
    password: String,
    password_again: String,
}

/// The password twice, hashed; else the words for the form.
pub(super) fn chosen_password(password: &str, again: &str) -> Result<String, (StatusCode, String)> {
    if password != again {
        return Err((
            StatusCode::UNPROCESSABLE_ENTITY,
            "The two passwords differ; type the same one twice.".to_owned(),
        ));
    }
    accounts::hash_password(password).map_err(|e| (e.status, e.message))
}

/// The page for a form POST without this service's `Origin`.
pub(super) fn foreign_origin(headers: &HeaderMap, state: &AppState) -> Option<Response> {
    auth::check_origin(headers, state).err().map(|e| {
        message(
            StatusCode::FORBIDDEN,
            "This form must be sent from this site",
            e.message,
        )
    })
}

/// Uses the link once: sets the password (or makes the invited account, its email
/// verified, so the invite becomes a membership), signs the person in, and goes to `/`.
async fn link_submit(
    State(state): State<AppState>,
    Path(token): Path<String>,
    headers: HeaderMap,
    axum::Form(body): axum::Form<LinkBody>,
) -> ApiResult<Response> {
    if let Some(page) = foreign_origin(&headers, &state) {
        return Ok(page);
    }
    let (link, target) = match open_link(&state, &token).await? {
        Ok(found) => found,
        Err(page) => return Ok(page),
    };
    let again = |status, error| {
        render(
            status,
            &link_form(&link, &target, Some(body.login.trim()), error),
        )
    };
    let hash = match chosen_password(&body.password, &body.password_again) {
        Ok(hash) => hash,
        Err((status, error)) => return Ok(again(status, error)),
    };
    let mut tx = state.store.begin().await?;
    if !sign_in_links::use_up(tx.h(), &link.token_hash, now_ms()).await? {
        return Ok(message(
            StatusCode::GONE,
            "This sign-in link was used already",
            "A sign-in link works once. Sign in with your login and password, or ask for a new link.",
        ));
    }
    let user = match &target {
        Target::Account(user) => {
            users::set_password(tx.h(), &user.id, &hash).await?;
            user.clone()
        }
        Target::Invite { .. } => {
            let new = NewUser {
                login: Some(body.login.trim()),
                password_hash: Some(hash),
                ..NewUser::verified_email(&link.email)
            };
            match accounts::create_user(&mut tx, new).await {
                Ok(user) => user,
                Err(e) => return Ok(again(e.status, e.message)),
            }
        }
    };
    let session =
        accounts::issue_credential(&mut tx, &user.id, "browser", CredentialKind::Browser, None)
            .await?;
    tx.commit().await?;
    tracing::info!(login = %user.login, "signed in with a sign-in link");
    Ok(signed_in(&session.token))
}

/// The answer that sets the session cookie and goes home.
fn signed_in(token: &str) -> Response {
    let mut response = Redirect::to("/").into_response();
    if let Ok(value) = axum::http::HeaderValue::from_str(&auth::session_cookie(token)) {
        response
            .headers_mut()
            .append(axum::http::header::SET_COOKIE, value);
    }
    response
}

/// Sign-up's form; 404 unless `[signup] open = true`.
async fn signup_page(State(state): State<AppState>) -> Response {
    if !state.config.signup.open {
        return ApiError::not_found("route").into_response();
    }
    render(
        StatusCode::OK,
        &SignupForm {
            email: String::new(),
            login: String::new(),
            error: String::new(),
        },
    )
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SignupBody {
    email: String,
    login: String,
    password: String,
    password_again: String,
}

/// Makes an account (its email not verified, so it accepts no invites), signs the
/// person in, and goes to `/`.
async fn signup_submit(
    State(state): State<AppState>,
    headers: HeaderMap,
    axum::Form(body): axum::Form<SignupBody>,
) -> ApiResult<Response> {
    if !state.config.signup.open {
        return Ok(ApiError::not_found("route").into_response());
    }
    if let Some(page) = foreign_origin(&headers, &state) {
        return Ok(page);
    }
    let again = |status, error| {
        let form = SignupForm {
            email: body.email.trim().to_owned(),
            login: body.login.trim().to_owned(),
            error,
        };
        render(status, &form)
    };
    let email = match accounts::invite_email(&body.email) {
        Ok(email) => email,
        Err(e) => return Ok(again(e.status, e.message)),
    };
    let hash = match chosen_password(&body.password, &body.password_again) {
        Ok(hash) => hash,
        Err((status, error)) => return Ok(again(status, error)),
    };
    let mut tx = state.store.begin().await?;
    let new = NewUser {
        login: Some(body.login.trim()),
        email: Some(&email),
        email_verified: false,
        name: None,
        password_hash: Some(hash),
        site_admin: false,
    };
    let user = match accounts::create_user(&mut tx, new).await {
        Ok(user) => user,
        Err(e) => return Ok(again(e.status, e.message)),
    };
    let session =
        accounts::issue_credential(&mut tx, &user.id, "browser", CredentialKind::Browser, None)
            .await?;
    tx.commit().await?;
    tracing::info!(login = %user.login, "signed up");
    Ok(signed_in(&session.token))
}
