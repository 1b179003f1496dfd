//! getChange and mergeChange: the branches of one name across a monorepo's repos, seen
//! together and landed together (see [`crate::changes`]).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::future::try_join_all;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{Change, ChangeMerge, ChangeQueued};

use crate::auth::Caller;
use crate::authz::{Access, Need};
use crate::changes::{self, Part};
use crate::checks::{checks_of, merge_queue_on_any, require_green};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path, Query};
use crate::git::merge::{self, Person};
use crate::merging::{ATTEMPTS, MergeQuery, Merger, conflicts, make, message, nothing_to_merge};
use crate::paths::ChangePath;
use crate::state::AppState;
use crate::store::branches::BranchRow;
use crate::store::merges::MergeRow;
use crate::store::repos::RepoRow;
use crate::store::{now_ms, users};

/// The branches of one name in the monorepo's repos (open or merged), each as getBranch
/// answers it: facts, merge state and checks.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/changes/{branch}", operation_id = "getChange", tag = "branches",
    params(ChangePath),
    responses((status = 200, body = Change),
        (status = 404, body = ApiErrorBody, description = "no repo has a branch of that name")))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ChangePath>,
) -> ApiResult<Json<Change>> {
    let mut conn = state.store.read().await?;
    let (access, found) = path.resolve(conn.h(), &caller, Need::Read, false).await?;
    let mut branches = Vec::with_capacity(found.len());
    for (repo, row) in found {
        branches.extend(crate::branches::views(conn.h(), &state, &access, &repo, &[row]).await?);
    }
    Ok(Json(Change {
        branch: path.branch,
        branches,
    }))
}

/// Lands the open branches of one name in every repo that has one, each with a merge
/// commit on its main, all or none: each gate must pass (or `force`); the mains move
/// together, and are recorded in one transaction with the `merged` events (sharing the
/// change id) and a `change.merged` event.
///
/// When one of those repos has a merge queue (`merge_queue = true`), the change joins
/// the queues instead: 202 with its entry in each repo (a repo without a queue gets one
/// too, gated on its branch's head). It lands, every main at once, when each entry is at
/// its queue's front and green; one that leaves takes the others with it. `force=1`
/// lands at once past the gates and the queues.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/changes/{branch}/merge", operation_id = "mergeChange", tag = "branches",
    params(ChangePath, MergeQuery),
    responses((status = 200, body = ChangeMerge),
        (status = 202, body = ChangeQueued, description = "queued: a repo of the change has a merge queue"),
        (status = 404, body = ApiErrorBody, description = "no repo has an open branch of that name"),
        (status = 409, body = ApiErrorBody, description = "conflicts (with `paths`), no_main, nothing_to_merge, unrelated, main_moved; the message names the repo"),
        (status = 412, body = ApiErrorBody, description = "checks_not_green (with `checks`), naming the repo"),
        (status = 503, body = ApiErrorBody, description = "checks_unknown (with `checks`), naming the repo")))]
pub async fn merge(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<ChangePath>,
    Query(q): Query<MergeQuery>,
) -> ApiResult<Response> {
    let force = q.force;
    let (found, queued) = {
        let mut conn = state.store.read().await?;
        let (access, found) = path.resolve(conn.h(), &caller, Need::Write, true).await?;
        let repos: Vec<&RepoRow> = found.iter().map(|(repo, _)| repo).collect();
        let queued =
            !force && merge_queue_on_any(conn.h(), &state, &access.monorepo, &repos).await?;
        (found, queued)
    };
    if queued {
        let by = Merger {
            user_id: caller.user_id.clone(),
            login: caller.login.clone(),
            agent,
        };
        let answer = crate::queued_changes::enqueue(&state, &found, &by).await?;
        return Ok((StatusCode::ACCEPTED, Json(answer)).into_response());
    }
    let mut ids: Vec<String> = found.into_iter().map(|(repo, _)| repo.id).collect();
    ids.sort();
    for _ in 0..ATTEMPTS {
        let _locks = state.change_lock(&ids).await?;
        match land(&state, &caller, agent.as_deref(), &path, force, &ids).await? {
            Landing::Landed(answer) => return Ok(Json(answer).into_response()),
            Landing::Relock(now) => ids = now,
            Landing::Again => {}
        }
    }
    Err(ApiError::conflict(
        ErrorCode::MainMoved,
        "a main kept moving while merging the change; try again",
    ))
}

