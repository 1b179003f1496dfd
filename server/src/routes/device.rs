//! The device flow (RFC 8628): a machine shows a code, its person approves it in a
//! browser, and the machine's poll answers the user and one new machine credential.

use axum::body::Bytes;
use axum::extract::State;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::login::{
    DeviceApprove, DeviceCode, DeviceDecision, DeviceStart, DeviceTokenRequest,
};
use svc_protocol::user::{CredentialKind, UserWithCredential};

use crate::accounts;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, json_object};
use crate::state::AppState;
use crate::store::{device, now_ms, users};
use crate::token;

/// What a machine credential is called when nobody named the machine.
const DEFAULT_MACHINE: &str = "machine";
/// RFC 8628 section 3.5: each `slow_down` adds five seconds to the interval.
const SLOW_DOWN_STEP: i64 = 5;

fn poll_refusal(code: ErrorCode, message: &str) -> ApiError {
    ApiError::bad_request(code, message)
}

/// Starts a device flow. The body (optional: none, or `null`) may name the machine.
#[utoipa::path(post, path = "/v1/login/device", operation_id = "startDeviceLogin", tag = "login", security(()),
    request_body(content = Option<DeviceStart>, description = "optional: may name the machine"),
    responses((status = 200, body = DeviceCode), (status = 400, body = ApiErrorBody)))]
pub async fn start(State(state): State<AppState>, body: Bytes) -> ApiResult<Json<DeviceCode>> {
    let start: DeviceStart = if matches!(body.trim_ascii(), b"" | b"null") {
        DeviceStart::default()
    } else {
        json_object(&body)?
    };
    let machine = start
        .machine
        .map(|m| accounts::check_name(&m, "machine"))
        .transpose()?;
    let settings = &state.config.login;
    let device_code = token::new_secret();
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    device::prune(tx.h(), now).await?;
    let mut user_code = token::new_user_code();
    // 20^8 codes: a clash with a live code is rare, so a few fresh draws always do.
    for _ in 0..5 {
        if device::by_user_code(tx.h(), &user_code).await?.is_none() {
            break;
        }
        user_code = token::new_user_code();
    }
    let row = device::DeviceRow {
        user_code: user_code.clone(),
        machine,
        state: "pending".into(),
        user_id: None,
        interval_secs: i64::try_from(settings.device_interval).unwrap_or(5),
        last_poll_at: None,
        created_at: now,
        expires_at: now + i64::try_from(settings.device_expires_in * 1000).unwrap_or(i64::MAX / 2),
    };
    device::insert(tx.h(), &token::hash(&device_code), &row).await?;
    tx.commit().await?;
    let verification_uri = format!("{}/login/device", state.config.base());
    Ok(Json(DeviceCode {
        device_code,
        verification_uri_complete: format!("{verification_uri}?user_code={user_code}"),
        user_code,
        verification_uri,
        expires_in: settings.device_expires_in,
        interval: settings.device_interval,
    }))
}

/// Polled with the device code until the person decides. 400 codes:
/// `authorization_pending`, `slow_down` (add 5 s to the interval), `expired_token`,
/// `access_denied`.
#[utoipa::path(post, path = "/v1/login/token", operation_id = "pollDeviceLogin", tag = "login", security(()),
    request_body = DeviceTokenRequest,
    responses((status = 200, body = UserWithCredential, description = "approved: the person and the machine's credential"),
        (status = 400, body = ApiErrorBody, description = "`authorization_pending`, `slow_down`, `expired_token`, `access_denied` or `invalid_grant`"),
        (status = 403, body = ApiErrorBody, description = "`account_disabled`: the person was disabled")))]
pub async fn poll(
    State(state): State<AppState>,
    Json(body): Json<DeviceTokenRequest>,
) -> ApiResult<Json<UserWithCredential>> {
    let hash = token::hash(&body.device_code);
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let Some(row) = device::by_device_code(tx.h(), &hash).await? else {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidGrant,
            "unknown device code; start again",
        ));
    };
    if now >= row.expires_at {
        return Err(poll_refusal(
            ErrorCode::ExpiredToken,
            "the code expired; start again",
        ));
    }
    match row.state.as_str() {
        "pending" => {
            let too_soon = row
                .last_poll_at
                .is_some_and(|at| now - at < row.interval_secs * 1000);
            let interval = row.interval_secs + if too_soon { SLOW_DOWN_STEP } else { 0 };
            device::record_poll(tx.h(), &hash, now, interval).await?;
            tx.commit().await?;
            Err(if too_soon {
                poll_refusal(
                    ErrorCode::SlowDown,
                    &format!("polling too fast; wait {interval} s between polls"),
                )
            } else {
                poll_refusal(
                    ErrorCode::AuthorizationPending,
                    "waiting for the code to be approved",
                )
            })
        }
        "denied" => Err(poll_refusal(ErrorCode::AccessDenied, "the code was denied")),
        "approved" if device::mark_issued(tx.h(), &hash).await? => {
            let user_id = row
                .user_id
                .ok_or_else(|| ApiError::internal("approved code without user"))?;
            let user = users::by_id(tx.h(), &user_id)
                .await?
                .ok_or_else(|| ApiError::not_found("user"))?;
            crate::people::check_enabled(&user)?;
            let machine = row.machine.as_deref().unwrap_or(DEFAULT_MACHINE);
            let credential = accounts::issue_credential(
                &mut tx,
                &user.id,
                machine,
                CredentialKind::Machine,
                None,
            )
            .await?;
            tx.commit().await?;
            tracing::info!(login = %user.login, machine, "device signed in");
            Ok(Json(UserWithCredential {
                user: accounts::user_view(&user),
                credential,
            }))
        }
        _ => Err(poll_refusal(
            ErrorCode::ExpiredToken,
            "this code was already used; start again",
        )),
    }
}

/// Approves or denies a code, by a signed-in person (the `/login/device` page uses it).
#[utoipa::path(post, path = "/v1/login/device/approve", operation_id = "approveDeviceLogin", tag = "login", request_body = DeviceApprove,
    responses(
        (status = 200, body = DeviceDecision),
        (status = 400, body = ApiErrorBody), (status = 401, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "cookie without our Origin"),
        (status = 404, body = ApiErrorBody, description = "no such code, or expired"),
        (status = 409, body = ApiErrorBody, description = "already approved or denied")))]
pub async fn approve(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<DeviceApprove>,
) -> ApiResult<Json<DeviceDecision>> {
    let user_code = token::normalize_user_code(&body.user_code).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::BadRequest,
            "a code is eight letters, like BCDF-GHJK",
        )
    })?;
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let row = device::by_user_code(tx.h(), &user_code)
        .await?
        .filter(|row| row.expires_at > now)
        .ok_or_else(|| ApiError::not_found("code (or it has expired)"))?;
    if row.state != "pending" {
        return Err(ApiError::conflict(
            ErrorCode::AlreadyDecided,
            "this code was already approved or denied",
        ));
    }
    let machine = match body.machine.as_deref().or(row.machine.as_deref()) {
        Some(m) => accounts::check_name(m, "machine")?,
        None => DEFAULT_MACHINE.to_owned(),
    };
    let new_state = if body.approve { "approved" } else { "denied" };
    if !device::decide(
        tx.h(),
        &user_code,
        new_state,
        &caller.user_id,
        &machine,
        now,
    )
    .await?
    {
        return Err(ApiError::conflict(
            ErrorCode::AlreadyDecided,
            "this code was already approved or denied",
        ));
    }
    tx.commit().await?;
    Ok(Json(DeviceDecision {
        user_code,
        approved: body.approve,
        machine,
    }))
}
