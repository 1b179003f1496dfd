//! Repos of a monorepo, and the heads followers poll.

use axum::extract::State;
use axum::http::StatusCode;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::event::DefaultHeadRow;
use svc_protocol::monorepo::{CreateRepo, Head, Heads, MonorepoKind, Repo, RepoList, UpdateRepo};

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::git::storage;
use crate::paths::{MonorepoPath, RepoPath};
use crate::state::AppState;
use crate::store::repos::{self, RepoRow};
use crate::store::{events, now_ms};
use crate::{names, token, views};

/// The monorepo's repos by name; the meta layer is not listed.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos", operation_id = "listRepos", tag = "repos",
    params(MonorepoPath),
    responses((status = 200, body = RepoList), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<RepoList>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let rows = repos::all(conn.h(), &access.monorepo.id).await?;
    let items = rows
        .iter()
        .filter(|r| !r.is_meta)
        .map(|r| views::repo(&state.config, &access.monorepo, r))
        .collect();
    Ok(Json(RepoList {
        items,
        next_cursor: None,
    }))
}

/// Creates an empty repo at `path` (any member); the first push to `main` creates main.
/// Refused in a plain repo.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos", operation_id = "createRepo", tag = "repos", request_body = CreateRepo,
    params(MonorepoPath),
    responses((status = 201, body = Repo), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "repo_exists, or a plain repo")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<CreateRepo>,
) -> ApiResult<(StatusCode, Json<Repo>)> {
    let (repo_path, repo_name) = names::repo_path(&body.path)?;
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Write).await?;
    if views::kind(&access.monorepo.kind) == MonorepoKind::Repo {
        return Err(ApiError::conflict(
            ErrorCode::PlainRepo,
            "a plain repo holds exactly one repo; create a monorepo for more",
        ));
    }
    let exists = || {
        ApiError::conflict(
            ErrorCode::RepoExists,
            format!("a repo named {repo_name} exists already"),
        )
    };
    if repos::by_name(tx.h(), &access.monorepo.id, &repo_name)
        .await?
        .is_some()
    {
        return Err(exists());
    }
    let row = RepoRow {
        id: token::new_id("r_"),
        monorepo_id: access.monorepo.id.clone(),
        name: repo_name.clone(),
        path: repo_path,
        is_meta: false,
        default_branch: "main".into(),
        default_head: None,
        releases_public: false,
        created_at: now_ms(),
        default_head_at: 0,
    };
    repos::insert(tx.h(), &row).await.map_err(|e| {
        if e.is_unique_violation() {
            exists()
        } else {
            e.into()
        }
    })?;
    // Followers (the daemon) lay a new repo out from this row of main's collection: a
    // repo without a head yet.
    let head = DefaultHeadRow {
        repo: row.name.clone(),
        default_branch: row.default_branch.clone(),
        default_head: None,
    };
    let body = serde_json::json!({"row": head, "actor": caller.login, "path": row.path});
    events::append(
        tx.h(),
        &events::NewEvent {
            monorepo_id: &access.monorepo.id,
            kind: "repo.created",
            repo: Some(&row.name),
            also_repos: None,
            collection: "default_heads",
            key: &row.name,
            op: "upsert",
            body: body.to_string(),
            at: row.created_at,
        },
    )
    .await?;
    let dir = storage::repo_dir(&state.config.data_dir, &row.id);
    storage::init_bare(&dir).await.map_err(ApiError::internal)?;
    if let Err(e) = tx.commit().await {
        storage::remove(&dir).await;
        return Err(e.into());
    }
    Ok((
        StatusCode::CREATED,
        Json(views::repo(&state.config, &access.monorepo, &row)),
    ))
}

/// One repo (`meta` names the meta layer's history).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}", operation_id = "getRepo", tag = "repos",
    params(RepoPath),
    responses((status = 200, body = Repo), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
) -> ApiResult<Json<Repo>> {
    let mut conn = state.store.read().await?;
    let (access, row) = path.resolve(conn.h(), &caller, Need::Read).await?;
    Ok(Json(views::repo(&state.config, &access.monorepo, &row)))
}

/// Project settings (owners).
#[utoipa::path(patch, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}", operation_id = "updateRepo", tag = "repos", request_body = UpdateRepo,
    params(RepoPath),
    responses((status = 200, body = Repo), (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
    Json(body): Json<UpdateRepo>,
) -> ApiResult<Json<Repo>> {
    let mut tx = state.store.begin().await?;
    let (access, mut row) = path.resolve(tx.h(), &caller, Need::Own).await?;
    if let Some(public) = body.releases_public {
        repos::set_releases_public(tx.h(), &row.id, public).await?;
        row.releases_public = public;
    }
    tx.commit().await?;
    Ok(Json(views::repo(&state.config, &access.monorepo, &row)))
}

/// Every code repo's main head (null when empty) as of event `seq`. A follower calls
/// it on connect, then follows the event stream from `seq`.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/heads", operation_id = "listHeads", tag = "repos",
    params(MonorepoPath),
    responses((status = 200, body = Heads), (status = 404, body = ApiErrorBody)))]
pub async fn heads(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<Heads>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    // The seq first: a move after it shows in the heads and again as an event, never neither.
    let seq = events::last_seq(conn.h(), &access.monorepo.id).await?;
    let heads = repos::all(conn.h(), &access.monorepo.id)
        .await?
        .into_iter()
        .filter(|r| !r.is_meta)
        .map(|r| Head {
            repo: r.name,
            default_branch: r.default_branch,
            head: r.default_head,
        })
        .collect();
    Ok(Json(Heads { seq, heads }))
}
