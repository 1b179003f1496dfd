//! Imports of an existing project's whole history (owners): from a git URL the server
//! fetches, or from a bundle the client streams.

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use futures_util::StreamExt;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::import::{CreateImport, Import};
use tokio::io::AsyncWriteExt;
use utoipa::IntoParams;

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::git::import::Source;
use crate::git::record::Actor;
use crate::imports::{self, Running, Scratch};
use crate::paths::MonorepoPath;
use crate::state::AppState;
use crate::store::imports::{self as rows, ImportRow};
use crate::store::now_ms;

/// `/v1/monorepos/{owner}/{monorepo}/imports/{id}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ImportPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case).
    pub monorepo: String,
    /// The import's id.
    pub id: String,
}

impl ImportPath {
    fn monorepo(&self) -> MonorepoPath {
        MonorepoPath {
            owner: self.owner.clone(),
            monorepo: self.monorepo.clone(),
        }
    }
}

fn actor(caller: &Caller) -> Actor {
    Actor {
        login: Some(caller.login.clone()),
        agent: caller.session_agent().map(str::to_owned),
    }
}

/// Starts an import into the repo at `path`: a new repo, or an existing one with no
/// history yet (409 `repo_not_empty` otherwise). Nothing of it is visible until it is
/// `done`. With `url` (http or https, at an address `[hooks] allowed_hosts` admits, else
/// 400 `url_not_allowed`) the server fetches the project itself: 202, `running`; follow
/// it at `.../imports/{id}`. Without, it waits for its bundle (`.../imports/{id}/bundle`):
/// 201.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/imports", operation_id = "createImport", tag = "repos", request_body = CreateImport,
    params(MonorepoPath),
    responses((status = 201, body = Import, description = "waiting for its bundle"),
        (status = 202, body = Import, description = "running: the server fetches the URL"),
        (status = 400, body = ApiErrorBody, description = "bad_path, url_not_allowed"),
        (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "repo_not_empty, plain_repo")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<CreateImport>,
) -> ApiResult<(StatusCode, Json<Import>)> {
    let (access, target) = {
        let mut conn = state.store.read().await?;
        let access = path.access(conn.h(), &caller, Need::Own).await?;
        let target = imports::target(
            conn.h(),
            &state.config.data_dir,
            &access.monorepo,
            &body.path,
        )
        .await?;
        (access, target)
    };
    let pinned = match &body.url {
        Some(url) => Some(imports::check_url(&state.config, url).await?),
        None => None,
    };
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let row = ImportRow {
        id: crate::token::new_id("imp_"),
        monorepo_id: access.monorepo.id.clone(),
        path: target.path,
        name: target.name,
        repo_id: target.repo_id,
        state: if pinned.is_some() {
            "running"
        } else {
            "waiting"
        }
        .into(),
        error: None,
        created_by: caller.user_id.clone(),
        created_at: now,
        updated_at: now,
    };
    rows::insert(tx.h(), &row).await?;
    let view = imports::view(tx.h(), &state.config, &access.monorepo, &row).await?;
    tx.commit().await?;
    let status = match pinned {
        Some(pinned) => {
            imports::spawn_url(state.clone(), row, pinned, actor(&caller));
            StatusCode::ACCEPTED
        }
        None => StatusCode::CREATED,
    };
    Ok((status, Json(view)))
}

/// An import: where it is, why it failed, its repo once done.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/imports/{id}", operation_id = "getImport", tag = "repos",
    params(ImportPath),
    responses((status = 200, body = Import), (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ImportPath>,
) -> ApiResult<Json<Import>> {
    let mut conn = state.store.read().await?;
    let access = path.monorepo().access(conn.h(), &caller, Need::Own).await?;
    let row = rows::get(conn.h(), &access.monorepo.id, &path.id)
        .await?
        .ok_or_else(|| ApiError::not_found("import"))?;
    Ok(Json(
        imports::view(conn.h(), &state.config, &access.monorepo, &row).await?,
    ))
}

/// The history of a waiting import, as a git bundle of every ref (`git bundle create -
/// --all`), streamed to disk as it comes (no size limit: the push limit is not for
/// imports). Every object is checked (fsck); the project's HEAD becomes main, exactly;
/// every branch and tag comes in, a branch main already has as merged. The answer is the
/// finished import; a bundle that cannot come in fails it (422 `import_failed`, its
/// `error` kept on the import) and leaves nothing visible. 409 `import_not_waiting` for
/// an import that is not waiting for its bundle.
#[utoipa::path(put, path = "/v1/monorepos/{owner}/{monorepo}/imports/{id}/bundle", operation_id = "uploadImportBundle", tag = "repos",
    params(ImportPath),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 200, body = Import, description = "done"),
        (status = 403, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "import_not_waiting"),
        (status = 422, body = ApiErrorBody, description = "import_failed")))]
pub async fn bundle(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ImportPath>,
    body: Body,
) -> ApiResult<Json<Import>> {
    let (access, row) = {
        let mut conn = state.store.read().await?;
        let access = path.monorepo().access(conn.h(), &caller, Need::Own).await?;
        let row = rows::get(conn.h(), &access.monorepo.id, &path.id)
            .await?
            .ok_or_else(|| ApiError::not_found("import"))?;
        (access, row)
    };
    let not_waiting = || {
        ApiError::conflict(
            ErrorCode::ImportNotWaiting,
            format!("import {} is not waiting for a bundle", row.id),
        )
    };
    let running = Running::start(&state, &row.id)
        .await?
        .ok_or_else(not_waiting)?;
    let spool = Scratch(
        crate::git::door::spools(&state)
            .await
            .map_err(ApiError::internal)?
            .file()
            .with_extension("bundle"),
    );
    if let Err(why) = spool_body(body, &spool.0).await {
        running.fail(&why).await?;
        return Err(failed(why));
    }
    let source = Source::Bundle(&spool.0);
    if let Err((running, e)) = imports::run(&state, running, &row, source, &actor(&caller)).await {
        let why = e.to_string();
        tracing::info!(import = %row.id, error = %why, "an import failed");
        running.fail(&why).await?;
        return Err(failed(why));
    }
    let mut conn = state.store.read().await?;
    let row = rows::get(conn.h(), &access.monorepo.id, &row.id)
        .await?
        .ok_or_else(|| ApiError::not_found("import"))?;
    Ok(Json(
        imports::view(conn.h(), &state.config, &access.monorepo, &row).await?,
    ))
}

fn failed(why: String) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::ImportFailed,
        format!("the import failed; nothing of it is visible: {why}"),
    )
}

/// Writes the request body to `path` as it comes.
async fn spool_body(body: Body, path: &std::path::Path) -> Result<(), String> {
    let write = async {
        let mut file = tokio::fs::File::create(path).await?;
        let mut input = body.into_data_stream();
        while let Some(chunk) = input.next().await {
            let chunk = chunk.map_err(std::io::Error::other)?;
            file.write_all(&chunk).await?;
        }
        file.flush().await
    };
    write
        .await
        .map_err(|e| format!("the bundle could not be read whole: {e}"))
}
