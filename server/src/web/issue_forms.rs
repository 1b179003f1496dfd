//! The issues pages' forms without JavaScript (see `forms`): a new issue, and an issue's
//! comment, close and reopen, each a POST to a route of its page calling the API's own
//! handler.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde::Deserialize;
use svc_protocol::issue::{CommentBody, CreateIssue, Issue, IssueState, StateReason, UpdateIssue};

use super::code::seg;
use super::forms;
use super::page::Viewer;
use crate::error::ApiError;
use crate::extract::{Json, Path};
use crate::paths::{IssuePath, MonorepoPath};
use crate::routes::issues as api;
use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/{owner}/{monorepo}/issues", axum::routing::post(open))
        .route(
            "/{owner}/{monorepo}/issues/{number}/comments",
            post(comment),
        )
        .route("/{owner}/{monorepo}/issues/{number}/state", post(set_state))
}

/// The issue's page, from the root.
fn back(at: &IssuePath) -> String {
    format!(
        "/{}/{}/issues/{}",
        seg(&at.owner),
        seg(&at.monorepo),
        at.number
    )
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CommentForm {
    body: String,
}

/// "Comment" (addIssueComment), then back to the issue.
async fn comment(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<IssuePath>,
    axum::Form(form): axum::Form<CommentForm>,
) -> Response {
    let to = back(&at);
    forms::post(&state, &viewer, &headers, &to, async {
        let body = CommentBody { body: form.body };
        api::add_comment(State(state.clone()), viewer.0.clone(), Path(at), Json(body)).await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct StateForm {
    state: IssueState,
    state_reason: Option<StateReason>,
}

/// "Close issue" (with its reason) and "Reopen issue" (updateIssue), then back.
async fn set_state(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<IssuePath>,
    axum::Form(form): axum::Form<StateForm>,
) -> Response {
    let to = back(&at);
    forms::post(&state, &viewer, &headers, &to, async {
        let body = UpdateIssue {
            state: Some(form.state),
            state_reason: form.state_reason.filter(|_| form.state == IssueState::Closed),
            ..UpdateIssue::default()
        };
        api::update(State(state.clone()), viewer.0.clone(), Path(at), Json(body)).await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct NewIssueForm {
    title: String,
    body: String,
}

/// "Open issue" (createIssue), then to the new issue's page.
async fn open(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MonorepoPath>,
    axum::Form(form): axum::Form<NewIssueForm>,
) -> Response {
    let label = format!("{}/{}", seg(&at.owner), seg(&at.monorepo));
    let to = format!("/{label}/issues");
    forms::post_then(&state, &viewer, &headers, &to, async {
        let body = CreateIssue {
            title: form.title,
            body: Some(form.body).filter(|b| !b.trim().is_empty()),
            ..CreateIssue::default()
        };
        let made = api::create(
            State(state.clone()),
            viewer.0.clone(),
            headers.clone(),
            Path(at),
            Json(body),
        )
        .await?;
        // The API's answer is the new issue as JSON: its number names its page.
        let bytes = axum::body::to_bytes(made.into_body(), 4 * 1024 * 1024)
            .await
            .map_err(ApiError::internal)?;
        let issue: Issue = serde_json::from_slice(&bytes).map_err(ApiError::internal)?;
        Ok(format!("/{label}/issues/{}", issue.row.number))
    })
    .await
}
