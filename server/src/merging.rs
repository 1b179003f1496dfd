//! Merging a branch: a merge commit on main, gated by the checks, made as a person (and
//! the agent acting for them): for mergeBranch and for auto-merge.
//!
//! The merge is written to the `merges` table before main's ref moves and recorded with
//! the ref move (main's head, the branch's `merged` state and both events in one
//! transaction), so a crash in between is finished by the next recording. Merges in one
//! repo run one at a time (the caller holds the repo's merge lock); across processes the
//! ref's compare-and-swap decides and the loser merges again onto the new main.

use gix::ObjectId;
use serde::Deserialize;
use svc_protocol::ErrorCode;
use svc_protocol::branch::MergeResult;

use crate::checks::{checks_in, require_green};
use crate::error::{ApiError, ApiResult};
use crate::git::merge::{self, Person};
use crate::git::record::{self, Actor};
use crate::paths::live_branch;
use crate::state::AppState;
use crate::store::merges::{self, MergeRow};
use crate::store::repos::RepoRow;
use crate::store::{monorepos, now_ms, repos, time_of, users};

/// Times a merge is redone when main moved under it (another process merged).
pub(crate) const ATTEMPTS: usize = 5;

/// The query of mergeBranch and mergeChange.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct MergeQuery {
    /// `1`: merge past red, missing or unknown checks; the merge is recorded as forced.
    #[serde(default, deserialize_with = "crate::extract::flag")]
    #[param(value_type = Option<String>, pattern = "^(0|1|true|false)?$")]
    pub(crate) force: bool,
}

/// Who a merge is made as: its author, and the agent that acted for them.
#[derive(Debug, Clone)]
pub struct Merger {
    pub user_id: String,
    pub login: String,
    pub agent: Option<String>,
}

/// Lands `branch` of the repo on main as `by`, through the gate unless `force`. The
/// caller has authorized `by` and holds the repo's merge lock.
pub async fn land(
    state: &AppState,
    repo_id: &str,
    branch: &str,
    by: &Merger,
    force: bool,
) -> ApiResult<MergeResult> {
    let agent = by.agent.clone();
    for _ in 0..ATTEMPTS {
        let (repo, row, checks, user) = {
            let mut conn = state.store.read().await?;
            let repo = repos::by_id(conn.h(), repo_id)
                .await?
                .ok_or_else(|| ApiError::not_found("repo"))?;
            let monorepo = monorepos::by_id(conn.h(), &repo.monorepo_id)
                .await?
                .ok_or_else(|| ApiError::not_found("monorepo"))?;
            let row = live_branch(conn.h(), &repo, branch).await?;
            if row.state != "open" {
                return Err(ApiError::conflict(
                    ErrorCode::NotOpen,
                    format!("branch {} is {}, not open", row.name, row.state),
                ));
            }
            let checks = checks_in(
                conn.h(),
                state,
                &monorepo,
                &repo,
                std::slice::from_ref(&row.head),
            )
            .await?
            .pop()
            .ok_or_else(|| ApiError::internal("no checks"))?;
            let user = users::by_id(conn.h(), &by.user_id)
                .await?
                .ok_or_else(|| ApiError::unauthorized("unknown user"))?;
            (repo, row, checks, user)
        };
        let Some(main) = repo.default_head.clone() else {
            return Err(ApiError::conflict(
                ErrorCode::NoMain,
                "the repo has no main to merge into yet",
            ));
        };
        let message = message(
            row.title.as_deref(),
            row.description.as_deref(),
            &row.name,
            agent.as_deref(),
        );
        let gate = if force {
            Ok(())
        } else {
            require_green(checks, "merge")
        };
        let who = (Person::author(&user), Person::service(&state.config));
        let made = make(state, &repo, (main, row.head.clone()), gate, who, message).await?;
        let (main_id, sha) = match made {
            Ok(made) => made,
            Err(merge::Error::NothingToMerge { .. }) => {
                return Err(nothing_to_merge(&row.name));
            }
            Err(merge::Error::Conflicts(paths)) => return Err(conflicts(&row.name, paths)),
            Err(e) => return Err(e.into()),
        };
        let merged_at = now_ms();
        let pending = MergeRow {
            repo_id: repo.id.clone(),
            sha: sha.to_string(),
            branch: row.name.clone(),
            head: row.head.clone(),
            merged_by: by.login.clone(),
            merged_agent: agent.clone(),
            forced: force,
            merged_at,
            done: false,
            change_id: None,
            main_before: None,
        };
        {
            let mut tx = state.store.begin().await?;
            merges::insert(tx.h(), &pending).await?;
            tx.commit().await?;
        }
        crate::crash::point("merge.pending");
        let main_ref = format!("refs/heads/{}", repo.default_branch);
        let moved = state
            .git(&repo, move |git| {
                Ok::<_, merge::Error>(git.update_ref(&main_ref, main_id, sha))
            })
            .await?;
        match moved {
            Ok(()) => {}
            Err(merge::Error::RefMoved(_)) => {
                let mut tx = state.store.begin().await?;
                merges::remove(tx.h(), &repo.id, &pending.sha).await?;
                tx.commit().await?;
                continue;
            }
            Err(e) => return Err(e.into()),
        }
        crate::crash::point("merge.moved");
        let actor = Actor {
            login: Some(by.login.clone()),
            agent: agent.clone(),
        };
        let recorded = record::record(&state.store, &state.config.data_dir, &repo.id, &actor)
            .await
            .map_err(ApiError::internal)?;
        state.facts.after_record(&repo.id, &recorded).await;
        return Ok(MergeResult {
            sha: pending.sha,
            merged_at: time_of(merged_at),
            merged_by: by.login.clone(),
            merged_agent: agent,
            forced: force,
            branch: row.name,
            repo: repo.name,
        });
    }
    Err(ApiError::conflict(
        ErrorCode::MainMoved,
        "main kept moving while merging; try again",
    ))
}

