//! Steering a build on the CI service (rebuild, cancel, retry a job: `write_builds`) and
//! reading what the service keeps of it (job log, annotations, artifacts: members).

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde_json::{Value, json};
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::ci::{
    CiAnnotation, CiAnnotationList, CiArtifact, CiArtifactList, CiBuild, CiJob, CiState,
};
use svc_protocol::user::Permission;

use crate::auth::Caller;
use crate::authz::Need;
use crate::ci::launch::{Launch, launch, pipeline, provider_error};
use crate::ci::{Source, apply, build_view, job_view, record_retry};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::paths::{CiArtifactPath, CiItemPath, CiJobPath};
use crate::state::AppState;
use crate::store::ci::{self, BuildRow, ConnectionRow};
use crate::store::repos;

/// At most this many annotations and artifacts are listed.
const FIRST: usize = 100;

/// The build's connection (present while the build is: it goes with its connection).
async fn connection_of(state: &AppState, b: &BuildRow) -> ApiResult<ConnectionRow> {
    let mut conn = state.store.read().await?;
    ci::connection(conn.h(), &b.connection_id)
        .await?
        .ok_or_else(|| ApiError::not_found(&format!("build {}", b.id)))
}

/// A build as just recorded, in its REST shape.
async fn view(state: &AppState, connection: &str, id: &str) -> ApiResult<CiBuild> {
    let mut conn = state.store.read().await?;
    let b = ci::build(conn.h(), connection, id)
        .await?
        .ok_or_else(|| ApiError::not_found(&format!("build {id}")))?;
    let repo = match &b.repo_id {
        Some(id) => repos::by_id(conn.h(), id).await?.map(|r| r.name),
        None => None,
    };
    Ok(build_view(&b, repo.as_deref(), None))
}

/// A new build of the same commit and branch, with fresh tokens and
/// `meta_data.svc_rebuild_of`. Needs a member's credential holding `write_builds`.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/rebuild", operation_id = "rebuildCiBuild", tag = "ci",
    params(CiItemPath),
    responses((status = 201, body = CiBuild, description = "the new build"),
        (status = 400, body = ApiErrorBody, description = "ci_not_configured, or a build of no known repo or commit"),
        (status = 403, body = ApiErrorBody, description = "missing_permission: the credential lacks write_builds"),
        (status = 404, body = ApiErrorBody),
        (status = 502, body = ApiErrorBody, description = "provider_error: the CI service refused or did not answer")))]
pub async fn rebuild(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiItemPath>,
) -> ApiResult<(StatusCode, Json<CiBuild>)> {
    let (access, b, repo) = {
        let mut conn = state.store.read().await?;
        let (access, b) = path.build(conn.h(), &caller, Need::Write).await?;
        let repo = match &b.repo_id {
            Some(id) => repos::by_id(conn.h(), id).await?,
            None => None,
        };
        (access, b, repo)
    };
    caller.require(Permission::WriteBuilds)?;
    let (Some(repo), Some(commit), Some(branch)) = (repo, &b.commit_sha, &b.branch) else {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "svc does not know this build's repo, commit or branch; rebuild it on the service",
        ));
    };
    let connection = connection_of(&state, &b).await?;
    let new = launch(
        &state,
        Launch {
            monorepo: &access.monorepo,
            connection: &connection,
            repo: &repo,
            pipeline: &b.pipeline,
            branch,
            head: commit,
            message: b
                .message
                .clone()
                .unwrap_or_else(|| format!("Rebuild of #{}", b.number)),
            author: &caller.login,
            rebuild_of: Some(&b.id),
        },
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(build_view(&new, Some(&repo.name), Some(Vec::new()))),
    ))
}

/// Cancels a build on the service and records what it answered. 409 `ci_finished` when
/// the build has finished. Needs `write_builds`.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/cancel", operation_id = "cancelCiBuild", tag = "ci",
    params(CiItemPath),
    responses((status = 200, body = CiBuild, description = "the build as the service answered"),
        (status = 400, body = ApiErrorBody, description = "ci_not_configured"),
        (status = 403, body = ApiErrorBody, description = "missing_permission: the credential lacks write_builds"),
        (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "ci_finished"),
        (status = 502, body = ApiErrorBody, description = "provider_error: the CI service refused or did not answer")))]
