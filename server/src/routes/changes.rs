//! getChange and mergeChange: the branches of one name across a monorepo's repos, seen
//! together and landed together (see [`crate::changes`]).

use axum::extract::State;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{Change, ChangeMerge};

use crate::auth::Caller;
use crate::authz::Need;
use crate::changes::{self, MoveError, Part};
use crate::checks::{checks_of, require_green};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path, Query};
use crate::git::merge::{self, Person};
use crate::merging::{ATTEMPTS, MergeQuery, ends, message};
use crate::paths::ChangePath;
use crate::state::AppState;
use crate::store::merges::{self, MergeRow};
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
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/changes/{branch}/merge", operation_id = "mergeChange", tag = "branches",
    params(ChangePath, MergeQuery),
    responses((status = 200, body = ChangeMerge),
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
) -> ApiResult<Json<ChangeMerge>> {
    let force = q.force;
    let mut ids: Vec<String> = {
        let mut conn = state.store.read().await?;
        let (_, found) = path.resolve(conn.h(), &caller, Need::Write, true).await?;
        found.into_iter().map(|(repo, _)| repo.id).collect()
    };
    ids.sort();
    for _ in 0..ATTEMPTS {
        let _locks = state.change_lock(&ids).await?;
        match land(&state, &caller, agent.as_deref(), &path, force, &ids).await? {
            Landing::Landed(answer) => return Ok(Json(answer)),
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
    let author = Person::author(&user);
    let committer = Person::service(&state.config);
    let merged_at = now_ms();
    // The gates and merge commits first: nothing moves until every one is made.
    let mut parts: Vec<Part> = Vec::with_capacity(found.len());
    for (repo, row) in &found {
        let named = |e: ApiError| ApiError {
            message: format!("{}: {}", repo.name, e.message),
            ..e
        };
        let Some(main) = repo.default_head.clone() else {
            return Err(named(ApiError::conflict(
                ErrorCode::NoMain,
                "the repo has no main to merge into yet",
            )));
        };
        let Some((main_id, head_id)) = ends(state, repo, main, row.head.clone())
            .await
            .map_err(named)?
        else {
            return Err(named(ApiError::conflict(
                ErrorCode::NothingToMerge,
                format!(
                    "main has every commit of {} already: there is nothing to merge",
                    row.name
                ),
            )));
        };
        if !force {
            let checks = {
                let mut conn = state.store.read().await?;
                checks_of(
                    conn.h(),
                    state,
                    &access,
                    repo,
                    std::slice::from_ref(&row.head),
                )
                .await?
                .pop()
                .ok_or_else(|| ApiError::internal("no checks"))?
            };
            require_green(checks, "merge the change").map_err(named)?;
        }
        let text = message(
            row.title.as_deref(),
            row.description.as_deref(),
            &row.name,
            agent.as_deref(),
        );
        let (author, committer) = (author.clone(), committer.clone());
        let made = state
            .git(repo, move |git| {
                Ok::<_, merge::Error>(git.merge(main_id, head_id, &author, &committer, &text))
            })
            .await
            .map_err(named)?;
        let sha = match made {
            Ok(sha) => sha,
            Err(merge::Error::Conflicts(paths)) => {
                return Err(named(
                    ApiError::conflict(
                        ErrorCode::Conflicts,
                        format!(
                            "{} conflicts with main in {} file(s): {}; merge main into the branch and push",
                            row.name,
                            paths.len(),
                            paths.join(", ")
                        ),
                    )
                    .with_paths(paths),
                ));
            }
            Err(e) => return Err(named(e.into())),
        };
        parts.push(Part {
            repo: repo.clone(),
            main: main_id,
            sha,
            row: MergeRow {
                repo_id: repo.id.clone(),
                sha: sha.to_string(),
                branch: row.name.clone(),
                head: row.head.clone(),
                merged_by: caller.login.clone(),
                merged_agent: agent.clone(),
                forced: force,
                merged_at,
                done: false,
                change_id: Some(change.clone()),
                main_before: Some(main_id.to_string()),
            },
        });
    }
    {
        let mut tx = state.store.begin().await?;
        for part in &parts {
            merges::insert(tx.h(), &part.row).await?;
        }
        tx.commit().await?;
    }
    crate::crash::point("change.pending");
    match changes::move_mains(state, &parts).await {
        Ok(()) => {}
        Err(refused) => {
            changes::drop_pending(&state.store, &change).await?;
            match refused {
                MoveError::Refused(changes::Refused {
                    error: merge::Error::RefMoved(_),
                    ..
                }) => return Ok(Landing::Again),
                MoveError::Refused(changes::Refused { repo, error }) => {
                    return Err(ApiError::conflict(
                        ErrorCode::MainMoved,
                        format!(
                            "{repo}: main cannot move ({error}); no repo's main moved, try again"
                        ),
                    ));
                }
                MoveError::Api(e) => return Err(e),
            }
        }
    }
    crate::crash::point("change.moved");
    let rows: Vec<_> = parts
        .iter()
        .map(|p| (p.repo.clone(), p.row.clone()))
        .collect();
    let (answer, recorded) = match changes::record(state, &change, &rows).await {
        Ok(done) => done,
        Err(e) => {
            changes::abandon(state, &change, &parts).await;
            return Err(ApiError::internal(e));
        }
    };
    for (repo_id, r) in &recorded {
        state.facts.after_record(repo_id, r).await;
    }
    Ok(Landing::Landed(answer))
}
