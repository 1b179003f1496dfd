//! Users: self-hosted bootstrap and the caller's own profile.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::user::{CreateUser, CredentialKind, UpdateUser, User, UserWithCredential};

use crate::accounts::{self, NewUser};
use crate::auth::{self, Caller};
use crate::error::{ApiError, ApiResult};
use crate::extract::Json;
use crate::state::AppState;
use crate::store::users;

/// Creates a user on a self-hosted server, with the bootstrap secret as Bearer.
/// Answers the user and a machine credential (its token shown once).
#[utoipa::path(post, path = "/v1/users", operation_id = "bootstrapUser", tag = "users", request_body = CreateUser,
    security(("bootstrap" = [])),
    responses(
        (status = 201, body = UserWithCredential),
        (status = 401, body = ApiErrorBody, description = "no bootstrap secret sent"),
        (status = 403, body = ApiErrorBody, description = "wrong bootstrap secret"),
        (status = 404, body = ApiErrorBody, description = "no bootstrap secret configured"),
        (status = 409, body = ApiErrorBody, description = "login or email taken"),
        (status = 422, body = ApiErrorBody, description = "bad_request: JSON of the wrong shape, or a name git cannot write in a commit (`<`, `>`, a newline, a control character); bad_email: such an email")))]
pub async fn create_user(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(body): Json<CreateUser>,
) -> ApiResult<(StatusCode, Json<UserWithCredential>)> {
    let Some(secret) = &state.config.bootstrap_secret else {
        return Err(ApiError::not_found(
            "bootstrap (no bootstrap secret is configured)",
        ));
    };
    let Some(sent) = auth::bearer(&headers) else {
        return Err(ApiError::unauthorized(
            "send the bootstrap secret as Authorization: Bearer",
        ));
    };
    let same = Sha256::digest(sent.as_bytes()).ct_eq(&Sha256::digest(secret.as_bytes()));
    if !bool::from(same) {
        return Err(ApiError::forbidden(
            ErrorCode::Forbidden,
            "that is not the bootstrap secret",
        ));
    }
    let email = body.email.trim();
    if !looks_like_email(email) {
        return Err(ApiError::bad_request(
            ErrorCode::BadEmail,
            "email must look like name@host",
        ));
    }
    let name = body
        .name
        .as_deref()
        .map(accounts::check_person_name)
        .transpose()?;
    let password_hash = body
        .password
        .as_deref()
        .map(accounts::hash_password)
        .transpose()?;
    let mut tx = state.store.begin().await?;
    let user = accounts::create_user(
        &mut tx,
        NewUser {
            login: body.login.as_deref(),
            name: name.as_deref(),
            password_hash,
            ..NewUser::verified_email(email)
        },
    )
    .await?;
    let credential = accounts::issue_credential(
        &mut tx,
        &user.id,
        "bootstrap",
        CredentialKind::Machine,
        None,
    )
    .await?;
    tx.commit().await?;
    tracing::info!(login = %user.login, "user created by bootstrap");
    Ok((
        StatusCode::CREATED,
        Json(UserWithCredential {
            user: accounts::user_view(&user),
            credential,
        }),
    ))
}

fn looks_like_email(email: &str) -> bool {
    email.len() <= 254
        && email.split_once('@').is_some_and(|(local, host)| {
            !local.is_empty()
                && host.contains('.')
                && !host.starts_with('.')
                && !email.contains(char::is_whitespace)
        })
}

/// The caller's own profile.
#[utoipa::path(get, path = "/v1/user", operation_id = "getUser", tag = "users",
    responses((status = 200, body = User), (status = 401, body = ApiErrorBody)))]
pub async fn get_user(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<User>> {
    let mut conn = state.store.read().await?;
    let user = users::by_id(conn.h(), &caller.user_id)
        .await?
        .ok_or_else(|| ApiError::not_found("user"))?;
    Ok(Json(accounts::user_view(&user)))
}

/// Edits the caller's profile: omitted fields are kept, null clears one. A name git
/// cannot write in a commit (`<`, `>`, a newline, a control character) is refused with 422.
#[utoipa::path(patch, path = "/v1/user", operation_id = "updateUser", tag = "users", request_body = UpdateUser,
    responses((status = 200, body = User), (status = 400, body = ApiErrorBody), (status = 401, body = ApiErrorBody),
        (status = 422, body = ApiErrorBody, description = "bad_request: JSON of the wrong shape, or a name git cannot write in a commit (`<`, `>`, a newline, a control character)")))]
pub async fn update_user(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<UpdateUser>,
) -> ApiResult<Json<User>> {
    let mut tx = state.store.begin().await?;
    let mut user = users::by_id(tx.h(), &caller.user_id)
        .await?
        .ok_or_else(|| ApiError::not_found("user"))?;
    if let Some(name) = body.name {
        user.name = name.map(|n| accounts::check_person_name(&n)).transpose()?;
    }
    if let Some(picture_url) = body.picture_url {
        user.picture_url = picture_url.map(accounts::check_picture_url).transpose()?;
    }
    users::update_profile(
        tx.h(),
        &user.id,
        user.name.as_deref(),
        user.picture_url.as_deref(),
    )
    .await?;
    tx.commit().await?;
    Ok(Json(accounts::user_view(&user)))
}
