//! CI connections (owners) and the builds their webhooks reported (members).

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::ci::{
    CiBuild, CiBuildList, CiConnection, CiOverview, CiPipeline, CiPipelineDetail,
    CreateCiConnection, CreatedCiConnection, RepoRequiredChecks, StartCiBuild,
};
use utoipa::IntoParams;

use crate::auth::Caller;
use crate::authz::Need;
use crate::checks::{Required, required};
use crate::ci::launch::{Launch, launch};
use crate::ci::{BUILDKITE, build_view, job_view};
use crate::config::Config;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::paths::{CiItemPath, CiPipelinePath, MonorepoPath};
use crate::state::AppState;
use crate::store::ci::{self, ConnectionRow};
use crate::store::{events, now_ms, repos, time_of};

/// Builds in one page.
const PAGE: usize = 30;

fn connection_view(config: &Config, c: &ConnectionRow) -> CiConnection {
    CiConnection {
        id: c.id.clone(),
        service: c.service.clone(),
        organization: c.organization.clone(),
        webhook_url: format!("{}/v1/ci/webhooks/{}", config.base(), c.id),
        token: "worker_secret".into(),
        created_at: time_of(c.created_at),
    }
}

/// Connects the monorepo to a CI organization (owners; one per organization). The
/// answer alone carries the `webhook_token` to set in the service's webhook.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/ci/connections", operation_id = "createCiConnection", tag = "ci",
    params(MonorepoPath), request_body = CreateCiConnection,
    responses((status = 201, body = CreatedCiConnection), (status = 400, body = ApiErrorBody, description = "bad_request, ci_not_configured"),
        (status = 403, body = ApiErrorBody, description = "not an owner"), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "ci_connection_exists")))]
pub async fn connect(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<CreateCiConnection>,
) -> ApiResult<(StatusCode, Json<CreatedCiConnection>)> {
    if body.service != BUILDKITE {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "the CI service is buildkite",
        ));
    }
    crate::ci::launch::settings(&state)?;
    let organization = body.organization.trim().to_ascii_lowercase();
    let slug = |s: &str| {
        !s.is_empty()
            && s.len() <= 100
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if !slug(&organization) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "an organization is its slug: letters, digits, - and _",
        ));
    }
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Own).await?;
    let row = ConnectionRow {
        id: crate::token::new_id("ci_"),
        monorepo_id: access.monorepo.id.clone(),
        service: BUILDKITE.into(),
        organization,
        webhook_token: crate::token::new_secret(),
        created_at: now_ms(),
    };
    match ci::insert_connection(tx.h(), &row).await {
        Ok(()) => {}
        Err(e) if e.is_unique_violation() => {
            return Err(ApiError::conflict(
                ErrorCode::CiConnectionExists,
                format!("the monorepo is connected to {} already", row.organization),
            ));
        }
        Err(e) => return Err(e.into()),
    }
    tx.commit().await?;
    Ok((
        StatusCode::CREATED,
        Json(CreatedCiConnection {
            connection: connection_view(&state.config, &row),
            webhook_token: row.webhook_token,
        }),
    ))
}

/// Disconnects (owners): the connection's builds and jobs go, its checks stay, its
/// webhook URL answers 404.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/ci/connections/{id}", operation_id = "deleteCiConnection", tag = "ci",
    params(CiItemPath),
    responses((status = 204, description = "disconnected"), (status = 403, body = ApiErrorBody, description = "not an owner"),
        (status = 404, body = ApiErrorBody)))]
pub async fn disconnect(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiItemPath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Own).await?;
    let found = ci::connection(tx.h(), &path.id)
        .await?
        .filter(|c| c.monorepo_id == access.monorepo.id)
        .ok_or_else(|| ApiError::not_found(&format!("CI connection {}", path.id)))?;
    ci::delete_connection(tx.h(), &found.id).await?;
    let event = events::NewEvent {
        monorepo_id: &access.monorepo.id,
        kind: "ci.connection",
        repo: None,
        also_repos: None,
        collection: "ci_connections",
        key: &found.id,
        op: "delete",
        body: serde_json::json!({"row": {"id": found.id}, "actor": caller.login}).to_string(),
        at: now_ms(),
    };
    events::append(tx.h(), &event).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The top of the CI tab: the services this server speaks, the connections, the
/// pipelines builds came from, and each repo's required checks.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/ci", operation_id = "getCi", tag = "ci",
    params(MonorepoPath),
    responses((status = 200, body = CiOverview), (status = 404, body = ApiErrorBody)))]
