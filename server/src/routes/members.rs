//! Members and invites of a monorepo.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::monorepo::{
    CreateInvite, Invite, InviteAnswer, InviteList, MemberList, PutMember, Role,
};

use crate::accounts;
use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::member_events;
use crate::paths::{InvitePath, MemberPath, MonorepoPath};
use crate::people;
use crate::state::AppState;
use crate::store::monorepos::{self, InviteRow};
use crate::store::{H, now_ms, time_of, users};
use crate::views;

/// Everyone who can open the monorepo, by login.
///
/// In an org's monorepo, its own members and the org's people: `via` says which
/// (`direct` when they have their own row), `role` is the higher of the two.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/members", operation_id = "listMembers", tag = "members",
    params(MonorepoPath),
    responses((status = 200, body = MemberList), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<MemberList>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let rows = monorepos::members(conn.h(), &access.monorepo.id).await?;
    Ok(Json(MemberList {
        items: rows.iter().map(views::member).collect(),
        next_cursor: None,
    }))
}

/// Adds someone or changes their role (owners). 409 `last_owner` when no owner would be left.
#[utoipa::path(put, path = "/v1/monorepos/{owner}/{monorepo}/members/{login}", operation_id = "putMember", tag = "members", request_body = PutMember,
    params(MemberPath),
    responses((status = 200, body = svc_protocol::monorepo::Member), (status = 403, body = ApiErrorBody),
        (status = 404, body = ApiErrorBody), (status = 409, body = ApiErrorBody, description = "last_owner")))]
pub async fn put(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MemberPath>,
    Json(body): Json<PutMember>,
) -> ApiResult<Response> {
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Own).await?;
    let id = &access.monorepo.id;
    let user = users::by_login(tx.h(), &path.login.to_ascii_lowercase())
        .await?
        .ok_or_else(|| ApiError::not_found("user"))?;
    let current = own_role(tx.h(), id, &user.id).await?;
    if current == Some(Role::Owner) && body.role != Role::Owner {
        ensure_another_owner(tx.h(), id).await?;
    }
    monorepos::put_member(
        tx.h(),
        id,
        &user.id,
        body.role.as_str(),
        Some(&caller.login),
        now_ms(),
    )
    .await?;
    let member = member_of(tx.h(), id, &user.id).await?;
    member_events::changed(tx.h(), id, &user.id, &user.login, Some(&caller.login)).await?;
    tx.commit().await?;
    Ok(Json(member).into_response())
}

/// Removes someone's own row (owners, or anyone leaving). 409 `last_owner` for the last owner.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/members/{login}", operation_id = "removeMember", tag = "members",
    params(MemberPath),
    responses((status = 204), (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "last_owner")))]
pub async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MemberPath>,
) -> ApiResult<StatusCode> {
    let login = path.login.to_ascii_lowercase();
    // Leaving is a person's own act: a write for them, but what an agent session's
    // credential may not do for them (it would lose its person the monorepo), so for
    // one it is an owner's act, which no session may do.
    let need = if login == caller.login && caller.scope.is_none() {
        Need::Write
    } else {
        Need::Own
    };
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, need).await?;
    let id = &access.monorepo.id;
    let user = users::by_login(tx.h(), &login)
        .await?
        .ok_or_else(|| ApiError::not_found("member"))?;
    // Their own row only: someone in the owning org keeps the org's access.
    match own_role(tx.h(), id, &user.id).await? {
        None => return Err(ApiError::not_found("member")),
        Some(Role::Owner) => ensure_another_owner(tx.h(), id).await?,
        Some(Role::Member) => {}
    }
    monorepos::remove_member(tx.h(), id, &user.id).await?;
    member_events::changed(tx.h(), id, &user.id, &user.login, Some(&caller.login)).await?;
    tx.commit().await?;
    state.live.access_changed().await;
    Ok(StatusCode::NO_CONTENT)
}

/// The person's own row's role, leaving out what an org gives them.
async fn own_role(h: H<'_>, monorepo_id: &str, user_id: &str) -> ApiResult<Option<Role>> {
    Ok(monorepos::own_role(h, monorepo_id, user_id)
        .await?
        .as_deref()
        .and_then(Role::parse))
}

/// 409 `last_owner` unless taking one owner row away leaves an owner (another owner
/// row, or the owners of the org that owns the monorepo).
async fn ensure_another_owner(h: H<'_>, monorepo_id: &str) -> ApiResult<()> {
    if monorepos::count_owners(h, monorepo_id).await? <= 1 {
        return Err(ApiError::conflict(
            ErrorCode::LastOwner,
            "this would leave the monorepo without an owner",
        ));
    }
    Ok(())
}

