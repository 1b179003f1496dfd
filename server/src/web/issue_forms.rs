//! The issues pages' forms without JavaScript (see `forms`): a new issue, and an issue's
//! comment, close and reopen, title and description, labels and assignees, and editing
//! and deleting a comment, each a POST to a route of its page calling the API's own
//! handler.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde::Deserialize;
use svc_protocol::issue::{
    CommentBody, CreateIssue, Issue, IssueState, SetChange, StateReason, UpdateIssue,
};

use super::code::seg;
use super::forms;
use super::page::Viewer;
use crate::error::ApiError;
use crate::extract::{Json, Path};
use crate::paths::{IssueCommentPath, IssuePath, MonorepoPath};
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
        .route("/{owner}/{monorepo}/issues/{number}/edit", post(edit))
        .route("/{owner}/{monorepo}/issues/{number}/labels", post(triage))
        .route(
            "/{owner}/{monorepo}/issues/{number}/comments/{id}/edit",
            post(edit_comment),
        )
        .route(
            "/{owner}/{monorepo}/issues/{number}/comments/{id}/delete",
            post(delete_comment),
        )
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
            state_reason: form
                .state_reason
                .filter(|_| form.state == IssueState::Closed),
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

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct EditForm {
    title: String,
    /// Absent when the description was too long to edit on the page.
    body: Option<String>,
    base_version: Option<i64>,
}

/// "Save" of the issue's title and description (updateIssue, the description against
/// the version the form showed), then back.
async fn edit(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<IssuePath>,
    axum::Form(form): axum::Form<EditForm>,
) -> Response {
    let to = back(&at);
    forms::post(&state, &viewer, &headers, &to, async {
        let current = api::get(State(state.clone()), viewer.0.clone(), Path(at.clone()))
            .await?
            .0;
        // Only what changed, so an untouched description needs no version.
        let title = form.title.trim().to_owned();
        let body = form.body.filter(|b| *b != current.body);
        let body = UpdateIssue {
            title: (title != current.row.title).then_some(title),
            base_version: body.as_ref().and(form.base_version),
            body,
            ..UpdateIssue::default()
        };
        api::update(State(state.clone()), viewer.0.clone(), Path(at), Json(body)).await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TriageForm {
    labels: String,
    assignees: String,
}

/// The names of a comma-separated field, trimmed, without blanks or repeats.
fn names(field: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in field.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if !out.iter().any(|o| o == n) {
            out.push(n.to_owned());
        }
    }
    out
}

/// From the list `now` to the list `wanted`: what to add and remove.
fn change(now: &[String], wanted: &[String]) -> Option<SetChange<String>> {
    let add: Vec<String> = wanted
        .iter()
        .filter(|w| !now.contains(w))
        .cloned()
        .collect();
    let remove: Vec<String> = now
        .iter()
        .filter(|n| !wanted.contains(n))
        .cloned()
        .collect();
    (!add.is_empty() || !remove.is_empty()).then_some(SetChange { add, remove })
}

/// "Set labels and assignees" (updateIssue with what was added and removed), then back.
async fn triage(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<IssuePath>,
    axum::Form(form): axum::Form<TriageForm>,
) -> Response {
    let to = back(&at);
    forms::post(&state, &viewer, &headers, &to, async {
        let current = api::get(State(state.clone()), viewer.0.clone(), Path(at.clone()))
            .await?
            .0;
        let body = UpdateIssue {
            labels: change(&current.row.labels, &names(&form.labels)),
            assignees: change(&current.row.assignees, &names(&form.assignees)),
            ..UpdateIssue::default()
        };
        if body.labels.is_some() || body.assignees.is_some() {
            api::update(State(state.clone()), viewer.0.clone(), Path(at), Json(body)).await?;
        }
        Ok(())
    })
    .await
}

/// The issue's page from a comment's path.
fn issue_of(at: &IssueCommentPath) -> String {
    back(&IssuePath {
        owner: at.owner.clone(),
        monorepo: at.monorepo.clone(),
        number: at.number,
    })
}

/// "Save comment" (updateIssueComment), then back.
async fn edit_comment(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<IssueCommentPath>,
    axum::Form(form): axum::Form<CommentForm>,
) -> Response {
    let to = issue_of(&at);
    forms::post(&state, &viewer, &headers, &to, async {
        let body = CommentBody { body: form.body };
        api::update_comment(State(state.clone()), viewer.0.clone(), Path(at), Json(body)).await?;
        Ok(())
    })
    .await
}

/// "Delete comment" (deleteIssueComment), then back.
async fn delete_comment(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<IssueCommentPath>,
) -> Response {
    let to = issue_of(&at);
    forms::post(&state, &viewer, &headers, &to, async {
        api::delete_comment(State(state.clone()), viewer.0.clone(), Path(at)).await?;
        Ok(())
    })
    .await
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_list_field_becomes_what_to_add_and_remove() {
        let now = vec!["bug".to_owned(), "ui".to_owned()];
        let wanted = super::names(" ui, docs,, docs ");
        assert_eq!(wanted, ["ui", "docs"]);
        let c = super::change(&now, &wanted).unwrap();
        assert_eq!((c.add, c.remove), (vec!["docs".into()], vec!["bug".into()]));
        assert!(super::change(&now, &now).is_none());
    }
}
