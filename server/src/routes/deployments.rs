//! Deployments: recorded, never performed, newest first.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::release::{CreateDeployment, Deployment, DeploymentList};
use utoipa::IntoParams;

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::paths::RepoPath;
use crate::state::AppState;
use crate::store::deployments::{self, DeploymentRow};
use crate::store::{now_ms, releases, time_of};

/// Deployments in one page.
const PAGE: usize = 30;

/// `?cursor=`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeploymentsQuery {
    /// The `next_cursor` of the previous page.
    cursor: Option<String>,
}

fn view(r: DeploymentRow) -> Deployment {
    Deployment {
        id: r.id,
        environment: r.environment,
        sha: r.sha,
        release: r.release,
        url: r.url,
        description: r.description,
        created_by: r.created_by,
        created_at: time_of(r.created_at),
    }
}

fn unprocessable(message: String) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::BadRequest,
        message,
    )
}

/// Records a deployment (any member). `sha` defaults to the release's commit, else
/// main's head; `release`, a published release's tag, defaults to the newest published
/// release at `sha`.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/deployments", operation_id = "createDeployment", tag = "releases",
    params(RepoPath), request_body = CreateDeployment,
    responses((status = 201, body = Deployment), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 422, body = ApiErrorBody, description = "an unknown commit or release")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
    Json(body): Json<CreateDeployment>,
) -> ApiResult<(StatusCode, Json<Deployment>)> {
    let environment = body.environment.trim().to_owned();
    let bad_text =
        |s: &Option<String>, max: usize| s.as_ref().is_some_and(|s| s.chars().count() > max);
    if environment.is_empty()
        || environment.chars().count() > 100
        || environment.chars().any(char::is_control)
    {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "an environment is 1 to 100 characters",
        ));
    }
    if bad_text(&body.url, 2000) || bad_text(&body.description, 1000) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "a url is at most 2,000 characters, a description 1,000",
        ));
    }
    let mut conn = state.store.read().await?;
    let (_, repo) = path.resolve(conn.h(), &caller, Need::Write).await?;
    let named = match body.release.as_deref() {
        Some(tag) => Some(
            releases::by_tag(conn.h(), &repo.id, tag)
                .await?
                .filter(|r| !r.draft)
                .ok_or_else(|| unprocessable(format!("{tag} is not a published release's tag")))?,
        ),
        None => None,
    };
    let sha = match (body.sha.as_deref(), &named, &repo.default_head) {
        (Some(sha), _, _) => {
            let sha = sha.to_ascii_lowercase();
            let check = sha.clone();
            let found = state
                .git(&repo, move |git| git.commit_exists(&check))
                .await?;
            if found.is_none() {
                return Err(unprocessable(format!("{sha} is not a commit of this repo")));
            }
            sha
        }
        (None, Some(r), _) => r.sha.clone(),
        (None, None, Some(main)) => main.clone(),
        (None, None, None) => {
            return Err(unprocessable(
                "the repo has no main yet: name the deployed commit in `sha`".into(),
            ));
        }
    };
    let release = match named {
        Some(r) => Some(r.tag),
        None => releases::latest_at(conn.h(), &repo.id, &sha)
            .await?
            .map(|r| r.tag),
    };
    drop(conn);
    let row = DeploymentRow {
        id: 0,
        environment,
        sha,
        release,
        url: body.url,
        description: body.description,
        created_by: caller.login.clone(),
        created_at: now_ms(),
    };
    let mut tx = state.store.begin().await?;
    let made = deployments::insert(tx.h(), &repo.id, &row).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(view(made))))
}

/// Deployments newest first, 30 a page.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/deployments", operation_id = "listDeployments", tag = "releases",
    params(RepoPath, DeploymentsQuery),
    responses((status = 200, body = DeploymentList), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
    Query(q): Query<DeploymentsQuery>,
) -> ApiResult<Json<DeploymentList>> {
    let before = match q.cursor.as_deref() {
        None => None,
        Some(c) => Some(c.parse::<i64>().map_err(|_| ApiError::bad_cursor())?),
    };
    let mut conn = state.store.read().await?;
    let (_, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let mut page = deployments::page(conn.h(), &repo.id, before, PAGE as i64 + 1).await?;
    let more = page.len() > PAGE;
    page.truncate(PAGE);
    let next_cursor = more
        .then(|| page.last().map(|d| d.id.to_string()))
        .flatten();
    Ok(Json(DeploymentList {
        items: page.into_iter().map(view).collect(),
        next_cursor,
    }))
}
