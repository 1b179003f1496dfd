//! Monorepos: create, list, get, rename/transfer, delete.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::monorepo::{
    CreateMonorepo, Monorepo, MonorepoChanged, MonorepoKind, MonorepoList, RenameMonorepo, Role,
};
use svc_protocol::needs::{MonorepoHome, MonorepoHomeItem, MonorepoListing};

use crate::auth::Caller;
use crate::authz::{self, Need};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::git::storage;
use crate::paths::MonorepoPath;
use crate::state::AppState;
use crate::store::monorepos::{self, MonorepoRow};
use crate::store::repos::{self, RepoRow};
use crate::store::{H, now_ms, users};
use crate::{names, needs, token, views};

/// Creates a monorepo (or, with `kind: repo`, a plain repo); the caller becomes owner.
#[utoipa::path(post, path = "/v1/monorepos", operation_id = "createMonorepo", tag = "monorepos", request_body = CreateMonorepo,
    responses((status = 201, body = MonorepoChanged), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "not_your_namespace"),
        (status = 409, body = ApiErrorBody, description = "monorepo_exists")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Json(body): Json<CreateMonorepo>,
) -> ApiResult<(StatusCode, Json<MonorepoChanged>)> {
    let name = names::monorepo_name(&body.name)?;
    let owner = body
        .owner
        .as_deref()
        .map_or_else(|| caller.login.clone(), str::to_ascii_lowercase);
    let now = now_ms();
    let row = MonorepoRow {
        id: token::new_id("m_"),
        owner,
        name: name.clone(),
        kind: body.kind.as_str().into(),
        created_at: now,
    };
    let first_repo = RepoRow {
        id: token::new_id("r_"),
        monorepo_id: row.id.clone(),
        name: if body.kind == MonorepoKind::Repo {
            name
        } else {
            "meta".into()
        },
        path: ".".into(),
        is_meta: body.kind == MonorepoKind::Monorepo,
        default_branch: "main".into(),
        default_head: None,
        releases_public: false,
        created_at: now,
        default_head_at: 0,
    };
    let mut tx = state.store.begin().await?;
    // Their own namespace, or an org they are in.
    let Some(in_namespace) = authz::namespace_role(tx.h(), &caller, &row.owner).await? else {
        return Err(ApiError::forbidden(
            ErrorCode::NotYourNamespace,
            format!("you cannot create monorepos under {}", row.owner),
        ));
    };
    let holder = monorepos::by_label(tx.h(), &row.owner, &row.name).await?;
    // A label held now, or an old label an org member (not owner) may not give away.
    if holder.is_some_and(|m| {
        (m.owner == row.owner && m.name == row.name) || in_namespace != Role::Owner
    }) {
        return Err(exists(&row));
    }
    // The caller acts for the namespace, so an alias in it may go.
    let replaced_alias = monorepos::take_alias(tx.h(), &row.owner, &row.name).await?;
    monorepos::insert(tx.h(), &row).await.map_err(|e| {
        if e.is_unique_violation() {
            exists(&row)
        } else {
            e.into()
        }
    })?;
    monorepos::put_member(
        tx.h(),
        &row.id,
        &caller.user_id,
        Role::Owner.as_str(),
        None,
        now,
    )
    .await?;
    repos::insert(tx.h(), &first_repo).await?;
    let dir = storage::repo_dir(&state.config.data_dir, &first_repo.id);
    storage::init_bare(&dir).await.map_err(ApiError::internal)?;
    if let Err(e) = tx.commit().await {
        storage::remove(&dir).await;
        return Err(e.into());
    }
    tracing::info!(monorepo = %row.label(), id = %row.id, "monorepo created");
    Ok((
        StatusCode::CREATED,
        Json(MonorepoChanged {
            monorepo: views::monorepo(&row, Role::Owner),
            replaced_alias,
        }),
    ))
}

fn exists(row: &MonorepoRow) -> ApiError {
    ApiError::conflict(
        ErrorCode::MonorepoExists,
        format!("{} exists already", row.label()),
    )
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    /// Only this owner's monorepos.
    pub(crate) owner: Option<String>,
    /// Only monorepos of this name, under any owner.
    pub(crate) name: Option<String>,
    /// `1`: the web home view, most recently active first, each with its summary line.
    #[serde(default, deserialize_with = "crate::extract::flag")]
    #[param(value_type = Option<String>, pattern = "^(0|1|true|false)?$")]
    pub(crate) summary: bool,
}

