//! Repos of a monorepo, and the heads followers poll.

use axum::extract::State;
use axum::http::StatusCode;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::monorepo::{CreateRepo, Head, Heads, MonorepoKind, Repo, RepoList, UpdateRepo};

use crate::auth::Caller;
use crate::authz::{self, Access, Need};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::git::storage;
use crate::state::AppState;
use crate::store::monorepos::MonorepoRow;
use crate::store::repos::{self, RepoRow};
use crate::store::{H, events, now_ms};
use crate::{names, suggest, token, views};

/// Resolves `{r}`: the monorepo with the caller's access, and the repo (`meta` included).
pub async fn resolve(
    mut h: H<'_>,
    caller: &Caller,
    (owner, monorepo, repo): (&str, &str, &str),
    need: Need,
) -> ApiResult<(Access, RepoRow)> {
    let access = authz::monorepo(h.reborrow(), caller, owner, monorepo, need).await?;
    match repos::by_name(
        h.reborrow(),
        &access.monorepo.id,
        &repo.to_ascii_lowercase(),
    )
    .await?
    {
        Some(row) => Ok((access, row)),
        None => Err(repo_not_found(h, &access.monorepo, repo).await?),
    }
}

/// 404 for a repo the monorepo lacks, suggesting its repos with near names (the caller
/// may see them all).
pub async fn repo_not_found(h: H<'_>, monorepo: &MonorepoRow, name: &str) -> ApiResult<ApiError> {
    let rows = repos::all(h, &monorepo.id).await?;
    let visible = rows.iter().filter(|r| !r.is_meta).map(|r| r.name.as_str());
    Ok(suggest::not_found(
        "repo",
        &format!("{}/", monorepo.label()),
        name,
        visible,
    ))
}

/// The monorepo's repos by name; the meta layer is not listed.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos", tag = "repos",
    params(("owner" = String, Path), ("monorepo" = String, Path)),
    responses((status = 200, body = RepoList), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path((owner, name)): Path<(String, String)>,
) -> ApiResult<Json<RepoList>> {
    let mut conn = state.store.read().await?;
    let access = authz::monorepo(conn.h(), &caller, &owner, &name, Need::Read).await?;
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
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos", tag = "repos", request_body = CreateRepo,
    params(("owner" = String, Path), ("monorepo" = String, Path)),
    responses((status = 201, body = Repo), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "repo_exists, or a plain repo")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Path((owner, name)): Path<(String, String)>,
    Json(body): Json<CreateRepo>,
) -> ApiResult<(StatusCode, Json<Repo>)> {
    let (path, repo_name) = names::repo_path(&body.path)?;
    let mut tx = state.store.begin().await?;
    let access = authz::monorepo(tx.h(), &caller, &owner, &name, Need::Write).await?;
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
        path,
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
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}", tag = "repos",
    params(("owner" = String, Path), ("monorepo" = String, Path), ("repo" = String, Path)),
    responses((status = 200, body = Repo), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path((owner, name, repo)): Path<(String, String, String)>,
) -> ApiResult<Json<Repo>> {
    let mut conn = state.store.read().await?;
    let (access, row) = resolve(conn.h(), &caller, (&owner, &name, &repo), Need::Read).await?;
    Ok(Json(views::repo(&state.config, &access.monorepo, &row)))
}

/// Project settings (owners).
#[utoipa::path(patch, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}", tag = "repos", request_body = UpdateRepo,
    params(("owner" = String, Path), ("monorepo" = String, Path), ("repo" = String, Path)),
    responses((status = 200, body = Repo), (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path((owner, name, repo)): Path<(String, String, String)>,
    Json(body): Json<UpdateRepo>,
) -> ApiResult<Json<Repo>> {
    let mut tx = state.store.begin().await?;
    let (access, mut row) = resolve(tx.h(), &caller, (&owner, &name, &repo), Need::Own).await?;
    if let Some(public) = body.releases_public {
        repos::set_releases_public(tx.h(), &row.id, public).await?;
        row.releases_public = public;
    }
    tx.commit().await?;
    Ok(Json(views::repo(&state.config, &access.monorepo, &row)))
}

/// Every code repo's main head (null when empty) as of event `seq`. A follower calls
/// it on connect, then follows the event stream from `seq`.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/heads", tag = "repos",
    params(("owner" = String, Path), ("monorepo" = String, Path)),
    responses((status = 200, body = Heads), (status = 404, body = ApiErrorBody)))]
pub async fn heads(
    State(state): State<AppState>,
    caller: Caller,
    Path((owner, name)): Path<(String, String)>,
) -> ApiResult<Json<Heads>> {
    let mut conn = state.store.read().await?;
    let access = authz::monorepo(conn.h(), &caller, &owner, &name, Need::Read).await?;
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
