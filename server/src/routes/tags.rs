//! A repo's tags, newest first, as recorded from git, each with its release if any.

use axum::extract::State;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::release::TagList;
use utoipa::IntoParams;

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::git::tags::view;
use crate::paths::RepoPath;
use crate::state::AppState;
use crate::store::{releases, tags};

/// Tags in one page.
const PAGE: usize = 100;

/// `?cursor=`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TagsQuery {
    /// The `next_cursor` of the previous page.
    cursor: Option<String>,
}

/// The repo's tags, newest first (by when a push or a release made or moved them), 100
/// a page.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/tags", operation_id = "listTags", tag = "releases",
    params(RepoPath, TagsQuery),
    responses((status = 200, body = TagList), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
    Query(q): Query<TagsQuery>,
) -> ApiResult<Json<TagList>> {
    let bad = ApiError::bad_cursor;
    let after = match q.cursor.as_deref() {
        None => None,
        Some(c) => {
            let (at, name) = c.split_once(':').ok_or_else(bad)?;
            Some((at.parse::<i64>().map_err(|_| bad())?, name))
        }
    };
    let mut conn = state.store.read().await?;
    let (_, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let mut page = tags::page(conn.h(), &repo.id, after, PAGE as i64 + 1).await?;
    let more = page.len() > PAGE;
    page.truncate(PAGE);
    let names: Vec<String> = page.iter().map(|t| t.name.clone()).collect();
    let found = releases::of_tags(conn.h(), &repo.id, &names).await?;
    let items = page
        .iter()
        .map(|t| view(t, found.iter().find(|r| r.tag == t.name)))
        .collect();
    let next_cursor = more
        .then(|| page.last().map(|t| format!("{}:{}", t.created_at, t.name)))
        .flatten();
    Ok(Json(TagList { items, next_cursor }))
}