/// The caller's monorepos: their own namespace first, then by owner and name. With
/// `summary=1`, the web home view instead: most recently active first, each with a
/// summary line (`owner` and `name` still narrow it).
#[utoipa::path(get, path = "/v1/monorepos", operation_id = "listMonorepos", tag = "monorepos", params(ListQuery),
    responses((status = 200, body = MonorepoListing), (status = 401, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<ListQuery>,
) -> ApiResult<Json<MonorepoListing>> {
    let owner = q.owner.map(|o| o.to_ascii_lowercase());
    let name = q.name.map(|n| n.to_ascii_lowercase());
    let mut conn = state.store.read().await?;
    if q.summary {
        let mut wanted = Vec::new();
        for active in monorepos::by_activity(conn.h(), &caller.user_id).await? {
            let r = active.membership;
            if owner.as_ref().is_some_and(|o| *o != r.owner)
                || name.as_ref().is_some_and(|n| *n != r.name)
            {
                continue;
            }
            let role = Role::parse(&r.role).unwrap_or(Role::Member);
            let row = MonorepoRow {
                id: r.id,
                owner: r.owner,
                name: r.name,
                kind: r.kind,
                created_at: r.created_at,
            };
            wanted.push((row, role, active.active_at));
        }
        let rows: Vec<(MonorepoRow, Option<i64>)> = wanted
            .iter()
            .map(|(row, _, active_at)| (row.clone(), *active_at))
            .collect();
        let lines = needs::lines(conn.h(), &state, &rows, &caller.login).await?;
        let items: Vec<MonorepoHomeItem> = wanted
            .into_iter()
            .zip(lines)
            .map(|((row, role, _), line)| MonorepoHomeItem {
                monorepo: views::monorepo(&row, role),
                summary: line.summary,
            })
            .collect();
        return Ok(Json(MonorepoListing::Home(MonorepoHome {
            items,
            next_cursor: None,
        })));
    }
    let rows = monorepos::list_for_user(
        conn.h(),
        &caller.user_id,
        &caller.login,
        owner.as_deref(),
        name.as_deref(),
    )
    .await?;
    let items = rows
        .into_iter()
        .map(|r| {
            let role = Role::parse(&r.role).unwrap_or(Role::Member);
            let row = MonorepoRow {
                id: r.id,
                owner: r.owner,
                name: r.name,
                kind: r.kind,
                created_at: r.created_at,
            };
            views::monorepo(&row, role)
        })
        .collect();
    Ok(Json(MonorepoListing::Plain(MonorepoList {
        items,
        next_cursor: None,
    })))
}

/// One monorepo, to its members; an old label answers the current monorepo.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}", operation_id = "getMonorepo", tag = "monorepos",
    params(MonorepoPath),
    responses((status = 200, body = Monorepo), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<Monorepo>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    Ok(Json(views::monorepo(&access.monorepo, access.role)))
}

/// Renames and/or transfers (owners). The old label stays an alias.
#[utoipa::path(patch, path = "/v1/monorepos/{owner}/{monorepo}", operation_id = "renameMonorepo", tag = "monorepos", request_body = RenameMonorepo,
    params(MonorepoPath),
    responses((status = 200, body = MonorepoChanged),
        (status = 400, body = ApiErrorBody, description = "bad_owner, reserved_name, bad_name"),
        (status = 403, body = ApiErrorBody, description = "not_your_namespace, or not an owner"),
        (status = 404, body = ApiErrorBody), (status = 409, body = ApiErrorBody, description = "monorepo_exists")))]
