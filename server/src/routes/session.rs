//! Browser sign-in (an OpenID Connect provider, or the built-in local provider's
//! password) and sign-out. Both end in the session cookie.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use subtle::ConstantTimeEq;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::login::{LoggedOut, PasswordLogin};
use svc_protocol::user::{CredentialKind, User};

use crate::accounts::{self, NewUser};
use crate::auth::{self, Caller};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Query};
use crate::git::merge::{signable, signable_text};
use crate::oidc::Claims;
use crate::state::AppState;
use crate::store::{Tx, credentials, login_states, now_ms, users};
use crate::token;
use crate::web::safe_return_to;

/// A pending provider sign-in lives ten minutes.
const LOGIN_STATE_MS: i64 = 10 * 60 * 1000;

/// Binds a provider sign-in to the browser that began it, against login CSRF: a callback
/// address someone completed at the provider as themselves and sent to another person
/// signs nobody in there. `__Host-` and Secure like the session cookie; it lives as long
/// as the pending sign-in and holds a random value whose hash is kept with the state.
const LOGIN_COOKIE: &str = "__Host-svc_login";

fn login_cookie(value: &str) -> String {
    format!(
        "{LOGIN_COOKIE}={value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age={}",
        LOGIN_STATE_MS / 1000
    )
}

fn clear_login_cookie() -> String {
    format!("{LOGIN_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0")
}

/// What is kept of the login cookie's value: its SHA-256, hex.
fn browser_hash(value: &str) -> String {
    hex::encode(token::hash(value))
}

/// Whether this request comes from the browser that began `pending` (compared in
/// constant time; a sign-in kept before the binding existed matches no browser).
fn same_browser(headers: &HeaderMap, pending: &login_states::LoginState) -> bool {
    let Some(value) = auth::cookie(headers, LOGIN_COOKIE) else {
        return false;
    };
    bool::from(
        browser_hash(value)
            .as_bytes()
            .ct_eq(pending.browser_hash.as_bytes()),
    )
}

/// Verified against when the login is unknown, so both answers take as long.
fn dummy_hash() -> String {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| accounts::hash_password(&token::new_secret()).unwrap_or_default())
        .clone()
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct BrowserQuery {
    /// A path on this host to come back to (else `/`).
    return_to: Option<String>,
}

fn callback_uri(state: &AppState) -> String {
    format!("{}/v1/login/callback", state.config.base())
}

/// Leads to the identity provider's sign-in page (the local password page when no
/// OpenID Connect provider is configured), setting the cookie that ties the sign-in to
/// this browser.
#[utoipa::path(get, path = "/v1/login/browser", operation_id = "loginBrowser", tag = "login", security(()), params(BrowserQuery),
    responses((status = 303, description = "to the provider's page, with the `__Host-svc_login` cookie"),
        (status = 502, body = ApiErrorBody)))]
pub async fn browser(
    State(state): State<AppState>,
    Query(q): Query<BrowserQuery>,
) -> ApiResult<Response> {
    let return_to = safe_return_to(q.return_to.as_deref());
    let Some(provider) = &state.oidc else {
        let mut page = url::Url::parse("http://x/login").map_err(ApiError::internal)?;
        page.query_pairs_mut().append_pair("return_to", &return_to);
        let target = format!("/login?{}", page.query().unwrap_or_default());
        return Ok(Redirect::to(&target).into_response());
    };
    let browser = token::new_secret();
    let row = login_states::LoginState {
        state: token::new_secret(),
        nonce: token::new_secret(),
        pkce_verifier: token::new_secret(),
        return_to,
        expires_at: now_ms() + LOGIN_STATE_MS,
        browser_hash: browser_hash(&browser),
    };
    let url = provider
        .authorize_url(
            &callback_uri(&state),
            &row.state,
            &row.nonce,
            &row.pkce_verifier,
        )
        .await
        .map_err(|e| {
            ApiError::new(
                StatusCode::BAD_GATEWAY,
                ErrorCode::ProviderUnavailable,
                e.to_string(),
            )
        })?;
    let mut tx = state.store.begin().await?;
    login_states::prune(tx.h(), now_ms()).await?;
    login_states::insert(tx.h(), &row).await?;
    tx.commit().await?;
    let mut response = Redirect::to(url.as_str()).into_response();
    set_cookie(&mut response, &login_cookie(&browser))?;
    Ok(response)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// The provider returns here: in the browser that began the sign-in (its
/// `__Host-svc_login` cookie), the person is found or created, the session cookie set,
/// the login cookie cleared, and the browser sent back to `return_to`.
#[utoipa::path(get, path = "/v1/login/callback", operation_id = "loginCallback", tag = "login", security(()), params(CallbackQuery),
    responses((status = 303, description = "signed in; back to return_to"),
        (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "`wrong_browser`: not the browser that began the sign-in; `account_disabled`: the person was disabled"),
        (status = 404, body = ApiErrorBody), (status = 502, body = ApiErrorBody)))]
