//! `/settings`: the signed-in person's own page (`settings` is a reserved login, so no
//! namespace takes it). Their credentials with Revoke (the API's own handlers; the
//! session of the browser viewing the page marked), changing the local provider's
//! password, and signing out everywhere. Each form works without JavaScript (`forms`).

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use svc_protocol::ErrorCode;

use super::code::seg;
use super::forms;
use super::home::{human, rfc3339};
use super::page::{self, Layout, Viewer};
use crate::accounts;
use crate::error::{ApiError, ApiResult};
use crate::extract::Path;
use crate::paths::CredentialPath;
use crate::routes::credentials as api;
use crate::state::AppState;
use crate::store::{credentials, users};

/// The person's page, where its forms come back to.
const HERE: &str = "/settings";
/// Where signing out everywhere lands: the sign-in page.
const SIGN_IN: &str = "/v1/login/browser";

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route(HERE, get(page))
        .route("/settings/credentials/{id}/revoke", post(revoke))
        .route("/settings/password", post(change_password))
        .route("/settings/sign-out-everywhere", post(sign_out_everywhere))
}

/// One credential's row.
struct Row {
    name: String,
    kind: &'static str,
    created: String,
    created_at: String,
    /// When last used, as words and as RFC 3339; none when never.
    used: Option<(String, String)>,
    /// The session of the browser viewing the page.
    this_browser: bool,
    /// Where its Revoke form posts.
    revoke: String,
}

#[derive(Template)]
#[template(path = "person.html")]
struct SettingsPage {
    layout: Layout,
    rows: Vec<Row>,
    /// The person has a password of the local provider, which they may change.
    password: bool,
}

async fn page(State(state): State<AppState>, viewer: Viewer) -> Response {
    page::answer(&viewer, build(&state, &viewer).await)
}

async fn build(state: &AppState, viewer: &Viewer) -> ApiResult<SettingsPage> {
    let caller = &viewer.0;
    let list = api::list(State(state.clone()), caller.clone()).await?.0;
    let password = {
        let mut conn = state.store.read().await?;
        users::by_id(conn.h(), &caller.user_id)
            .await?
            .is_some_and(|u| u.password_hash.is_some())
    };
    let rows = list
        .items
        .into_iter()
        .map(|c| Row {
            this_browser: c.id == caller.credential_id,
            revoke: format!("/settings/credentials/{}/revoke", seg(&c.id)),
            name: c.name,
            kind: c.kind.as_str(),
            created: human(c.created_at),
            created_at: rfc3339(c.created_at),
            used: c.last_used_at.map(|at| (human(at), rfc3339(at))),
        })
        .collect();
    Ok(SettingsPage {
        layout: Layout::new("Your account", viewer),
        rows,
        password,
    })
}

/// "Revoke" (revokeCredential): it fails from its next request on. Revoking this
/// browser's own session leads to the sign-in page, as the person's page then does.
async fn revoke(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    forms::post(&state, &viewer, &headers, HERE, async {
        api::revoke(
            State(state.clone()),
            viewer.0.clone(),
            Path(CredentialPath { id }),
        )
        .await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PasswordForm {
    current: String,
    password: String,
    password_again: String,
}

/// "Change password": the current one must match (as at sign-in), the new one is typed
/// twice and follows the same rule as a sign-in link's.
async fn change_password(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    axum::Form(form): axum::Form<PasswordForm>,
) -> Response {
    forms::post(&state, &viewer, &headers, HERE, async {
        let user_id = &viewer.0.user_id;
        let stored = {
            let mut conn = state.store.read().await?;
            users::by_id(conn.h(), user_id)
                .await?
                .and_then(|u| u.password_hash)
        };
        let Some(stored) = stored else {
            return Err(ApiError::bad_request(
                ErrorCode::BadRequest,
                "this account signs in with its identity provider and has no password here",
            ));
        };
        let current = form.current;
        let matches =
            tokio::task::spawn_blocking(move || accounts::verify_password(&current, &stored))
                .await
                .map_err(ApiError::internal)?;
        if !matches {
            return Err(ApiError::bad_request(
                ErrorCode::BadRequest,
                "the current password is wrong; nothing was changed",
            ));
        }
        let hash = super::people::chosen_password(&form.password, &form.password_again)
            .map_err(|(status, message)| ApiError::new(status, ErrorCode::BadRequest, message))?;
        let mut tx = state.store.begin().await?;
        users::set_password(tx.h(), user_id, &hash).await?;
        tx.commit().await?;
        tracing::info!(login = %viewer.0.login, "changed their password");
        Ok(())
    })
    .await
}

/// "Sign out everywhere": every credential of the person is revoked (browser sessions,
/// machines, sandboxes, as disabling a person does), each failing from its next request
/// on and its sockets closing; this browser's cookie is cleared and it lands on the
/// sign-in page.
async fn sign_out_everywhere(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
) -> Response {
    let mut response = forms::post_then(&state, &viewer, &headers, HERE, async {
        let mut tx = state.store.begin().await?;
        let ids = credentials::delete_all(tx.h(), &viewer.0.user_id).await?;
        tx.commit().await?;
        crate::people::forget_credentials(&state, &ids).await;
        tracing::info!(login = %viewer.0.login, revoked = ids.len(), "signed out everywhere");
        Ok(SIGN_IN.to_owned())
    })
    .await;
    let signed_out = response.status() == StatusCode::SEE_OTHER
        && response
            .headers()
            .get(header::LOCATION)
            .is_some_and(|l| l == SIGN_IN);
    if signed_out && let Ok(v) = HeaderValue::from_str(&crate::auth::clear_session_cookie()) {
        response.headers_mut().append(header::SET_COOKIE, v);
    }
    response
}
