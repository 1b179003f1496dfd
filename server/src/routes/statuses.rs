//! Commit statuses and the Checks object of a commit.

use axum::extract::State;
use axum::http::StatusCode;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{Checks, PostStatus, Status};

use crate::auth::{Caller, StatusPoster};
use crate::authz::Need;
use crate::checks::{checks_of, status_view};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path};
use crate::paths::CommitPath;
use crate::state::AppState;
use crate::store::repos::RepoRow;
use crate::store::statuses::{self, StatusRow};
use crate::store::{H, events, monorepos, now_ms, repos};

const CONTEXT_MAX: usize = 255;
const DESCRIPTION_MAX: usize = 1024;
const URL_MAX: usize = 2048;
/// Contexts one commit may have.
const CONTEXTS_MAX: i64 = 1000;

fn is_sha(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// 404 unless the repo has the commit.
async fn check_commit(state: &AppState, repo: &RepoRow, sha: &str) -> ApiResult<()> {
    if !is_sha(sha) {
        return Err(ApiError::not_found("commit"));
    }
    let sha = sha.to_owned();
    let found = state.git(repo, move |git| git.commit_exists(&sha)).await?;
    found
        .map(|_| ())
        .ok_or_else(|| ApiError::not_found("commit"))
}

fn validate(body: &PostStatus) -> ApiResult<()> {
    let bad = |m: String| Err(ApiError::bad_request(ErrorCode::BadRequest, m));
    let context = body.context.trim();
    if context.is_empty()
        || context.chars().count() > CONTEXT_MAX
        || context.chars().any(char::is_control)
    {
        return bad(format!(
            "context must be 1 to {CONTEXT_MAX} printable characters"
        ));
    }
    if body
        .description
        .as_ref()
        .is_some_and(|d| d.chars().count() > DESCRIPTION_MAX)
    {
        return bad(format!(
            "description is at most {DESCRIPTION_MAX} characters"
        ));
    }
    if let Some(u) = &body.target_url {
        let ok = u.len() <= URL_MAX
            && url::Url::parse(u).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
        if !ok {
            return bad(format!(
                "target_url must be an http(s) URL of at most {URL_MAX} bytes"
            ));
        }
    }
    Ok(())
}

/// Posts a status on a commit (any member); the latest per context counts.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/statuses/{sha}", operation_id = "postStatus", tag = "checks",
    security(("bearer" = []), ("session" = []), ("statusToken" = [])),
    request_body = PostStatus,
    params(CommitPath),
    responses((status = 201, body = Status), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 422, body = ApiErrorBody, description = "too_many_statuses")))]
pub async fn post(
    State(state): State<AppState>,
    poster: StatusPoster,
    Agent(agent): Agent,
    Path(path): Path<CommitPath>,
    Json(body): Json<PostStatus>,
) -> ApiResult<(StatusCode, Json<Status>)> {
    validate(&body)?;
    let sha = path.sha.to_ascii_lowercase();
    let repo = {
        let mut conn = state.store.read().await?;
        resolve(conn.h(), &poster, &path, &sha).await?.1
    };
    check_commit(&state, &repo, &sha).await?;
    let mut tx = state.store.begin().await?;
    let (monorepo_id, repo) = resolve(tx.h(), &poster, &path, &sha).await?;
    let (creator, app, actor) = match &poster {
        StatusPoster::Member(caller) => (caller.login.clone(), None, Some(caller.login.clone())),
        StatusPoster::Token(grant) => (grant.creator.clone(), grant.app.clone(), None),
    };
    let row = StatusRow {
        repo_id: repo.id.clone(),
        sha: sha.clone(),
        context: body.context.trim().to_owned(),
        state: body.state.as_str().to_owned(),
        target_url: body.target_url,
        description: body.description,
        creator,
        app,
        created_at: now_ms(),
    };
    let before = statuses::put(tx.h(), &row).await?;
    if before.is_none() && statuses::count(tx.h(), &repo.id, &sha).await? > CONTEXTS_MAX {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::TooManyStatuses,
            format!("a commit has at most {CONTEXTS_MAX} status contexts"),
        ));
    }
    let status = status_view(&row);
    let body = serde_json::json!({"row": status, "actor": actor, "agent": agent,
        "changed": before.as_deref() != Some(row.state.as_str())});
    let key = format!("{}/{}/{}", repo.name, sha, row.context);
    let event = events::NewEvent {
        monorepo_id: &monorepo_id,
        kind: "status",
        repo: Some(&repo.name),
        also_repos: None,
        collection: "statuses",
        key: &key,
        op: "upsert",
        body: body.to_string(),
        at: row.created_at,
    };
    events::append(tx.h(), &event).await?;
    tx.commit().await?;
    // An armed branch at this commit may merge now.
    state.auto_merge.poke(&repo.id);
    state.merge_queue.poke(&repo.id);
    Ok((StatusCode::CREATED, Json(status)))
}

/// The monorepo id and repo a status goes to: a member's (any member may post), or the
/// one commit of the one repo a status token names (else 403).
async fn resolve(
    mut h: H<'_>,
    poster: &StatusPoster,
    path: &CommitPath,
    sha: &str,
) -> ApiResult<(String, RepoRow)> {
    match poster {
        StatusPoster::Member(caller) => {
            let (access, repo) = path.resolve(h, caller, Need::Write).await?;
            Ok((access.monorepo.id, repo))
        }
        StatusPoster::Token(grant) => {
            let repo = repos::by_id(h.reborrow(), &grant.repo)
                .await?
                .filter(|r| r.name == path.repo.to_ascii_lowercase() && grant.sha == sha);
            let monorepo = match &repo {
                Some(r) => monorepos::by_id(h, &r.monorepo_id).await?,
                None => None,
            };
            let named = monorepo.as_ref().is_some_and(|m| {
                m.owner == path.owner.to_ascii_lowercase()
                    && m.name == path.monorepo.to_ascii_lowercase()
            });
            match (repo, named) {
                (Some(repo), true) => Ok((repo.monorepo_id.clone(), repo)),
                _ => Err(ApiError::forbidden(
                    ErrorCode::Forbidden,
                    "this status token posts only on its own commit of its own repo",
                )),
            }
        }
    }
}

/// The Checks object of a commit: the merge gate's view of it.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/commits/{sha}/checks", operation_id = "getCommitChecks", tag = "checks",
    params(CommitPath),
    responses((status = 200, body = Checks), (status = 404, body = ApiErrorBody)))]
pub async fn checks(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CommitPath>,
) -> ApiResult<Json<Checks>> {
    let sha = path.sha.to_ascii_lowercase();
    let mut conn = state.store.read().await?;
    let (access, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    check_commit(&state, &repo, &sha).await?;
    let mut all = checks_of(conn.h(), &state, &access, &repo, &[sha]).await?;
    all.pop()
        .map(Json)
        .ok_or_else(|| ApiError::not_found("commit"))
}
