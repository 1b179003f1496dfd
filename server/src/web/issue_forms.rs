//! The issues pages' forms without JavaScript (see `forms`): a new issue, and an issue's
//! comment, close and reopen, title and description, labels and assignees, and editing
//! and deleting a comment, and reactions to the issue and its comments, each a POST to
//! a route of its page calling the API's own handler.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde::Deserialize;
use svc_protocol::issue::{
    CommentBody, CreateIssue, Issue, IssueLink, IssueState, SetChange, StateReason, UpdateIssue,
};

use super::code::seg;
use super::forms;
use super::page::Viewer;
use crate::error::ApiError;
use crate::extract::{Json, Path};
use crate::paths::{
    CommentReactionPath, IssueCommentPath, IssuePath, IssueReactionPath, MonorepoPath,
};
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
        .route("/{owner}/{monorepo}/issues/{number}/reactions", post(react))
        .route(
            "/{owner}/{monorepo}/issues/{number}/comments/{id}/reactions",
            post(react_to_comment),
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
    /// `repo:branch`, comma-separated (git forbids `:` in branch names). Absent from
    /// an older form: the links are then left as they are.
    links: Option<String>,
}

/// The branches of a `links` field: each `repo:branch`.
fn links(field: &str) -> Result<Vec<IssueLink>, ApiError> {
    names(field)
        .into_iter()
        .map(|l| match l.split_once(':') {
            Some((repo, branch)) if !repo.trim().is_empty() && !branch.trim().is_empty() => {
                Ok(IssueLink {
                    // Repo names are one case; the API answers them in lower case.
                    repo: repo.trim().to_ascii_lowercase(),
                    branch: branch.trim().to_owned(),
                })
            }
            _ => Err(ApiError::bad_request(
                svc_protocol::ErrorCode::BadRequest,
                format!("write a branch as repo:branch, like app:feature (not {l:?})"),
            )),
        })
        .collect()
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
fn change<T: Clone + PartialEq>(now: &[T], wanted: &[T]) -> Option<SetChange<T>> {
    let add: Vec<T> = wanted
        .iter()
        .filter(|w| !now.contains(w))
        .cloned()
        .collect();
    let remove: Vec<T> = now
        .iter()
        .filter(|n| !wanted.contains(n))
        .cloned()
        .collect();
    (!add.is_empty() || !remove.is_empty()).then_some(SetChange { add, remove })
}

/// "Set labels, assignees and branches" (updateIssue with what was added and removed),
/// then back.
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
        let links = match &form.links {
            Some(field) => change(&current.links, &links(field)?),
            None => None,
        };
        let body = UpdateIssue {
            labels: change(&current.row.labels, &names(&form.labels)),
            assignees: change(&current.row.assignees, &names(&form.assignees)),
            links,
            ..UpdateIssue::default()
        };
        if body.labels.is_some() || body.assignees.is_some() || body.links.is_some() {
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

/// A reactions form: the button pressed gives (`give`) or takes back (`take`) its
/// reaction; "React" (`give_picked`) gives the one picked in the menu (`pick`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ReactionForm {
    give: Option<String>,
    take: Option<String>,
    give_picked: Option<String>,
    pick: String,
}

impl ReactionForm {
    /// The reaction's content and whether it is given (else taken back).
    fn chosen(self) -> Result<(String, bool), ApiError> {
        match (self.take, self.give, self.give_picked) {
            (Some(content), _, _) => Ok((content, false)),
            (None, Some(content), _) => Ok((content, true)),
            (None, None, Some(_)) => Ok((self.pick, true)),
            (None, None, None) => Err(ApiError::bad_request(
                svc_protocol::ErrorCode::BadRequest,
                "choose a reaction",
            )),
        }
    }
}

/// A reaction to the issue given or taken back (addIssueReaction, removeIssueReaction),
/// then back.
async fn react(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<IssuePath>,
    axum::Form(form): axum::Form<ReactionForm>,
) -> Response {
    reacted(&state, &viewer, &headers, at, None, form).await
}

/// A reaction to a comment given or taken back (addCommentReaction,
/// removeCommentReaction), then back.
async fn react_to_comment(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<IssueCommentPath>,
    axum::Form(form): axum::Form<ReactionForm>,
) -> Response {
    let issue = IssuePath {
        owner: at.owner,
        monorepo: at.monorepo,
        number: at.number,
    };
    reacted(&state, &viewer, &headers, issue, Some(at.id), form).await
}

/// A reactions form's write, on the issue (`comment` None) or one of its comments.
async fn reacted(
    state: &AppState,
    viewer: &Viewer,
    headers: &HeaderMap,
    at: IssuePath,
    comment: Option<i64>,
    form: ReactionForm,
) -> Response {
    let to = back(&at);
    forms::post(state, viewer, headers, &to, async {
        let (content, give) = form.chosen()?;
        let (s, caller) = (State(state.clone()), viewer.0.clone());
        let IssuePath {
            owner,
            monorepo,
            number,
        } = at;
        match comment {
            None => {
                let path = Path(IssueReactionPath {
                    owner,
                    monorepo,
                    number,
                    content,
                });
                match give {
                    true => api::add_reaction(s, caller, path).await?,
                    false => api::remove_reaction(s, caller, path).await?,
                }
            }
            Some(id) => {
                let path = Path(CommentReactionPath {
                    owner,
                    monorepo,
                    number,
                    id,
                    content,
                });
                match give {
                    true => api::add_comment_reaction(s, caller, path).await?,
                    false => api::remove_comment_reaction(s, caller, path).await?,
                }
            }
        };
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