/// Makes the merge commit of a branch's head into main (`ends`, as stored) in one trip
/// to the repository, answering main's commit and the merge's: refused first when main
/// has every commit of the head already (forcing cannot help that), then by `gate` (the
/// checks, decided by the caller), then by conflicts. Moves no ref.
pub(crate) async fn make(
    state: &AppState,
    repo: &RepoRow,
    (main, head): (String, String),
    gate: ApiResult<()>,
    (author, committer): (Person, Person),
    message: String,
) -> ApiResult<Result<(ObjectId, ObjectId), merge::Error>> {
    state
        .git(repo, move |git| {
            let found = |id: &str, what: &str| match git.commit_exists(id) {
                Ok(Some(id)) => Ok(id),
                Ok(None) => Err(merge::Error::NotFound(what.into())),
                Err(e) => Err(e.into()),
            };
            let planned = match found(&main, "main")
                .and_then(|main| Ok((main, found(&head, "head")?)))
                .and_then(|(main, head)| Ok((main, git.plan_merge(main, head)?)))
            {
                Ok(planned) => planned,
                Err(e) => return Ok(Err(e)),
            };
            gate?;
            let (main, planned) = planned;
            Ok::<_, ApiError>(
                planned
                    .commit(&author, &committer, &message)
                    .map(|sha| (main, sha)),
            )
        })
        .await
}

/// The refusal of a branch main has every commit of already.
pub(crate) fn nothing_to_merge(branch: &str) -> ApiError {
    ApiError::conflict(
        ErrorCode::NothingToMerge,
        format!("main has every commit of {branch} already: there is nothing to merge"),
    )
}

/// The refusal of a branch that conflicts with main in `paths`.
pub(crate) fn conflicts(branch: &str, paths: Vec<String>) -> ApiError {
    ApiError::conflict(
        ErrorCode::Conflicts,
        format!(
            "{branch} conflicts with main in {} file(s): {}; merge main into the branch and push",
            paths.len(),
            paths.join(", ")
        ),
    )
    .with_paths(paths)
}

/// The merge commit's message: the branch's title and description.
pub(crate) fn message(
    title: Option<&str>,
    description: Option<&str>,
    branch: &str,
    agent: Option<&str>,
) -> String {
    let mut text = title
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map_or_else(|| format!("Merge branch '{branch}'"), str::to_owned);
    if let Some(d) = description.map(str::trim).filter(|d| !d.is_empty()) {
        text.push_str("\n\n");
        text.push_str(d);
    }
    if let Some(agent) = agent {
        text.push_str("\n\nSvc-Agent: ");
        text.push_str(agent);
    }
    text.push('\n');
    text
}