pub async fn rename(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<RenameMonorepo>,
) -> ApiResult<Json<MonorepoChanged>> {
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Own).await?;
    let current = access.monorepo;
    let new_name = body
        .name
        .as_deref()
        .map(names::monorepo_name)
        .transpose()?
        .unwrap_or_else(|| current.name.clone());
    let new_owner = body
        .owner
        .as_deref()
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(|| current.owner.clone());
    if new_owner != current.owner {
        check_transfer(tx.h(), &caller, &current, &new_owner).await?;
    }
    if (new_owner.as_str(), new_name.as_str()) == (current.owner.as_str(), current.name.as_str()) {
        return Ok(Json(MonorepoChanged {
            monorepo: views::monorepo(&current, access.role),
            replaced_alias: None,
        }));
    }
    let target = MonorepoRow {
        owner: new_owner,
        name: new_name,
        ..current.clone()
    };
    let holder = monorepos::by_label(tx.h(), &target.owner, &target.name).await?;
    if holder
        .as_ref()
        .is_some_and(|m| m.owner == target.owner && m.name == target.name)
    {
        return Err(exists(&target));
    }
    // Taking back one's own old label is no takeover; another monorepo's alias is given
    // away only by its namespace's own action (core rule 2).
    let takeover = holder.is_some_and(|m| m.id != current.id);
    if takeover && authz::namespace_role(tx.h(), &caller, &target.owner).await? != Some(Role::Owner)
    {
        return Err(exists(&target));
    }
    let taken = monorepos::take_alias(tx.h(), &target.owner, &target.name).await?;
    monorepos::relabel(tx.h(), &current, &target.owner, &target.name)
        .await
        .map_err(|e| {
            if e.is_unique_violation() {
                exists(&target)
            } else {
                e.into()
            }
        })?;
    tx.commit().await?;
    // A transfer moves the org's people in or out; open sockets learn the new label.
    state.live.access_changed().await;
    tracing::info!(from = %current.label(), to = %target.label(), "monorepo relabelled");
    Ok(Json(MonorepoChanged {
        monorepo: views::monorepo(&target, access.role),
        replaced_alias: taken.filter(|_| takeover),
    }))
}

/// A transfer goes to a person with their own owner row in the monorepo (else 400
/// `bad_owner`) or to an organization the caller is in (else 403 `not_your_namespace`).
/// Moved into an org, the org's people gain it; moved out, they lose it: access follows
/// the owner (`monorepo_access`), so nothing else is written.
async fn check_transfer(
    mut h: H<'_>,
    caller: &Caller,
    monorepo: &MonorepoRow,
    new_owner: &str,
) -> ApiResult<()> {
    if let Some(user) = users::by_login(h.reborrow(), new_owner).await? {
        let own = monorepos::own_role(h, &monorepo.id, &user.id).await?;
        return if own.as_deref() == Some(Role::Owner.as_str()) {
            Ok(())
        } else {
            Err(ApiError::bad_request(
                ErrorCode::BadOwner,
                format!("{new_owner} must be an owner of this monorepo first"),
            ))
        };
    }
    if authz::namespace_role(h.reborrow(), caller, new_owner)
        .await?
        .is_some()
    {
        return Ok(());
    }
    if users::logins_like(h, new_owner)
        .await?
        .iter()
        .any(|l| l == new_owner)
    {
        return Err(ApiError::forbidden(
            ErrorCode::NotYourNamespace,
            format!("you are not in the organization {new_owner}"),
        ));
    }
    Err(ApiError::bad_request(
        ErrorCode::BadOwner,
        format!("no person or organization is called {new_owner}"),
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct DeleteQuery {
    /// The monorepo's `<owner>/<name>`, typed out in full. Required; an `Option` here so
    /// that a missing one gets the message saying what to type.
    #[param(required = true)]
    pub(crate) confirm: Option<String>,
}

/// Deletes the monorepo with everything in it (owners; `?confirm=<owner>/<name>`).
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}", operation_id = "deleteMonorepo", tag = "monorepos",
    params(MonorepoPath, DeleteQuery),
    responses((status = 204), (status = 400, body = ApiErrorBody, description = "confirm missing or different"),
        (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Query(q): Query<DeleteQuery>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Own).await?;
    let label = access.monorepo.label();
    if q.confirm.as_deref().map(str::to_ascii_lowercase).as_deref() != Some(label.as_str()) {
        return Err(ApiError::bad_request(
            ErrorCode::ConfirmRequired,
            format!("type ?confirm={label} to delete it"),
        ));
    }
    let ids: Vec<String> = repos::all(tx.h(), &access.monorepo.id)
        .await?
        .into_iter()
        .map(|r| r.id)
        .collect();
    monorepos::delete(tx.h(), &access.monorepo.id).await?;
    tx.commit().await?;
    // Its open sockets close at once, in every process.
    state.live.access_changed().await;
    for id in ids {
        storage::remove(&storage::repo_dir(&state.config.data_dir, &id)).await;
        crate::releases::files::remove_repo(&state.config.data_dir, &id).await;
    }
    tracing::info!(monorepo = %label, "monorepo deleted");
    Ok(StatusCode::NO_CONTENT)
}