pub async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiItemPath>,
) -> ApiResult<Json<CiBuild>> {
    let (_, b) = {
        let mut conn = state.store.read().await?;
        path.build(conn.h(), &caller, Need::Write).await?
    };
    caller.require(Permission::WriteBuilds)?;
    let finished = |b: &BuildRow| CiState::parse(&b.state).is_some_and(CiState::is_finished);
    let refuse = |b: &BuildRow| {
        ApiError::conflict(
            ErrorCode::CiFinished,
            format!("build #{} has finished ({})", b.number, b.service_state),
        )
    };
    if finished(&b) {
        return Err(refuse(&b));
    }
    let connection = connection_of(&state, &b).await?;
    let target = pipeline(&state, &connection, &b.pipeline)?;
    let answer = match target.cancel(b.number).await {
        Ok(answer) => answer,
        // The service refuses a build that finished meanwhile (422): say so as svc does.
        Err(f) if f.status == Some(422) => {
            let now = view(&state, &connection.id, &b.id).await?;
            return Err(if now.state.is_finished() {
                refuse(&b)
            } else {
                provider_error(f)
            });
        }
        Err(f) => return Err(provider_error(f)),
    };
    let event = json!({"build": answer, "pipeline": {"slug": b.pipeline}});
    apply(
        &state,
        &connection,
        "build.canceling",
        &event,
        Source::Answer,
    )
    .await?;
    Ok(Json(view(&state, &connection.id, &b.id).await?))
}

/// Reruns a job on the service with the build's original environment; the new job is
/// recorded at once and the build's check goes back to pending. Needs `write_builds`.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/jobs/{job}/retry", operation_id = "retryCiJob", tag = "ci",
    params(CiJobPath),
    responses((status = 201, body = CiJob, description = "the new job"),
        (status = 400, body = ApiErrorBody, description = "ci_not_configured"),
        (status = 403, body = ApiErrorBody, description = "missing_permission: the credential lacks write_builds"),
        (status = 404, body = ApiErrorBody),
        (status = 502, body = ApiErrorBody, description = "provider_error: the CI service refused (a job is retried once) or did not answer")))]
pub async fn retry(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiJobPath>,
) -> ApiResult<(StatusCode, Json<CiJob>)> {
    let (_, b, job) = {
        let mut conn = state.store.read().await?;
        path.job(conn.h(), &caller, Need::Write).await?
    };
    caller.require(Permission::WriteBuilds)?;
    let connection = connection_of(&state, &b).await?;
    let target = pipeline(&state, &connection, &b.pipeline)?;
    let answer = target
        .retry(b.number, &job.id)
        .await
        .map_err(provider_error)?;
    let new = record_retry(&state, &connection, &b.id, &job.id, &answer).await?;
    Ok((StatusCode::CREATED, Json(job_view(&new))))
}

/// The last 1 MiB of a job's log, raw (escape codes kept), as `text/plain`;
/// `X-Ci-Log-Size` is the whole log's size. Immutable once the job has finished.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/jobs/{job}/log", operation_id = "getCiJobLog", tag = "ci",
    params(CiJobPath),
    responses((status = 200, description = "the log's tail", content_type = "text/plain",
            headers(("X-Ci-Log-Size" = u64, description = "the whole log's size in bytes"))),
        (status = 400, body = ApiErrorBody, description = "ci_not_configured"),
        (status = 404, body = ApiErrorBody),
        (status = 502, body = ApiErrorBody, description = "provider_error: the CI service refused or did not answer")))]
pub async fn log(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiJobPath>,
) -> ApiResult<Response> {
    let (_, b, job) = {
        let mut conn = state.store.read().await?;
        path.job(conn.h(), &caller, Need::Read).await?
    };
    let connection = connection_of(&state, &b).await?;
    let target = pipeline(&state, &connection, &b.pipeline)?;
    let log = target
        .log(b.number, &job.id)
        .await
        .map_err(provider_error)?;
    let complete = CiState::parse(&job.state).is_some_and(CiState::is_finished);
    let cache = if complete {
        "private, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    let mut response = (
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, cache),
        ],
        log.bytes,
    )
        .into_response();
    if let Some(size) = log.size {
        response
            .headers_mut()
            .insert("x-ci-log-size", HeaderValue::from(size));
    }
    Ok(response)
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn time(v: &Value) -> Option<time::OffsetDateTime> {
    time::OffsetDateTime::parse(v.as_str()?, &time::format_description::well_known::Rfc3339).ok()
}

/// The first 100 annotations of a build, read from the service.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/annotations", operation_id = "listCiAnnotations", tag = "ci",
    params(CiItemPath),
    responses((status = 200, body = CiAnnotationList),
        (status = 400, body = ApiErrorBody, description = "ci_not_configured"),
        (status = 404, body = ApiErrorBody),
        (status = 502, body = ApiErrorBody, description = "provider_error: the CI service refused or did not answer")))]