/// What one try at landing a change under its repos' locks came to.
enum Landing {
    Landed(ChangeMerge),
    /// The repos with an open branch of the name are not those locked (one opened or
    /// closed while waiting): lock these and try again.
    Relock(Vec<String>),
    /// A main moved under the merges (nothing landed): make them again.
    Again,
}

/// One try at landing the change, with the locks of the repos `ids` held.
async fn land(
    state: &AppState,
    caller: &Caller,
    agent: Option<&str>,
    path: &ChangePath,
    force: bool,
    ids: &[String],
) -> ApiResult<Landing> {
    let agent = agent.map(str::to_owned);
    let (access, found, user) = {
        let mut conn = state.store.read().await?;
        let (access, found) = path.resolve(conn.h(), caller, Need::Write, true).await?;
        let user = users::by_id(conn.h(), &caller.user_id)
            .await?
            .ok_or_else(|| ApiError::unauthorized("unknown user"))?;
        (access, found, user)
    };
    let mut found_ids: Vec<String> = found.iter().map(|(r, _)| r.id.clone()).collect();
    found_ids.sort();
    if found_ids != ids {
        return Ok(Landing::Relock(found_ids));
    }
    let mut found = found;
    found.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    let change = crate::token::new_id("ch_");
    let how = How {
        state,
        access: &access,
        author: Person::author(&user),
        committer: Person::service(&state.config),
        by: caller.login.clone(),
        agent,
        force,
        change: change.clone(),
        merged_at: now_ms(),
    };
    // The gates and merge commits first, every repo's at once: nothing moves until every
    // one is made.
    let parts = try_join_all(found.iter().map(|(repo, row)| how.part(repo, row))).await?;
    Ok(match changes::land(state, &change, &parts).await? {
        Some(answer) => Landing::Landed(answer),
        None => Landing::Again,
    })
}

/// What every part of one landing shares.
struct How<'a> {
    state: &'a AppState,
    access: &'a Access,
    author: Person,
    committer: Person,
    by: String,
    agent: Option<String>,
    force: bool,
    change: String,
    merged_at: i64,
}

impl How<'_> {
    /// One repo's part: its gate (unless forced) and its merge commit, made on main
    /// without moving it; refusals name the repo.
    async fn part(&self, repo: &RepoRow, row: &BranchRow) -> ApiResult<Part> {
        let named = |e: ApiError| ApiError {
            message: format!("{}: {}", repo.name, e.message),
            ..e
        };
        let state = self.state;
        let Some(main) = repo.default_head.clone() else {
            return Err(named(ApiError::conflict(
                ErrorCode::NoMain,
                "the repo has no main to merge into yet",
            )));
        };
        let gate = if self.force {
            Ok(())
        } else {
            let checks = {
                let mut conn = state.store.read().await?;
                checks_of(
                    conn.h(),
                    state,
                    self.access,
                    repo,
                    std::slice::from_ref(&row.head),
                )
                .await?
                .pop()
                .ok_or_else(|| ApiError::internal("no checks"))?
            };
            require_green(checks, "merge the change")
        };
        let text = message(
            row.title.as_deref(),
            row.description.as_deref(),
            &row.name,
            self.agent.as_deref(),
        );
        let who = (self.author.clone(), self.committer.clone());
        let made = make(state, repo, (main, row.head.clone()), gate, who, text)
            .await
            .map_err(named)?;
        let (main_id, sha) = match made {
            Ok(made) => made,
            Err(merge::Error::NothingToMerge { .. }) => {
                return Err(named(nothing_to_merge(&row.name)));
            }
            Err(merge::Error::Conflicts(paths)) => return Err(named(conflicts(&row.name, paths))),
            Err(e) => return Err(named(e.into())),
        };
        Ok(Part {
            repo: repo.clone(),
            main: main_id,
            sha,
            row: MergeRow {
                repo_id: repo.id.clone(),
                sha: sha.to_string(),
                branch: row.name.clone(),
                head: row.head.clone(),
                merged_by: self.by.clone(),
                merged_agent: self.agent.clone(),
                forced: self.force,
                merged_at: self.merged_at,
                done: false,
                change_id: Some(self.change.clone()),
                main_before: Some(main_id.to_string()),
            },
        })
    }
}