pub async fn callback(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<CallbackQuery>,
) -> ApiResult<Response> {
    let Some(provider) = &state.oidc else {
        return Err(ApiError::not_found(
            "OpenID Connect provider (none is configured)",
        ));
    };
    if let Some(error) = q.error {
        return Err(ApiError::bad_request(
            ErrorCode::AccessDenied,
            format!("the provider refused the sign-in: {error}"),
        ));
    }
    let (Some(code), Some(login_state)) = (q.code, q.state) else {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "the callback needs code and state",
        ));
    };
    let pending = {
        let mut tx = state.store.begin().await?;
        let pending = login_states::take(tx.h(), &login_state, now_ms()).await?;
        tx.commit().await?;
        pending.ok_or_else(|| {
            ApiError::bad_request(
                ErrorCode::BadRequest,
                "this sign-in expired or was used; start again",
            )
        })?
    };
    // The state is used up either way: a callback address that reached another browser
    // has leaked, and what it carries is not tried again.
    if !same_browser(&headers, &pending) {
        return Err(ApiError::forbidden(
            ErrorCode::WrongBrowser,
            "this sign-in was begun in another browser (or this browser lost its sign-in \
             cookie); nobody was signed in; start again here",
        ));
    }
    let claims = provider
        .exchange(
            &code,
            &callback_uri(&state),
            &pending.pkce_verifier,
            &pending.nonce,
        )
        .await
        .map_err(|e| {
            ApiError::new(
                StatusCode::BAD_GATEWAY,
                ErrorCode::ProviderError,
                e.to_string(),
            )
        })?;
    let mut tx = state.store.begin().await?;
    let user = user_for_claims(&mut tx, &claims).await?;
    crate::people::check_enabled(&user)?;
    let session =
        accounts::issue_credential(&mut tx, &user.id, "browser", CredentialKind::Browser, None)
            .await?;
    tx.commit().await?;
    tracing::info!(login = %user.login, "signed in with the identity provider");
    let mut response = Redirect::to(&pending.return_to).into_response();
    set_cookie(&mut response, &auth::session_cookie(&session.token))?;
    set_cookie(&mut response, &clear_login_cookie())?;
    Ok(response)
}

