//! Starting a build by hand (startCiBuild, rebuildCiBuild): like a push delivery, with a
//! fresh read token and status token, and recorded at once from the service's answer.

use axum::http::StatusCode;
use serde_json::json;
use svc_protocol::ErrorCode;

use super::buildkite::{self, Pipeline};
use super::{BUILDKITE, Source, apply};
use crate::config::BuildkiteSettings;
use crate::error::{ApiError, ApiResult};
use crate::hooks::ci_build::{self, Fields};
use crate::hooks::tokens;
use crate::state::AppState;
use crate::store::ci::{self, BuildRow, ConnectionRow};
use crate::store::monorepos::MonorepoRow;
use crate::store::now_ms;
use crate::store::repos::RepoRow;

/// What to build.
pub struct Launch<'a> {
    pub monorepo: &'a MonorepoRow,
    pub connection: &'a ConnectionRow,
    pub repo: &'a RepoRow,
    pub pipeline: &'a str,
    pub branch: &'a str,
    pub head: &'a str,
    pub message: String,
    /// Who asked, as the build's author.
    pub author: &'a str,
    /// The build this one rebuilds (`meta_data.svc_rebuild_of`).
    pub rebuild_of: Option<&'a str>,
}

/// The server's Buildkite settings, or 400 `ci_not_configured`.
pub fn settings(state: &AppState) -> ApiResult<&BuildkiteSettings> {
    state.config.buildkite.as_ref().ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::CiNotConfigured,
            "this server has no Buildkite settings ([ci.buildkite] or SVC_BUILDKITE_TOKEN)",
        )
    })
}

/// A pipeline of the connection's organization, reached with the server's settings.
pub fn pipeline<'a>(
    state: &'a AppState,
    connection: &'a ConnectionRow,
    slug: &'a str,
) -> ApiResult<Pipeline<'a>> {
    Ok(Pipeline {
        client: &state.ci_client,
        settings: settings(state)?,
        org: &connection.organization,
        slug,
    })
}

/// 502 `provider_error` with the service's own words.
pub fn provider_error(f: buildkite::Failed) -> ApiError {
    ApiError::new(StatusCode::BAD_GATEWAY, ErrorCode::ProviderError, f.message)
}

/// Creates the build on the service and records it before answering it.
pub async fn launch(state: &AppState, l: Launch<'_>) -> ApiResult<BuildRow> {
    let target = pipeline(state, l.connection, l.pipeline)?;
    let now = now_ms();
    let (read, _) = {
        let mut tx = state.store.begin().await?;
        let minted =
            tokens::mint_read(tx.h(), &l.repo.id, None, now, tokens::CI_READ_TOKEN_MS).await?;
        tx.commit().await?;
        minted
    };
    let label = l.monorepo.label();
    let repo_url = format!(
        "{}/v1/monorepos/{label}/repos/{}",
        state.config.base(),
        l.repo.name
    );
    let status_token = state.config.status_secret.as_deref().map(|secret| {
        tokens::sign_status(
            secret,
            &tokens::StatusGrant {
                repo: l.repo.id.clone(),
                sha: l.head.to_owned(),
                creator: format!("app:{BUILDKITE}"),
                app: Some(BUILDKITE.into()),
                exp: now + tokens::STATUS_TOKEN_MS,
            },
        )
    });
    let mut request = ci_build::request(&Fields {
        clone_url: crate::views::clone_url(&state.config, l.monorepo, l.repo),
        read_token: read,
        status_url: status_token
            .as_ref()
            .map(|_| format!("{repo_url}/statuses/{}", l.head)),
        status_token,
        monorepo: label,
        monorepo_id: l.monorepo.id.clone(),
        repo: l.repo.name.clone(),
        branch: l.branch.to_owned(),
        head: l.head.to_owned(),
        delivery: crate::token::new_id("start_"),
        seq: None,
        message: l.message,
        author: Some(l.author.to_owned()),
    });
    if let Some(of) = l.rebuild_of {
        request["meta_data"]["svc_rebuild_of"] = json!(of);
    }
    let (_, answer) = target
        .create_build(&request)
        .await
        .map_err(provider_error)?;
    let event = json!({"build": answer, "pipeline": {"slug": l.pipeline}});
    apply(
        state,
        l.connection,
        "build.scheduled",
        &event,
        Source::Answer,
    )
    .await?;
    let id = answer["id"].as_str().unwrap_or_default();
    let mut conn = state.store.read().await?;
    ci::build(conn.h(), &l.connection.id, id)
        .await?
        .ok_or_else(|| ApiError::internal("the started build was not recorded"))
}
