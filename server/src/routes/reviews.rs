//! Reviews: comments, approvals and change requests on a branch; never a gate.

use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{CreateReview, Review, ReviewList, ReviewState};

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path, Query, page_limit};
use crate::paths::BranchPath;
use crate::state::AppState;
use crate::store::reviews::{self, ReviewRow};
use crate::store::{events, now_ms, time_of};

const BODY_MAX: usize = 65_536;
const PAGE_DEFAULT: i64 = 100;
const PAGE_MAX: i64 = 250;

fn view(repo: &str, r: &ReviewRow) -> Review {
    Review {
        id: r.id,
        repo: repo.to_owned(),
        branch: r.branch.clone(),
        state: ReviewState::parse(&r.state).unwrap_or(ReviewState::Comment),
        body: r.body.clone(),
        author: r.author.clone(),
        agent: r.agent.clone(),
        head: r.head.clone(),
        created_at: time_of(r.created_at),
    }
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1)]
    pub(crate) cursor: Option<String>,
    /// Reviews a page, at most 250 (default 100).
    #[param(minimum = 1, maximum = 250)]
    pub(crate) limit: Option<i64>,
}

/// A branch's reviews, oldest first.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/reviews", operation_id = "listReviews", tag = "reviews",
    params(BranchPath, ListQuery),
    responses((status = 200, body = ReviewList), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<BranchPath>,
    Query(q): Query<ListQuery>,
) -> ApiResult<Json<ReviewList>> {
    let after: i64 = match q.cursor.as_deref() {
        None => 0,
        Some(c) => c.parse().map_err(|_| {
            ApiError::bad_request(
                ErrorCode::BadCursor,
                "this cursor was not made by this list",
            )
        })?,
    };
    let limit = page_limit(q.limit, PAGE_DEFAULT, PAGE_MAX)?;
    let mut conn = state.store.read().await?;
    let (_, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let b = path.live(conn.h(), &repo).await?;
    let mut rows = reviews::page(conn.h(), &repo.id, &b.name, after, limit + 1).await?;
    let more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(Json(ReviewList {
        next_cursor: more
            .then(|| rows.last().map(|r| r.id.to_string()))
            .flatten(),
        items: rows.iter().map(|r| view(&repo.name, r)).collect(),
    }))
}

/// Posts a review (any member). An agent (`X-Svc-Agent`) may comment or request changes,
/// never approve.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/reviews", operation_id = "createReview", tag = "reviews",
    request_body = CreateReview,
    params(BranchPath),
    responses((status = 201, body = Review), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "agent_cannot_approve")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
    Json(body): Json<CreateReview>,
) -> ApiResult<(StatusCode, Json<Review>)> {
    let review_session = caller.scope.as_ref().is_some_and(|s| s.is_review());
    if (agent.is_some() || review_session) && body.state == ReviewState::Approve {
        return Err(ApiError::forbidden(
            ErrorCode::AgentCannotApprove,
            "an agent may comment or request changes, but not approve",
        ));
    }
    if body.body.len() > BODY_MAX {
        return Err(ApiError::bad_request(
            ErrorCode::TooLarge,
            format!("a review body is at most {BODY_MAX} bytes"),
        ));
    }
    if body.state != ReviewState::Approve && body.body.trim().is_empty() {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "a comment or change request needs a body",
        ));
    }
    let mut tx = state.store.begin().await?;
    let (access, repo) = path.resolve(tx.h(), &caller, Need::Review).await?;
    let b = path.live(tx.h(), &repo).await?;
    if let Some(scope) = &caller.scope {
        scope.allows_review(&repo.id, &b.name)?;
    }
    let row = ReviewRow {
        id: 0,
        repo_id: repo.id.clone(),
        branch: b.name.clone(),
        state: body.state.as_str().to_owned(),
        body: body.body,
        author: caller.login.clone(),
        agent: agent.clone(),
        head: b.head.clone(),
        created_at: now_ms(),
    };
    let row = reviews::insert(tx.h(), &row).await?;
    let review = view(&repo.name, &row);
    let event_body = serde_json::json!({"row": review, "actor": caller.login, "agent": agent});
    let key = format!("{}/{}/{}", repo.name, b.name, row.id);
    let event = events::NewEvent {
        monorepo_id: &access.monorepo.id,
        kind: "review",
        repo: Some(&repo.name),
        also_repos: None,
        collection: "reviews",
        key: &key,
        op: "upsert",
        body: event_body.to_string(),
        at: row.created_at,
    };
    events::append(tx.h(), &event).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(review)))
}
