//! A CI hook's try: start a build on the CI service with the delivery's commit, branch
//! and message, the specification's `SVC_*` environment and `meta_data`. A failed create
//! is a failed try, retried on the schedule like a web hook's.

use serde_json::{Value, json};

use super::send::Outcome;
use crate::ci::buildkite;
use crate::state::AppState;
use crate::store::hooks::{DeliveryRow, HookRow};

/// Starts the build `body` (a delivery body completed for this try) asks for.
pub async fn start(
    state: &AppState,
    client: &reqwest::Client,
    hook: &HookRow,
    d: &DeliveryRow,
    body: &Value,
) -> Outcome {
    let started = std::time::Instant::now();
    let failed = |status: Option<u16>, error: String| Outcome {
        status,
        duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
        error: Some(error),
    };
    let Some(settings) = &state.config.buildkite else {
        return failed(None, "this server has no Buildkite settings".into());
    };
    let Some((org, pipeline)) = hook.pipeline.as_deref().and_then(|p| p.split_once('/')) else {
        return failed(None, "the hook names no <org>/<pipeline>".into());
    };
    let merged = d.event == "merged";
    let text = |k: &str| body[k].as_str().unwrap_or_default().to_owned();
    let (commit, branch) = if merged {
        (text("merge_commit"), text("main_branch"))
    } else {
        (text("head"), text("branch"))
    };
    let message = match body["title"].as_str().filter(|t| !t.is_empty()) {
        Some(title) => title.to_owned(),
        None => commit_title(state, d, &commit)
            .await
            .unwrap_or_else(|| format!("{} {branch}", d.event)),
    };
    let str_of = |v: &Value| v.as_str().map(str::to_owned);
    let request = request(&Fields {
        clone_url: text("clone_url"),
        read_token: text("read_token"),
        status_url: str_of(&body["status_url"]),
        status_token: str_of(&body["status_token"]),
        monorepo: text("monorepo"),
        monorepo_id: text("monorepo_id"),
        repo: text("repo"),
        branch,
        head: commit,
        delivery: d.id.clone(),
        seq: d.seq,
        message,
        author: str_of(&body["pusher"]),
    });
    let target = buildkite::Pipeline {
        client,
        settings,
        org,
        slug: pipeline,
    };
    match target.create_build(&request).await {
        Ok((status, _)) => Outcome {
            status: Some(status),
            duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
            error: None,
        },
        Err(f) => failed(f.status, f.message),
    }
}

/// What a build is started with.
pub struct Fields {
    pub clone_url: String,
    pub read_token: String,
    pub status_url: Option<String>,
    pub status_token: Option<String>,
    /// The monorepo's label, and its id.
    pub monorepo: String,
    pub monorepo_id: String,
    pub repo: String,
    pub branch: String,
    pub head: String,
    pub delivery: String,
    pub seq: Option<i64>,
    pub message: String,
    pub author: Option<String>,
}

/// Buildkite's create-build body: commit, branch, message, the `SVC_*` environment and
/// `meta_data` (`svc_delivery`, `svc_monorepo` (the id), `svc_repo`).
pub fn request(f: &Fields) -> Value {
    json!({
        "commit": f.head,
        "branch": f.branch,
        "message": f.message,
        "author": {"name": f.author},
        "env": {
            "SVC_CLONE_URL": f.clone_url,
            "SVC_READ_TOKEN": f.read_token,
            "SVC_STATUS_URL": f.status_url,
            "SVC_STATUS_TOKEN": f.status_token,
            "SVC_MONOREPO": f.monorepo,
            "SVC_REPO": f.repo,
            "SVC_BRANCH": f.branch,
            "SVC_HEAD": f.head,
            "SVC_DELIVERY": f.delivery,
            "SVC_SEQ": f.seq.map(|s| s.to_string()),
        },
        "meta_data": {
            "svc_delivery": f.delivery,
            "svc_monorepo": f.monorepo_id,
            "svc_repo": f.repo,
        },
    })
}

/// The first line of the commit's message, read from git.
async fn commit_title(state: &AppState, d: &DeliveryRow, sha: &str) -> Option<String> {
    let repo = {
        let mut conn = state.store.read().await.ok()?;
        crate::store::repos::by_id(conn.h(), d.repo_id.as_deref()?)
            .await
            .ok()??
    };
    let sha = sha.to_owned();
    state
        .git(&repo, move |git| {
            let Some(id) = git.commit_exists(&sha)? else {
                return Ok::<_, crate::error::ApiError>(None);
            };
            Ok(Some(git.commit(id)?.title))
        })
        .await
        .ok()
        .flatten()
}