pub async fn overview(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<CiOverview>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let connections = ci::connections(conn.h(), &access.monorepo.id).await?;
    let pipelines = ci::pipelines(conn.h(), &access.monorepo.id).await?;
    let plain = access.monorepo.kind == "repo";
    let mut required_checks = Vec::new();
    for repo in repos::all(conn.h(), &access.monorepo.id)
        .await?
        .into_iter()
        .filter(|r| !r.is_meta)
    {
        let found = required(
            conn.h(),
            &state.checks_config,
            &state.config.data_dir,
            &repo,
            plain,
        )
        .await?;
        let required = match found {
            Required::Known(list) => Some(list),
            Required::Unknown(_) => None,
        };
        required_checks.push(RepoRequiredChecks {
            repo: repo.name,
            required,
        });
    }
    Ok(Json(CiOverview {
        services: state
            .config
            .buildkite
            .as_ref()
            .map(|_| vec![BUILDKITE.to_owned()])
            .unwrap_or_default(),
        connections: connections
            .iter()
            .map(|c| connection_view(&state.config, c))
            .collect(),
        pipelines: pipelines
            .into_iter()
            .map(|(connection, slug)| CiPipeline { connection, slug })
            .collect(),
        required_checks,
    }))
}

/// `?pipeline=&number=&cursor=`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BuildsQuery {
    /// Only this pipeline's builds.
    pub(crate) pipeline: Option<String>,
    /// With `pipeline`: the build of this number.
    pub(crate) number: Option<i64>,
    /// The `next_cursor` of the previous page.
    pub(crate) cursor: Option<String>,
}

/// The monorepo's builds, newest first, 30 a page; `?pipeline=<slug>&number=<n>` finds
/// one.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/ci/builds", operation_id = "listCiBuilds", tag = "ci",
    params(MonorepoPath, BuildsQuery),
    responses((status = 200, body = CiBuildList), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn builds(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Query(q): Query<BuildsQuery>,
) -> ApiResult<Json<CiBuildList>> {
    let bad = ApiError::bad_cursor;
    let after = match q.cursor.as_deref() {
        None => None,
        Some(c) => {
            let (at, id) = c.split_once(':').ok_or_else(bad)?;
            Some((at.parse::<i64>().map_err(|_| bad())?, id))
        }
    };
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let mut page = ci::builds(
        conn.h(),
        &access.monorepo.id,
        q.pipeline.as_deref(),
        q.number,
        after,
        PAGE as i64 + 1,
    )
    .await?;
    let more = page.len() > PAGE;
    page.truncate(PAGE);
    let names: Vec<(String, String)> = repos::all(conn.h(), &access.monorepo.id)
        .await?
        .into_iter()
        .map(|r| (r.id, r.name))
        .collect();
    let name_of = |id: &Option<String>| {
        id.as_ref()
            .and_then(|id| names.iter().find(|(i, _)| i == id))
            .map(|(_, n)| n.as_str())
    };
    let next_cursor = more
        .then(|| page.last().map(|b| format!("{}:{}", b.created_at, b.id)))
        .flatten();
    Ok(Json(CiBuildList {
        items: page
            .iter()
            .map(|b| build_view(b, name_of(&b.repo_id), None))
            .collect(),
        next_cursor,
    }))
}

/// One build with its jobs.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}", operation_id = "getCiBuild", tag = "ci",
    params(CiItemPath),
    responses((status = 200, body = CiBuild), (status = 404, body = ApiErrorBody)))]
pub async fn build(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiItemPath>,
) -> ApiResult<Json<CiBuild>> {
    let mut conn = state.store.read().await?;
    let (_, b) = path.build(conn.h(), &caller, Need::Read).await?;
    let jobs = ci::jobs(conn.h(), &b.connection_id, &b.id).await?;
    let repo = match &b.repo_id {
        Some(id) => repos::by_id(conn.h(), id).await?.map(|r| r.name),
        None => None,
    };
    Ok(Json(build_view(
        &b,
        repo.as_deref(),
        Some(jobs.iter().map(job_view).collect()),
    )))
}

/// The connection `?connection=` names, or the monorepo's only one.
fn pick(all: Vec<ConnectionRow>, named: Option<&str>) -> ApiResult<ConnectionRow> {
    match named {
        Some(id) => all.into_iter().find(|c| c.id == id),
        None if all.len() > 1 => {
            return Err(ApiError::bad_request(
                ErrorCode::BadRequest,
                "the monorepo has several CI connections: name one with ?connection=",
            ));
        }
        None => all.into_iter().next(),
    }
    .ok_or_else(|| ApiError::not_found("CI connection"))
}

/// The pipeline's configuration as the service keeps it (read at most every 5 minutes;
/// when a read fails, the last copy with `configuration_error`) and its newest builds.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/ci/pipelines/{pipeline}", operation_id = "getCiPipeline", tag = "ci",
    params(CiPipelinePath, StartQuery),
    responses((status = 200, body = CiPipelineDetail),
        (status = 400, body = ApiErrorBody, description = "bad_request (several connections and no ?connection=), ci_not_configured"),
        (status = 404, body = ApiErrorBody, description = "no such connection, or a pipeline the service does not know")))]
