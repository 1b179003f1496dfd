//! Organizations: create, the header, their people and invites.

use axum::extract::State;
use axum::http::StatusCode;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::monorepo::{CreateInvite, Invite, InviteList, PutMember, Role};
use svc_protocol::org::{
    CreateOrg, Org, OrgInviteAnswer, OrgList, OrgMember, OrgMemberList, UpdateOrg,
};

use crate::accounts;
use crate::auth::Caller;
use crate::authz::{OrgAccess, OrgNeed};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::member_events;
use crate::paths::{OrgInvitePath, OrgMemberPath, OrgPath};
use crate::people;
use crate::state::AppState;
use crate::store::orgs::{self, OrgInviteRow, OrgMemberRow, OrgRow};
use crate::store::{H, now_ms, time_of, users};

/// Creates an org with the caller as its first owner. Its login shares the namespace
/// of people's logins: 409 `namespace_taken` when taken, 400 `reserved_name`.
#[utoipa::path(post, path = "/v1/orgs", operation_id = "createOrg", tag = "orgs", request_body = CreateOrg,
    responses((status = 201, body = Org),
        (status = 400, body = ApiErrorBody, description = "bad_login, reserved_name or a bad name"),
        (status = 409, body = ApiErrorBody, description = "namespace_taken")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CreateOrg>,
) -> ApiResult<(StatusCode, Json<Org>)> {
    let login = accounts::check_login(&body.login)?;
    let org = OrgRow {
        login,
        name: body
            .name
            .map(|n| accounts::check_name(&n, "name"))
            .transpose()?,
        description: body.description.map(check_description).transpose()?,
        picture_url: None,
        created_at: now_ms(),
    };
    let mut tx = state.store.begin().await?;
    accounts::ensure_free(tx.h(), &org.login).await?;
    orgs::create(tx.h(), &org, &caller.user_id)
        .await
        .map_err(|e| {
            if e.is_unique_violation() {
                ApiError::conflict(
                    ErrorCode::NamespaceTaken,
                    format!("the login {} was taken just now", org.login),
                )
            } else {
                e.into()
            }
        })?;
    tx.commit().await?;
    Ok((
        StatusCode::CREATED,
        Json(org_view(&org, Some(Role::Owner), Some(1))),
    ))
}

/// The org header, for anyone signed in; `role` and `members` are null outside it.
#[utoipa::path(get, path = "/v1/orgs/{org}", operation_id = "getOrg", tag = "orgs", params(OrgPath),
    responses((status = 200, body = Org), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<OrgPath>,
) -> ApiResult<Json<Org>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, OrgNeed::SignedIn).await?;
    Ok(Json(header(conn.h(), &access).await?))
}

/// Edits the org (owners): omitted fields are kept, null clears one.
#[utoipa::path(patch, path = "/v1/orgs/{org}", operation_id = "updateOrg", tag = "orgs", params(OrgPath), request_body = UpdateOrg,
    responses((status = 200, body = Org), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody),
        (status = 404, body = ApiErrorBody)))]
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<OrgPath>,
    Json(body): Json<UpdateOrg>,
) -> ApiResult<Json<Org>> {
    let mut tx = state.store.begin().await?;
    let mut access = path.access(tx.h(), &caller, OrgNeed::Owners).await?;
    let org = &mut access.org;
    if let Some(name) = body.name {
        org.name = name.map(|n| accounts::check_name(&n, "name")).transpose()?;
    }
    if let Some(description) = body.description {
        org.description = description.map(check_description).transpose()?;
    }
    if let Some(picture_url) = body.picture_url {
        org.picture_url = picture_url.map(accounts::check_picture_url).transpose()?;
    }
    orgs::update(tx.h(), org).await?;
    let answer = header(tx.h(), &access).await?;
    tx.commit().await?;
    Ok(Json(answer))
}

/// The orgs the caller is in, with their role, by login.
#[utoipa::path(get, path = "/v1/user/orgs", operation_id = "listMyOrgs", tag = "orgs",
    responses((status = 200, body = OrgList)))]
pub async fn list_mine(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<OrgList>> {
    let mut conn = state.store.read().await?;
    let rows = orgs::list_for_user(conn.h(), &caller.user_id).await?;
    Ok(Json(OrgList {
        items: rows
            .iter()
            .map(|r| org_view(&r.org, Role::parse(&r.role), Some(r.members)))
            .collect(),
        next_cursor: None,
    }))
}

/// The org's people, by login (its people only).
#[utoipa::path(get, path = "/v1/orgs/{org}/members", operation_id = "listOrgMembers", tag = "orgs", params(OrgPath),
    responses((status = 200, body = OrgMemberList), (status = 404, body = ApiErrorBody)))]