pub async fn annotations(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiItemPath>,
) -> ApiResult<Json<CiAnnotationList>> {
    let (_, b) = {
        let mut conn = state.store.read().await?;
        path.build(conn.h(), &caller, Need::Read).await?
    };
    let connection = connection_of(&state, &b).await?;
    let target = pipeline(&state, &connection, &b.pipeline)?;
    let answer = target.annotations(b.number).await.map_err(provider_error)?;
    let items = answer
        .as_array()
        .into_iter()
        .flatten()
        .take(FIRST)
        .map(|a| CiAnnotation {
            id: text(&a["id"]).unwrap_or_default(),
            context: text(&a["context"]),
            style: text(&a["style"]),
            priority: a["priority"].as_i64(),
            body_html: text(&a["body_html"]).unwrap_or_default(),
            created_at: time(&a["created_at"]),
        })
        .collect();
    Ok(Json(CiAnnotationList { items }))
}

/// The first 100 artifacts of a build, read from the service, each with svc's download
/// link.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/artifacts", operation_id = "listCiArtifacts", tag = "ci",
    params(CiItemPath),
    responses((status = 200, body = CiArtifactList),
        (status = 400, body = ApiErrorBody, description = "ci_not_configured"),
        (status = 404, body = ApiErrorBody),
        (status = 502, body = ApiErrorBody, description = "provider_error: the CI service refused or did not answer")))]
pub async fn artifacts(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiItemPath>,
) -> ApiResult<Json<CiArtifactList>> {
    let (access, b) = {
        let mut conn = state.store.read().await?;
        path.build(conn.h(), &caller, Need::Read).await?
    };
    let connection = connection_of(&state, &b).await?;
    let listed = listed_artifacts(&state, &connection, &b).await?;
    let base = format!(
        "{}/v1/monorepos/{}/ci/builds/{}/artifacts",
        state.config.base(),
        access.monorepo.label(),
        b.id
    );
    let items = listed
        .iter()
        .map(|a| {
            let id = text(&a["id"]).unwrap_or_default();
            CiArtifact {
                download_url: format!("{base}/{id}/download"),
                id,
                job: text(&a["job_id"]),
                path: text(&a["path"]).unwrap_or_default(),
                file_size: a["file_size"].as_i64(),
                mime_type: text(&a["mime_type"]),
                sha1sum: text(&a["sha1sum"]),
                state: text(&a["state"]),
            }
        })
        .collect();
    Ok(Json(CiArtifactList { items }))
}

/// The build's first 100 artifacts as the service lists them.
async fn listed_artifacts(
    state: &AppState,
    connection: &ConnectionRow,
    b: &BuildRow,
) -> ApiResult<Vec<Value>> {
    let target = pipeline(state, connection, &b.pipeline)?;
    let answer = target.artifacts(b.number).await.map_err(provider_error)?;
    Ok(answer
        .as_array()
        .into_iter()
        .flatten()
        .take(FIRST)
        .cloned()
        .collect())
}

/// 302 to the service's own download URL for an artifact of this build (valid about 60
/// seconds); an artifact of another build is not found.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/artifacts/{artifact}/download", operation_id = "downloadCiArtifact", tag = "ci",
    params(CiArtifactPath),
    responses((status = 302, description = "to the service's short-lived download URL",
            headers(("Location" = String, description = "the download URL"))),
        (status = 400, body = ApiErrorBody, description = "ci_not_configured"),
        (status = 404, body = ApiErrorBody),
        (status = 502, body = ApiErrorBody, description = "provider_error: the CI service refused or did not answer")))]
pub async fn download(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiArtifactPath>,
) -> ApiResult<Response> {
    let (_, b) = {
        let mut conn = state.store.read().await?;
        path.build(conn.h(), &caller, Need::Read).await?
    };
    let connection = connection_of(&state, &b).await?;
    let listed = listed_artifacts(&state, &connection, &b).await?;
    let artifact = listed
        .iter()
        .find(|a| a["id"].as_str() == Some(path.artifact.as_str()))
        .ok_or_else(|| ApiError::not_found(&format!("artifact {}", path.artifact)))?;
    let job = artifact["job_id"].as_str().unwrap_or_default();
    let target = pipeline(&state, &connection, &b.pipeline)?;
    let url = target
        .artifact_url(b.number, job, &path.artifact)
        .await
        .map_err(provider_error)?;
    let mut response = Redirect::to(&url).into_response();
    *response.status_mut() = StatusCode::FOUND;
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}