pub async fn pipeline(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiPipelinePath>,
    Query(q): Query<StartQuery>,
) -> ApiResult<Json<CiPipelineDetail>> {
    crate::ci::launch::settings(&state)?;
    let slug = path.pipeline.to_ascii_lowercase();
    let (access, connection) = {
        let mut conn = state.store.read().await?;
        let access = path.access(conn.h(), &caller, Need::Read).await?;
        let all = ci::connections(conn.h(), &access.monorepo.id).await?;
        (access, pick(all, q.connection.as_deref())?)
    };
    let kept = crate::ci::pipelines::current(&state, &connection, &slug).await?;
    let mut conn = state.store.read().await?;
    let mut builds = ci::builds(
        conn.h(),
        &access.monorepo.id,
        Some(&slug),
        None,
        None,
        PAGE as i64,
    )
    .await?;
    builds.retain(|b| b.connection_id == connection.id);
    let names: Vec<(String, String)> = repos::all(conn.h(), &access.monorepo.id)
        .await?
        .into_iter()
        .map(|r| (r.id, r.name))
        .collect();
    let name_of = |id: &Option<String>| {
        id.as_ref()
            .and_then(|id| names.iter().find(|(i, _)| i == id))
            .map(|(_, n)| n.as_str())
    };
    Ok(Json(CiPipelineDetail {
        connection: connection.id,
        slug,
        name: kept.name,
        web_url: kept.web_url,
        repository: kept.repository,
        default_branch: kept.default_branch,
        configuration: kept.configuration,
        configuration_read_at: (kept.read_at > 0).then(|| time_of(kept.read_at)),
        configuration_error: kept.error,
        builds: builds
            .iter()
            .map(|b| build_view(b, name_of(&b.repo_id), None))
            .collect(),
    }))
}

/// `?connection=`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StartQuery {
    /// The connection whose pipeline this is, when two share its slug.
    connection: Option<String>,
}

/// Starts a build of a branch's head as stored (any member), with the commit's title as
/// its message and the environment of a push delivery (a fresh read token and status
/// token); the build is recorded at once.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/ci/pipelines/{pipeline}/builds", operation_id = "startCiBuild", tag = "ci",
    params(CiPipelinePath, StartQuery), request_body = StartCiBuild,
    responses((status = 201, body = CiBuild), (status = 400, body = ApiErrorBody, description = "bad_request, ci_not_configured"),
        (status = 404, body = ApiErrorBody, description = "no such connection, repo or branch"),
        (status = 502, body = ApiErrorBody, description = "provider_error: the CI service refused or did not answer")))]
pub async fn start(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CiPipelinePath>,
    Query(q): Query<StartQuery>,
    Json(body): Json<StartCiBuild>,
) -> ApiResult<(StatusCode, Json<CiBuild>)> {
    crate::ci::launch::settings(&state)?;
    let bad = |m: &str| ApiError::bad_request(ErrorCode::BadRequest, m);
    let (access, connection, repo, head) = {
        let mut conn = state.store.read().await?;
        let access = path.access(conn.h(), &caller, Need::Write).await?;
        let all = ci::connections(conn.h(), &access.monorepo.id).await?;
        let connection = pick(all, q.connection.as_deref())?;
        let repos = repos::all(conn.h(), &access.monorepo.id).await?;
        let mut visible = repos.into_iter().filter(|r| !r.is_meta);
        let repo = match body.repo.as_deref() {
            Some(name) => visible.find(|r| r.name == name.to_ascii_lowercase()),
            None => {
                let first = visible.next();
                if visible.next().is_some() {
                    return Err(bad("the monorepo has several repos: name one in `repo`"));
                }
                first
            }
        }
        .ok_or_else(|| ApiError::not_found("repo"))?;
        let head = if body.branch == repo.default_branch {
            repo.default_head
                .clone()
                .ok_or_else(|| ApiError::not_found("main"))?
        } else {
            crate::paths::live_branch(conn.h(), &repo, &body.branch)
                .await?
                .head
        };
        (access, connection, repo, head)
    };
    let sha = head.clone();
    let message = state
        .git(&repo, move |git| {
            let id = git
                .commit_exists(&sha)?
                .ok_or_else(|| ApiError::not_found("commit"))?;
            Ok::<_, ApiError>(git.commit(id)?.title)
        })
        .await?;
    let slug = path.pipeline.to_ascii_lowercase();
    let b = launch(
        &state,
        Launch {
            monorepo: &access.monorepo,
            connection: &connection,
            repo: &repo,
            pipeline: &slug,
            branch: &body.branch,
            head: &head,
            message,
            author: &caller.login,
            rebuild_of: None,
        },
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(build_view(&b, Some(&repo.name), Some(Vec::new()))),
    ))
}
