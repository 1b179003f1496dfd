//! The branch page's forms without JavaScript (see `forms`): merge (and merge past the
//! checks), arm and cancel auto-merge, leave the merge queue, and a review, each a POST to a route under the
//! branch's page calling the API's own handler.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde::Deserialize;
use svc_protocol::branch::{CreateReview, ReviewState};

use super::branch::branch_page;
use super::code::seg;
use super::forms;
use super::page::Viewer;
use crate::extract::{Agent, Json, Path, Query};
use crate::merging::MergeQuery;
use crate::paths::BranchPath;
use crate::routes::{auto_merge, merge, queue, reviews};
use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    let at = "/{owner}/{monorepo}/-/{repo}/branches/{branch}";
    axum::Router::new()
        .route(&format!("{at}/merge"), post(merge_now))
        .route(&format!("{at}/auto-merge"), post(arm))
        .route(&format!("{at}/auto-merge/cancel"), post(disarm))
        .route(&format!("{at}/reviews"), post(review))
        .route(&format!("{at}/queue/leave"), post(leave_queue))
}

/// The branch's page, from the root.
fn back(at: &BranchPath) -> String {
    branch_page(
        &format!("{}/{}", seg(&at.owner), seg(&at.monorepo)),
        &at.repo,
        &at.branch,
    )
}

#[derive(Debug, Default, Deserialize)]
pub struct ForceQuery {
    /// `1`: "Merge anyway", past the checks.
    force: Option<String>,
}

/// "Merge into main" (mergeBranch), then back to the branch, merged.
async fn merge_now(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<BranchPath>,
    Query(q): Query<ForceQuery>,
) -> Response {
    let to = back(&at);
    let query = MergeQuery {
        force: q.force.as_deref() == Some("1"),
    };
    forms::post(&state, &viewer, &headers, &to, async {
        merge::merge(
            State(state.clone()),
            viewer.0.clone(),
            Agent(None),
            Path(at),
            Query(query),
        )
        .await?;
        Ok(())
    })
    .await
}

/// "Merge when the checks pass" (enableAutoMerge), then back.
async fn arm(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<BranchPath>,
) -> Response {
    let to = back(&at);
    forms::post(&state, &viewer, &headers, &to, async {
        auto_merge::enable(
            State(state.clone()),
            viewer.0.clone(),
            Agent(None),
            Path(at),
        )
        .await?;
        Ok(())
    })
    .await
}

/// "Cancel auto-merge" (disableAutoMerge), then back.
async fn disarm(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<BranchPath>,
) -> Response {
    let to = back(&at);
    forms::post(&state, &viewer, &headers, &to, async {
        auto_merge::disable(
            State(state.clone()),
            viewer.0.clone(),
            Agent(None),
            Path(at),
        )
        .await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Default, Deserialize)]
pub struct LeaveQuery {
    /// `queue`: back to the repo's queue page rather than the branch's.
    from: Option<String>,
}

/// "Leave the queue" (leaveQueue), then back to the branch, or to the queue page.
async fn leave_queue(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<BranchPath>,
    Query(q): Query<LeaveQuery>,
) -> Response {
    let to = match q.from.as_deref() {
        Some("queue") => format!(
            "/{}/{}/-/{}/queue",
            seg(&at.owner),
            seg(&at.monorepo),
            seg(&at.repo)
        ),
        _ => back(&at),
    };
    forms::post(&state, &viewer, &headers, &to, async {
        queue::leave(
            State(state.clone()),
            viewer.0.clone(),
            Agent(None),
            Path(at),
        )
        .await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct ReviewForm {
    state: ReviewState,
    #[serde(default)]
    body: String,
}

/// "Post review" (createReview), then back.
async fn review(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<BranchPath>,
    axum::Form(form): axum::Form<ReviewForm>,
) -> Response {
    let to = back(&at);
    forms::post(&state, &viewer, &headers, &to, async {
        let body = CreateReview {
            state: form.state,
            body: form.body,
        };
        reviews::create(
            State(state.clone()),
            viewer.0.clone(),
            Agent(None),
            Path(at),
            Json(body),
        )
        .await?;
        Ok(())
    })
    .await
}
