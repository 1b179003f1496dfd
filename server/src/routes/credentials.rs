//! The caller's credentials: list (never a token), create, revoke.

use axum::extract::State;
use axum::http::StatusCode;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::user::{
    CreateCredential, Credential, CredentialKind, CredentialList, NewCredential, Permission,
};

use crate::accounts;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::paths::CredentialPath;
use crate::state::AppState;
use crate::store::{credentials, now_ms, time_of};

/// Longest lifetime a credential may be given: ten years.
const MAX_EXPIRES_IN: u64 = 10 * 365 * 24 * 3600;

/// The caller's credentials, newest first.
#[utoipa::path(get, path = "/v1/user/credentials", operation_id = "listCredentials", tag = "credentials",
    responses((status = 200, body = CredentialList), (status = 401, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> ApiResult<Json<CredentialList>> {
    let mut conn = state.store.read().await?;
    let rows = credentials::list(conn.h(), &caller.user_id).await?;
    let items = rows
        .into_iter()
        .filter_map(|row| {
            Some(Credential {
                kind: CredentialKind::parse(&row.kind)?,
                permissions: accounts::permissions_of(&row.permissions),
                id: row.id,
                name: row.name,
                created_at: time_of(row.created_at),
                last_used_at: row.last_used_at.map(time_of),
                expires_at: row.expires_at.map(time_of),
            })
        })
        .collect();
    Ok(Json(CredentialList { items }))
}

/// Makes a further credential (a machine or a sandbox); its token is shown once.
#[utoipa::path(post, path = "/v1/user/credentials", operation_id = "createCredential", tag = "credentials", request_body = CreateCredential,
    responses((status = 201, body = NewCredential), (status = 400, body = ApiErrorBody), (status = 401, body = ApiErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CreateCredential>,
) -> ApiResult<(StatusCode, Json<NewCredential>)> {
    if body.kind == CredentialKind::Browser {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "kind must be machine or sandbox; browser sessions come from signing in",
        ));
    }
    let name = accounts::check_name(&body.name, "name")?;
    let expires_at = match body.expires_in {
        Some(0) => {
            return Err(ApiError::bad_request(
                ErrorCode::BadRequest,
                "expires_in must be positive",
            ));
        }
        Some(secs) => {
            Some(now_ms() + i64::try_from(secs.min(MAX_EXPIRES_IN) * 1000).unwrap_or(i64::MAX))
        }
        None => None,
    };
    // A credential never holds more than the one making it: named permissions the caller
    // lacks are refused, and the defaults of its kind are cut to the caller's.
    let permissions: Vec<Permission> = match &body.permissions {
        Some(asked) => {
            for p in asked {
                caller.require(*p)?;
            }
            asked.clone()
        }
        None => accounts::default_permissions(body.kind)
            .iter()
            .copied()
            .filter(|p| caller.permissions.contains(p))
            .collect(),
    };
    let mut tx = state.store.begin().await?;
    let credential = accounts::issue_credential_with(
        &mut tx,
        &caller.user_id,
        &name,
        body.kind,
        expires_at,
        &permissions,
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(credential)))
}

/// Revokes one of the caller's credentials; it fails from its next request on, and its
/// open sockets send nothing more and close with 4403.
#[utoipa::path(delete, path = "/v1/user/credentials/{id}", operation_id = "revokeCredential", tag = "credentials",
    params(CredentialPath),
    responses((status = 204), (status = 401, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn revoke(
    State(state): State<AppState>,
    caller: Caller,
    Path(CredentialPath { id }): Path<CredentialPath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    if !credentials::delete(tx.h(), &caller.user_id, &id).await? {
        return Err(ApiError::not_found("credential"));
    }
    tx.commit().await?;
    state.credentials.evict(&id);
    // Its sockets write nothing once this answers.
    state.credentials.sockets.shut_and_wait(&id).await;
    Ok(StatusCode::NO_CONTENT)
}