/// The person the provider vouched for: known by `(issuer, subject)`, else the user with
/// that verified email, else a new user whose login derives from the email. Sign-in never
/// fails on what git cannot write in a commit: such an email is not taken (cleaning it
/// could name someone else's), and a name is taken without it.
async fn user_for_claims(tx: &mut Tx, claims: &Claims) -> ApiResult<users::UserRow> {
    let email = claims
        .email
        .as_deref()
        .filter(|e| e.chars().all(signable))
        .map(str::to_ascii_lowercase);
    let name = claims
        .name
        .as_deref()
        .map(signable_text)
        .filter(|n| !n.is_empty());
    if let Some(user) = users::by_identity(tx.h(), &claims.iss, &claims.sub).await? {
        if email.is_some() && (claims.email_verified || user.email == email) {
            users::set_email(tx.h(), &user.id, email.as_deref(), claims.email_verified).await?;
        }
        if let (Some(email), true) = (&email, claims.email_verified) {
            accounts::accept_invites(tx, &user.id, email).await?;
        }
        return Ok(user);
    }
    let existing = match &email {
        Some(e) if claims.email_verified => users::by_email(tx.h(), e).await?,
        _ => None,
    };
    let user = match existing {
        Some(user) => {
            users::set_email(tx.h(), &user.id, email.as_deref(), true).await?;
            if let Some(email) = &email {
                accounts::accept_invites(tx, &user.id, email).await?;
            }
            user
        }
        None => {
            let derive_from = email.clone().or_else(|| claims.preferred_username.clone());
            accounts::create_user(
                tx,
                NewUser {
                    login: None,
                    email: derive_from.as_deref().filter(|_| email.is_some()),
                    email_verified: claims.email_verified,
                    name: name.as_deref(),
                    password_hash: None,
                    site_admin: false,
                },
            )
            .await?
        }
    };
    users::link_identity(tx.h(), &claims.iss, &claims.sub, &user.id).await?;
    Ok(user)
}

/// Signs in with the built-in local provider's password; sets the session cookie.
#[utoipa::path(post, path = "/v1/login/password", operation_id = "loginPassword", tag = "login", security(()), request_body = PasswordLogin,
    responses((status = 200, body = User, description = "signed in: the session cookie is set"),
        (status = 401, body = ApiErrorBody, description = "wrong login or password"),
        (status = 403, body = ApiErrorBody, description = "`bad_origin`: foreign or missing Origin; `account_disabled`: the person was disabled")))]
pub async fn password(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(body): Json<PasswordLogin>,
) -> ApiResult<Response> {
    auth::check_origin(&headers, &state)?;
    let who = body.login.trim().to_ascii_lowercase();
    let user = {
        let mut conn = state.store.read().await?;
        if who.contains('@') {
            users::by_email(conn.h(), &who).await?
        } else {
            users::by_login(conn.h(), &who).await?
        }
    };
    let hash = user.as_ref().and_then(|u| u.password_hash.clone());
    let password = body.password;
    let checked = hash.clone().unwrap_or_else(dummy_hash);
    let matches =
        tokio::task::spawn_blocking(move || accounts::verify_password(&password, &checked))
            .await
            .map_err(ApiError::internal)?;
    let Some(user) = user.filter(|_| matches && hash.is_some()) else {
        return Err(ApiError::unauthorized("wrong login or password"));
    };
    crate::people::check_enabled(&user)?;
    let mut tx = state.store.begin().await?;
    let session =
        accounts::issue_credential(&mut tx, &user.id, "browser", CredentialKind::Browser, None)
            .await?;
    tx.commit().await?;
    let mut response = Json(accounts::user_view(&user)).into_response();
    set_cookie(&mut response, &auth::session_cookie(&session.token))?;
    Ok(response)
}

/// Ends the calling session (or revokes the calling credential) and says where to end
/// the identity provider's session.
#[utoipa::path(post, path = "/v1/logout", operation_id = "logout", tag = "login",
    responses((status = 200, body = LoggedOut), (status = 401, body = ApiErrorBody), (status = 403, body = ApiErrorBody)))]
pub async fn logout(State(state): State<AppState>, caller: Caller) -> ApiResult<Response> {
    let mut tx = state.store.begin().await?;
    credentials::delete(tx.h(), &caller.user_id, &caller.credential_id).await?;
    tx.commit().await?;
    state.credentials.evict(&caller.credential_id);
    let end_session_url = match &state.oidc {
        Some(provider) if caller.via_cookie => provider.end_session_url().await,
        _ => None,
    };
    let mut response = Json(LoggedOut { end_session_url }).into_response();
    if caller.via_cookie {
        set_cookie(&mut response, &auth::clear_session_cookie())?;
    }
    Ok(response)
}

fn set_cookie(response: &mut Response, value: &str) -> ApiResult<()> {
    let value = HeaderValue::from_str(value).map_err(ApiError::internal)?;
    response.headers_mut().append(header::SET_COOKIE, value);
    Ok(())
}
