//! getRepoSummary: a repo's main with its checks, and its latest published release.

use axum::extract::State;
use svc_protocol::ApiErrorBody;
use svc_protocol::release::{MainSummary, RepoSummary};

use crate::auth::Caller;
use crate::authz::Need;
use crate::checks::checks_of;
use crate::error::ApiResult;
use crate::extract::{Json, Path};
use crate::paths::RepoPath;
use crate::releases;
use crate::state::AppState;
use crate::store::releases as rows;

/// The repo's main (its head, the head's checks or `not_built`, the newest CI build on
/// main, a CiBuild, or null) and its latest published release.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/summary", operation_id = "getRepoSummary", tag = "releases",
    params(RepoPath),
    responses((status = 200, body = RepoSummary), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
) -> ApiResult<Json<RepoSummary>> {
    let mut conn = state.store.read().await?;
    let (access, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let checks = match &repo.default_head {
        Some(head) => checks_of(conn.h(), &state, &access, &repo, std::slice::from_ref(head))
            .await?
            .pop(),
        None => None,
    };
    let build_state = checks
        .as_ref()
        .map_or_else(|| "not_built".to_owned(), |c| c.build_state.clone());
    let release = match rows::latest(conn.h(), &repo.id, None).await? {
        Some(row) => {
            Some(releases::view_one(conn.h(), &state.config, &access.monorepo, &repo, &row).await?)
        }
        None => None,
    };
    let build = crate::store::ci::newest_on_branch(conn.h(), &repo.id, &repo.default_branch)
        .await?
        .map(|b| serde_json::json!(crate::ci::build_view(&b, Some(&repo.name), None)));
    Ok(Json(RepoSummary {
        repo: repo.name.clone(),
        main: MainSummary {
            commit: repo.default_head.clone(),
            checks,
            build_state,
            build,
        },
        release,
    }))
}