pub async fn list_members(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<OrgPath>,
) -> ApiResult<Json<OrgMemberList>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, OrgNeed::People).await?;
    let rows = orgs::members(conn.h(), &access.org.login, None).await?;
    Ok(Json(OrgMemberList {
        items: rows.iter().map(member_view).collect(),
        next_cursor: None,
    }))
}

/// Adds a person by login or changes their role (owners); in at once, with every
/// monorepo the org owns. 409 `last_owner` when no owner would be left.
#[utoipa::path(put, path = "/v1/orgs/{org}/members/{login}", operation_id = "putOrgMember", tag = "orgs", params(OrgMemberPath),
    request_body = PutMember,
    responses((status = 200, body = OrgMember), (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "last_owner")))]
pub async fn put_member(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<OrgMemberPath>,
    Json(body): Json<PutMember>,
) -> ApiResult<Json<OrgMember>> {
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, OrgNeed::Owners).await?;
    let org = &access.org.login;
    let user = users::by_login(tx.h(), &path.login.to_ascii_lowercase())
        .await?
        .ok_or_else(|| ApiError::not_found("user"))?;
    let current = orgs::role(tx.h(), org, &user.id).await?;
    if current.as_deref() == Some("owner") && body.role != Role::Owner {
        ensure_another_owner(tx.h(), org).await?;
    }
    orgs::put_member(
        tx.h(),
        org,
        &user.id,
        body.role.as_str(),
        Some(&caller.login),
        now_ms(),
    )
    .await?;
    let member = member_of(tx.h(), org, &user.id).await?;
    member_events::org_changed(tx.h(), org, &user.id, &user.login, Some(&caller.login)).await?;
    tx.commit().await?;
    // Activity sockets learn of the org's monorepos (`joined`) or a changed role at once.
    state.live.access_changed().await;
    Ok(Json(member))
}

/// Removes a person (owners), or the caller leaves. Their access to the org's monorepos
/// ends; their own monorepo rows stay. 409 `last_owner` for the only owner.
#[utoipa::path(delete, path = "/v1/orgs/{org}/members/{login}", operation_id = "removeOrgMember", tag = "orgs", params(OrgMemberPath),
    responses((status = 204), (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "last_owner")))]
pub async fn remove_member(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<OrgMemberPath>,
) -> ApiResult<StatusCode> {
    let login = path.login.to_ascii_lowercase();
    let need = if login == caller.login {
        OrgNeed::People
    } else {
        OrgNeed::Owners
    };
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, need).await?;
    let org = &access.org.login;
    let user = users::by_login(tx.h(), &login)
        .await?
        .ok_or_else(|| ApiError::not_found("member"))?;
    match orgs::role(tx.h(), org, &user.id).await?.as_deref() {
        None => return Err(ApiError::not_found("member")),
        Some("owner") => ensure_another_owner(tx.h(), org).await?,
        Some(_) => {}
    }
    orgs::remove_member(tx.h(), org, &user.id).await?;
    member_events::org_changed(tx.h(), org, &user.id, &user.login, Some(&caller.login)).await?;
    tx.commit().await?;
    // Their sockets of the org's monorepos close now, on every server, not at the next check.
    state.live.access_changed().await;
    Ok(StatusCode::NO_CONTENT)
}

/// Invites by email (owners): 200 `added` when someone signed in with that verified
/// email before, else 201 `invited`, which becomes a membership at that email's first
/// verified sign-in. The role is `member` unless given. When no one has an account with
/// that email and the server signs people in itself (no OpenID Connect provider), the
/// answer carries a one-time `sign_in_link` (7 days) for the inviter to pass on, where
/// the invitee makes their account and joins; with `[smtp]` the server mails it instead
/// (`mailed: true`).
#[utoipa::path(post, path = "/v1/orgs/{org}/invites", operation_id = "inviteOrgMember", tag = "orgs", params(OrgPath),
    request_body = CreateInvite,
    responses((status = 200, body = OrgInviteAnswer, description = "added"),
        (status = 201, body = OrgInviteAnswer, description = "invited (with `sign_in_link`, or `mailed`, for an email with no account on a server without an identity provider)"),
        (status = 400, body = ApiErrorBody, description = "bad_email"),
        (status = 403, body = ApiErrorBody, description = "a member, not an owner"),
        (status = 404, body = ApiErrorBody, description = "no such org, or the caller is outside it")))]
