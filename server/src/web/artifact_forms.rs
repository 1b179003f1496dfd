//! The artifact page's forms without JavaScript (see `forms`): start a thread (on a
//! quoted passage or not), reply in one, resolve or reopen one; each a POST to a route
//! under the artifact's page calling the API's own handler, then back to the threads.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde::Deserialize;
use svc_protocol::artifact::{ArtifactCommentUpdate, NewArtifactComment, ThreadState};

use super::branch::branch_page;
use super::code::seg;
use super::forms;
use super::page::Viewer;
use crate::extract::{Agent, Json, Path};
use crate::paths::{ArtifactCommentPath, ArtifactPath};
use crate::routes::artifact_comments as api;
use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    let at = "/{owner}/{monorepo}/-/{repo}/branches/{branch}/artifacts/{name}";
    axum::Router::new()
        .route(&format!("{at}/threads"), post(comment))
        .route(&format!("{at}/threads/{{id}}/state"), post(set_state))
}

/// The artifact's page at its threads, from the root.
fn back(at: &ArtifactPath) -> String {
    let label = format!("{}/{}", seg(&at.owner), seg(&at.monorepo));
    format!(
        "{}/artifacts/{}#threads",
        branch_page(&label, &at.repo, &at.branch),
        seg(&at.name)
    )
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CommentForm {
    body: String,
    /// The passage the thread is about; none when empty.
    quote: String,
    /// The version shown.
    version: String,
    /// The thread's root, for a reply.
    in_reply_to: String,
}

/// "Start thread" and "Reply" (addArtifactComment), then back to the threads.
async fn comment(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<ArtifactPath>,
    axum::Form(form): axum::Form<CommentForm>,
) -> Response {
    let to = back(&at);
    let filled = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
    let body = NewArtifactComment {
        body: form.body,
        version: form.version.trim().parse().ok(),
        anchor: None,
        quote: filled(&form.quote),
        in_reply_to: filled(&form.in_reply_to),
    };
    forms::post(&state, &viewer, &headers, &to, async {
        api::add(
            State(state.clone()),
            viewer.0.clone(),
            Agent(None),
            HeaderMap::new(),
            Path(at.clone()),
            Json(body),
        )
        .await?;
        Ok(())
    })
    .await
}

/// A thread under the artifact's page.
#[derive(Debug, Deserialize)]
pub struct ThreadPath {
    owner: String,
    monorepo: String,
    repo: String,
    branch: String,
    name: String,
    id: String,
}

#[derive(Debug, Deserialize)]
pub struct StateForm {
    state: ThreadState,
}

/// "Resolve" and "Reopen" (updateArtifactComment), then back to the threads.
async fn set_state(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(t): Path<ThreadPath>,
    axum::Form(form): axum::Form<StateForm>,
) -> Response {
    let to = back(&ArtifactPath {
        owner: t.owner.clone(),
        monorepo: t.monorepo.clone(),
        repo: t.repo.clone(),
        branch: t.branch,
        name: t.name,
    });
    let path = ArtifactCommentPath {
        owner: t.owner,
        monorepo: t.monorepo,
        repo: t.repo,
        id: t.id,
    };
    let change = ArtifactCommentUpdate {
        body: None,
        base_version: None,
        state: Some(form.state),
    };
    forms::post(&state, &viewer, &headers, &to, async {
        api::update(
            State(state.clone()),
            viewer.0.clone(),
            Agent(None),
            Path(path),
            Json(change),
        )
        .await?;
        Ok(())
    })
    .await
}
