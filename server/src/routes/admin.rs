//! Site administration: the server's people, for its site admins only (anyone else gets
//! the 404 of a missing route, through [`authz::site_admin`]).

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::admin::{AdminCreateUser, AdminUser, AdminUserCreated, AdminUserList};
use utoipa::IntoParams;

use crate::accounts;
use crate::auth::Caller;
use crate::authz;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query, page_limit};
use crate::people::{self, NewPerson};
use crate::state::AppState;
use crate::store::{time_of, users};

/// `/v1/admin/users/{login}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct AdminUserPath {
    /// The person's login (any case).
    login: String,
}

#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct ListQuery {
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1)]
    cursor: Option<String>,
    /// Rows a page, at most 100 (default 30).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

/// Makes an account (its email counts as verified: invites waiting for it become
/// memberships) and answers a one-time sign-in link, valid 7 days, where the person
/// sets a password. `admin: true` makes a site admin.
#[utoipa::path(post, path = "/v1/admin/users", operation_id = "createUser", tag = "admin", request_body = AdminCreateUser,
    responses(
        (status = 201, body = AdminUserCreated, description = "made; the link is shown this once"),
        (status = 400, body = ApiErrorBody, description = "`bad_email`, `bad_login`, `reserved_name` or `bad_request` (the name)"),
        (status = 401, body = ApiErrorBody, description = "no valid credential"),
        (status = 404, body = ApiErrorBody, description = "the caller is not a site admin"),
        (status = 409, body = ApiErrorBody, description = "`email_taken` or `namespace_taken`"),
        (status = 422, body = ApiErrorBody, description = "JSON of the wrong shape, or a name or email git cannot write in a commit")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<AdminCreateUser>,
) -> ApiResult<(StatusCode, Json<AdminUserCreated>)> {
    let mut tx = state.store.begin().await?;
    let me = authz::site_admin(tx.h(), &caller).await?;
    let new = NewPerson {
        email: &body.email,
        login: body.login.as_deref(),
        name: body.name.as_deref(),
        admin: body.admin,
    };
    let (user, link) = people::add(&mut tx, state.config.base(), new, Some(&me.id)).await?;
    tx.commit().await?;
    tracing::info!(login = %user.login, by = %me.login, "user made by a site admin");
    Ok((
        StatusCode::CREATED,
        Json(AdminUserCreated {
            admin: user.site_admin,
            user: accounts::user_view(&user),
            sign_in_link: link.url,
            link_expires_at: link.expires_at,
        }),
    ))
}

/// Every person on the server, by login.
#[utoipa::path(get, path = "/v1/admin/users", operation_id = "listUsers", tag = "admin", params(ListQuery),
    responses(
        (status = 200, body = AdminUserList, description = "a page of people"),
        (status = 400, body = ApiErrorBody, description = "`bad_request`: a limit out of range, or an empty cursor"),
        (status = 401, body = ApiErrorBody, description = "no valid credential"),
        (status = 404, body = ApiErrorBody, description = "the caller is not a site admin")))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<ListQuery>,
) -> ApiResult<Json<AdminUserList>> {
    let limit = page_limit(q.limit, 30, 100)?;
    if q.cursor.as_deref() == Some("") {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "cursor is a page's next_cursor, never empty",
        ));
    }
    let mut conn = state.store.read().await?;
    authz::site_admin(conn.h(), &caller).await?;
    let mut rows = users::page(conn.h(), q.cursor.as_deref(), limit + 1).await?;
    let more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(Json(AdminUserList {
        next_cursor: more.then(|| rows.last().map(|r| r.login.clone())).flatten(),
        items: rows.iter().map(view).collect(),
    }))
}

/// Disables a person: their every credential and session ends at once (on every
/// server within seconds), their sockets close, and no sign-in of theirs works until
/// they are enabled again.
#[utoipa::path(post, path = "/v1/admin/users/{login}/disable", operation_id = "disableUser", tag = "admin", params(AdminUserPath),
    responses(
        (status = 200, body = AdminUser, description = "disabled (or already was)"),
        (status = 400, body = ApiErrorBody, description = "`bad_request`: an admin cannot disable themselves"),
        (status = 401, body = ApiErrorBody, description = "no valid credential"),
        (status = 404, body = ApiErrorBody, description = "no such person, or the caller is not a site admin")))]
pub async fn disable(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<AdminUserPath>,
) -> ApiResult<Json<AdminUser>> {
    let mut tx = state.store.begin().await?;
    let me = authz::site_admin(tx.h(), &caller).await?;
    let user = person(&mut tx, &path.login).await?;
    if user.id == me.id {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "you cannot disable yourself; ask another site admin",
        ));
    }
    let revoked = people::disable(&mut tx, &user).await?;
    let user = person(&mut tx, &user.login).await?;
    tx.commit().await?;
    people::forget_credentials(&state, &revoked).await;
    tracing::info!(login = %user.login, by = %me.login, "user disabled");
    Ok(Json(view(&user)))
}

/// Lets a disabled person sign in again (they sign in afresh: nothing they held before
/// comes back).
#[utoipa::path(post, path = "/v1/admin/users/{login}/enable", operation_id = "enableUser", tag = "admin", params(AdminUserPath),
    responses(
        (status = 200, body = AdminUser, description = "enabled (or already was)"),
        (status = 401, body = ApiErrorBody, description = "no valid credential"),
        (status = 404, body = ApiErrorBody, description = "no such person, or the caller is not a site admin")))]
pub async fn enable(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<AdminUserPath>,
) -> ApiResult<Json<AdminUser>> {
    let mut tx = state.store.begin().await?;
    authz::site_admin(tx.h(), &caller).await?;
    let user = person(&mut tx, &path.login).await?;
    users::set_disabled(tx.h(), &user.id, None).await?;
    let user = person(&mut tx, &user.login).await?;
    tx.commit().await?;
    Ok(Json(view(&user)))
}

async fn person(tx: &mut crate::store::Tx, login: &str) -> ApiResult<users::UserRow> {
    users::by_login(tx.h(), &login.to_ascii_lowercase())
        .await?
        .ok_or_else(|| ApiError::not_found("user"))
}

/// A person as admins see them.
pub fn view(row: &users::UserRow) -> AdminUser {
    AdminUser {
        login: row.login.clone(),
        email: row.email.clone(),
        name: row.name.clone(),
        admin: row.site_admin,
        disabled: row.disabled_at.is_some(),
        disabled_at: row.disabled_at.map(time_of),
        created_at: time_of(row.created_at),
    }
}