async fn member_of(
    h: H<'_>,
    monorepo_id: &str,
    user_id: &str,
) -> ApiResult<svc_protocol::monorepo::Member> {
    let row = monorepos::member(h, monorepo_id, user_id)
        .await?
        .ok_or_else(|| ApiError::not_found("member"))?;
    Ok(views::member(&row))
}

/// Invites by email (owners): 200 `added` when someone signed in with that email
/// before, else 201 `invited`, accepted at that email's first verified sign-in. When no
/// one has an account with that email and the server signs people in itself (no OpenID
/// Connect provider), the answer carries a one-time `sign_in_link` (7 days) for the
/// inviter to pass on; with `[smtp]` the server mails it instead (`mailed: true`).
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/invites", operation_id = "inviteMember", tag = "members", request_body = CreateInvite,
    params(MonorepoPath),
    responses((status = 200, body = InviteAnswer, description = "added: that email's person is a member now"),
        (status = 201, body = InviteAnswer, description = "invited (with `sign_in_link`, or `mailed`, for an email with no account on a server without an identity provider)"),
        (status = 400, body = ApiErrorBody, description = "`bad_email`"),
        (status = 403, body = ApiErrorBody, description = "a member, not an owner"),
        (status = 404, body = ApiErrorBody, description = "no such monorepo, or the caller is outside it")))]
pub async fn invite(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<CreateInvite>,
) -> ApiResult<Response> {
    let email = accounts::invite_email(&body.email)?;
    let role = body.role.unwrap_or(Role::Member);
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Own).await?;
    let id = access.monorepo.id.clone();
    let known = users::by_email(tx.h(), &email)
        .await?
        .filter(|u| u.email_verified);
    let mut link = None;
    let mut answer = match known {
        Some(user) => {
            let current = own_role(tx.h(), &id, &user.id).await?;
            let role = current.map_or(role, |r| r.max(role));
            monorepos::put_member(
                tx.h(),
                &id,
                &user.id,
                role.as_str(),
                Some(&caller.login),
                now,
            )
            .await?;
            member_events::changed(tx.h(), &id, &user.id, &user.login, Some(&caller.login)).await?;
            (
                StatusCode::OK,
                InviteAnswer::Added {
                    member: member_of(tx.h(), &id, &user.id).await?,
                },
            )
        }
        None => {
            let row = InviteRow {
                monorepo_id: id,
                email,
                role: role.as_str().into(),
                invited_by: caller.login.clone(),
                created_at: now,
            };
            monorepos::put_invite(tx.h(), &row).await?;
            link = people::invite_link(&state, &mut tx, &row.email, &caller.user_id).await?;
            (
                StatusCode::CREATED,
                InviteAnswer::Invited {
                    invite: invite_view(&row),
                    sign_in_link: None,
                    link_expires_at: None,
                    mailed: false,
                },
            )
        }
    };
    tx.commit().await?;
    if let InviteAnswer::Invited {
        invite,
        sign_in_link,
        link_expires_at,
        mailed,
    } = &mut answer.1
    {
        let place = format!(
            "the monorepo {}/{}",
            access.monorepo.owner, access.monorepo.name
        );
        (*sign_in_link, *link_expires_at, *mailed) =
            people::deliver(&state, link, &invite.email, &caller.login, &place).await;
    }
    Ok((answer.0, Json(answer.1)).into_response())
}

fn invite_view(row: &InviteRow) -> Invite {
    Invite {
        email: row.email.clone(),
        role: Role::parse(&row.role).unwrap_or(Role::Member),
        invited_by: row.invited_by.clone(),
        created_at: time_of(row.created_at),
    }
}

/// Pending invites (owners).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/invites", operation_id = "listInvites", tag = "members",
    params(MonorepoPath),
    responses((status = 200, body = InviteList), (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn list_invites(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<InviteList>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Own).await?;
    let rows = monorepos::invites(conn.h(), &access.monorepo.id).await?;
    Ok(Json(InviteList {
        items: rows.iter().map(invite_view).collect(),
        next_cursor: None,
    }))
}

/// Withdraws an invite (owners).
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/invites/{email}", operation_id = "revokeInvite", tag = "members",
    params(InvitePath),
    responses((status = 204), (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn revoke_invite(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<InvitePath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Own).await?;
    if !monorepos::revoke_invite(
        tx.h(),
        &access.monorepo.id,
        &path.email.to_ascii_lowercase(),
    )
    .await?
    {
        return Err(ApiError::not_found("invite"));
    }
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