pub async fn invite(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<OrgPath>,
    Json(body): Json<CreateInvite>,
) -> ApiResult<(StatusCode, Json<OrgInviteAnswer>)> {
    let email = accounts::invite_email(&body.email)?;
    let role = body.role.unwrap_or(Role::Member);
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, OrgNeed::Owners).await?;
    let org = access.org.login;
    let known = users::by_email(tx.h(), &email)
        .await?
        .filter(|u| u.email_verified);
    let mut link = None;
    let (status, mut answer) = match known {
        Some(user) => {
            let current = orgs::role(tx.h(), &org, &user.id)
                .await?
                .as_deref()
                .and_then(Role::parse);
            let role = current.map_or(role, |r| r.max(role));
            orgs::put_member(
                tx.h(),
                &org,
                &user.id,
                role.as_str(),
                Some(&caller.login),
                now,
            )
            .await?;
            let member = member_of(tx.h(), &org, &user.id).await?;
            let actor = Some(caller.login.as_str());
            member_events::org_changed(tx.h(), &org, &user.id, &user.login, actor).await?;
            (StatusCode::OK, OrgInviteAnswer::Added { member })
        }
        None => {
            let row = OrgInviteRow {
                org,
                email,
                role: role.as_str().into(),
                invited_by: caller.login.clone(),
                created_at: now,
            };
            orgs::put_invite(tx.h(), &row).await?;
            link = people::invite_link(&state, &mut tx, &row.email, &caller.user_id).await?;
            let invite = invite_view(&row);
            let answer = OrgInviteAnswer::Invited {
                invite,
                sign_in_link: None,
                link_expires_at: None,
                mailed: false,
            };
            (StatusCode::CREATED, answer)
        }
    };
    tx.commit().await?;
    if status == StatusCode::OK {
        state.live.access_changed().await;
    }
    if let OrgInviteAnswer::Invited {
        invite,
        sign_in_link,
        link_expires_at,
        mailed,
    } = &mut answer
    {
        let place = format!("the organization {}", path.org.to_ascii_lowercase());
        (*sign_in_link, *link_expires_at, *mailed) =
            people::deliver(&state, link, &invite.email, &caller.login, &place).await;
    }
    Ok((status, Json(answer)))
}

/// Pending invites (its people only).
#[utoipa::path(get, path = "/v1/orgs/{org}/invites", operation_id = "listOrgInvites", tag = "orgs", params(OrgPath),
    responses((status = 200, body = InviteList), (status = 404, body = ApiErrorBody)))]
pub async fn list_invites(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<OrgPath>,
) -> ApiResult<Json<InviteList>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, OrgNeed::People).await?;
    let rows = orgs::invites(conn.h(), &access.org.login).await?;
    Ok(Json(InviteList {
        items: rows.iter().map(invite_view).collect(),
        next_cursor: None,
    }))
}

/// Withdraws an invite (owners).
#[utoipa::path(delete, path = "/v1/orgs/{org}/invites/{email}", operation_id = "revokeOrgInvite", tag = "orgs", params(OrgInvitePath),
    responses((status = 204), (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn revoke_invite(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<OrgInvitePath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, OrgNeed::Owners).await?;
    let email = path.email.to_ascii_lowercase();
    if !orgs::revoke_invite(tx.h(), &access.org.login, &email).await? {
        return Err(ApiError::not_found("invite"));
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// 409 `last_owner` unless the org has another owner.
async fn ensure_another_owner(h: H<'_>, org: &str) -> ApiResult<()> {
    if orgs::count_owners(h, org).await? <= 1 {
        return Err(ApiError::conflict(
            ErrorCode::LastOwner,
            "this would leave the org without an owner",
        ));
    }
    Ok(())
}

/// An org description: up to 1,000 characters.
fn check_description(description: String) -> ApiResult<String> {
    if description.chars().count() > 1000 {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "a description is at most 1,000 characters",
        ));
    }
    Ok(description)
}

/// The header as the caller sees it: the head count only for its people.
async fn header(h: H<'_>, access: &OrgAccess) -> ApiResult<Org> {
    let members = match access.role {
        Some(_) => Some(orgs::count_members(h, &access.org.login).await?),
        None => None,
    };
    Ok(org_view(&access.org, access.role, members))
}

fn org_view(row: &OrgRow, role: Option<Role>, members: Option<i64>) -> Org {
    Org {
        login: row.login.clone(),
        name: row.name.clone(),
        description: row.description.clone(),
        picture_url: row.picture_url.clone(),
        created_at: time_of(row.created_at),
        role,
        members,
    }
}

async fn member_of(h: H<'_>, org: &str, user_id: &str) -> ApiResult<OrgMember> {
    let rows = orgs::members(h, org, Some(user_id)).await?;
    rows.first()
        .map(member_view)
        .ok_or_else(|| ApiError::not_found("member"))
}

fn member_view(row: &OrgMemberRow) -> OrgMember {
    OrgMember {
        login: row.login.clone(),
        name: row.name.clone(),
        picture_url: row.picture_url.clone(),
        role: Role::parse(&row.role).unwrap_or(Role::Member),
        added_at: time_of(row.added_at),
        added_by: row.added_by.clone(),
        last_active_at: row.last_active_at.map(time_of),
    }
}

fn invite_view(row: &OrgInviteRow) -> Invite {
    Invite {
        email: row.email.clone(),
        role: Role::parse(&row.role).unwrap_or(Role::Member),
        invited_by: row.invited_by.clone(),
        created_at: time_of(row.created_at),
    }
}
