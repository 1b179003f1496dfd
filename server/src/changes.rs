//! Changes: the branches of one name in several repos of a monorepo, landed together
//! (mergeChange) or not at all.
//!
//! Landing takes the merge locks of every repo involved (in one fixed order), makes every
//! merge commit first (no ref moves), writes the merges as pending under one change id,
//! then moves each main with compare-and-swap. If a main cannot move, those moved already
//! are put back before anything is recorded. Then one transaction records every repo (its
//! default head, its `merged` event, which carries the change id, and their hook
//! deliveries) and the `change.merged` event.
//!
//! While a change's merge is on main but unrecorded, no other recording records that main
//! (`record::record_change`), so no reader sees part of a change. A crash in that window
//! is settled at start-up ([`recover`]): when every main has its merge the change is
//! recorded whole, else every main still at its merge is put back and the merges dropped.

use std::collections::BTreeMap;

use gix::ObjectId;
use serde_json::json;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{ChangeMerge, MergeResult};

use crate::error::{ApiError, ApiResult};
use crate::git::merge;
use crate::git::record::{self, Actor};
use crate::state::AppState;
use crate::store::merges::{self, MergeRow};
use crate::store::repos::{self, RepoRow};
use crate::store::{self, events, now_ms, time_of};

/// One repo's part of a change: its merge made, main not moved yet.
#[derive(Debug, Clone)]
pub struct Part {
    pub repo: RepoRow,
    /// Main's head the merge was made on.
    pub main: ObjectId,
    /// The merge commit.
    pub sha: ObjectId,
    /// The pending merge row.
    pub row: MergeRow,
}

/// Why a change's mains could not all move: the repo whose main refused, and why.
struct Refused {
    pub repo: String,
    pub error: merge::Error,
}

/// Lands parts whose merges are made: writes them pending under `change`, moves every
/// main (or, when one refuses, none), and records them all in one transaction. None when
/// a main moved under its merge (nothing landed: make the merges again).
pub async fn land(
    state: &AppState,
    change: &str,
    parts: &[Part],
) -> ApiResult<Option<ChangeMerge>> {
    {
        let rows: Vec<MergeRow> = parts.iter().map(|p| p.row.clone()).collect();
        let mut tx = state.store.begin().await?;
        merges::insert_all(tx.h(), &rows).await?;
        tx.commit().await?;
    }
    crate::crash::point("change.pending");
    if let Err(refused) = move_mains(state, parts).await {
        drop_pending(&state.store, change).await?;
        return match refused {
            MoveError::Refused(Refused {
                error: merge::Error::RefMoved(_),
                ..
            }) => Ok(None),
            MoveError::Refused(Refused { repo, error }) => Err(ApiError::conflict(
                ErrorCode::MainMoved,
                format!("{repo}: main cannot move ({error}); no repo's main moved, try again"),
            )),
            MoveError::Api(e) => Err(e),
        };
    }
    crate::crash::point("change.moved");
    let rows: Vec<_> = parts
        .iter()
        .map(|p| (p.repo.clone(), p.row.clone()))
        .collect();
    let (answer, recorded) = match record(state, change, &rows).await {
        Ok(done) => done,
        Err(e) => {
            abandon(state, change, parts).await;
            return Err(ApiError::internal(e));
        }
    };
    state.facts.after_records(&facts_of(&recorded)).await;
    Ok(Some(answer))
}

/// Moves every part's main from its head to its merge in one trip to the repositories:
/// the first alone, then the others side by side (a crash in between leaves some mains
/// moved and the others not, which [`recover`] puts back). When one refuses, the mains
/// that moved are put back (compare-and-swap from the merge) and the first refusal
/// answers; nothing is recorded either way.
async fn move_mains(state: &AppState, parts: &[Part]) -> Result<(), MoveError> {
    let moves: Vec<_> = parts
        .iter()
        .map(|part| {
            let dir = crate::git::storage::repo_dir(&state.config.data_dir, &part.repo.id);
            let main_ref = format!("refs/heads/{}", part.repo.default_branch);
            (dir, main_ref, part.main, part.sha)
        })
        .collect();
    let tried = tokio::task::spawn_blocking(move || {
        let one = |(dir, main_ref, from, to): &(std::path::PathBuf, String, ObjectId, ObjectId)| {
            crate::git::open_repos::open(dir)
                .map_err(ApiError::from)
                .map(|git| git.update_ref(main_ref, *from, *to))
        };
        let Some((first, rest)) = moves.split_first() else {
            return Vec::new();
        };
        let first = one(first);
        if !matches!(first, Ok(Ok(()))) {
            return vec![first];
        }
        // One main moved, the rest not yet, nothing recorded.
        crate::crash::point("change.moving");
        let rest: Vec<_> = std::thread::scope(|s| {
            let moving: Vec<_> = rest.iter().map(|m| s.spawn(move || one(m))).collect();
            moving
                .into_iter()
                .map(|t| {
                    t.join()
                        .unwrap_or_else(|_| Err(ApiError::internal("moving a main panicked")))
                })
                .collect()
        });
        std::iter::once(first).chain(rest).collect()
    })
    .await;
    let tried = match tried {
        Ok(tried) => tried,
        Err(e) => {
            // Which mains moved is not known: put back each one still at its merge.
            put_back(state, &parts.iter().collect::<Vec<_>>()).await;
            return Err(MoveError::Api(ApiError::internal(e)));
        }
    };
    let moved: Vec<&Part> = parts
        .iter()
        .zip(&tried)
        .filter(|(_, t)| matches!(t, Ok(Ok(()))))
        .map(|(part, _)| part)
        .collect();
    if moved.len() == parts.len() {
        return Ok(());
    }
    put_back(state, &moved).await;
    let refused = parts.iter().zip(tried).find_map(|(part, t)| match t {
        Ok(Ok(())) => None,
        Ok(Err(error)) => Some(MoveError::Refused(Refused {
            repo: part.repo.name.clone(),
            error,
        })),
        Err(e) => Some(MoveError::Api(e)),
    });
    Err(refused.unwrap_or_else(|| MoveError::Api(ApiError::internal("a main did not move"))))
}

/// Why the mains did not all move: an API error, or a main that refused to move.
enum MoveError {
    Api(ApiError),
    Refused(Refused),
}

/// Puts every part's main back from its merge to where it was, where it still is at the
/// merge; answers whether each could be.
async fn put_back(state: &AppState, parts: &[&Part]) -> bool {
    let mut all = true;
    for part in parts {
        let main_ref = format!("refs/heads/{}", part.repo.default_branch);
        let (from, to) = (part.sha, part.main);
        let result = state
            .git(&part.repo, move |git| {
                Ok::<_, merge::Error>(git.update_ref(&main_ref, from, to))
            })
            .await;
        if !matches!(result, Ok(Ok(()))) {
            all = false;
            tracing::error!(repo = %part.repo.id, "cannot put main back after a change could not land");
        }
    }
    all
}

/// Puts back the mains of a change that moved but cannot be recorded, and drops its
/// pending merges.
async fn abandon(state: &AppState, change: &str, parts: &[Part]) {
    let all: Vec<&Part> = parts.iter().collect();
    put_back(state, &all).await;
    if let Err(e) = drop_pending(&state.store, change).await {
        tracing::error!(change, error = %e, "cannot drop a change's pending merges");
    }
}

/// Drops a change's pending merges.
pub async fn drop_pending(store: &store::Store, change: &str) -> store::Result<()> {
    let mut tx = store.begin().await?;
    merges::remove_change(tx.h(), change).await?;
    tx.commit().await
}

/// Records a change whose mains all moved, in one transaction: each repo (in the order
/// of `parts`, by repo id) and the `change.merged` event. Answers the change's merges.
pub async fn record(
    state: &AppState,
    change: &str,
    parts: &[(RepoRow, MergeRow)],
) -> Result<(ChangeMerge, Vec<(String, record::Recorded)>), record::Error> {
    let mut answer = ChangeMerge {
        change: change.to_owned(),
        merges: parts
            .iter()
            .map(|(repo, m)| MergeResult {
                sha: m.sha.clone(),
                merged_at: time_of(m.merged_at),
                merged_by: m.merged_by.clone(),
                merged_agent: m.merged_agent.clone(),
                forced: m.forced,
                branch: m.branch.clone(),
                repo: repo.name.clone(),
            })
            .collect(),
    };
    answer.merges.sort_by(|a, b| a.repo.cmp(&b.repo));
    let Some((first, m)) = parts.first() else {
        return Ok((answer, Vec::new()));
    };
    let also = parts
        .iter()
        .map(|(r, _)| r.name.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let body = json!({
        "row": answer,
        "branch": m.branch,
        "actor": m.merged_by,
        "agent": m.merged_agent,
    });
    let last = events::NewEvent {
        monorepo_id: &first.monorepo_id,
        kind: "change.merged",
        repo: None,
        also_repos: Some(&also),
        collection: "changes",
        key: change,
        op: "upsert",
        body: body.to_string(),
        at: now_ms(),
    };
    let repos: Vec<(&str, Actor)> = parts
        .iter()
        .map(|(repo, m)| {
            let actor = Actor {
                login: Some(m.merged_by.clone()),
                agent: m.merged_agent.clone(),
            };
            (repo.id.as_str(), actor)
        })
        .collect();
    let mut tx = state.store.begin().await?;
    let recorded =
        record::record_change(&mut tx, &state.config.data_dir, &repos, change, last).await?;
    tx.commit().await?;
    let recorded = parts.iter().map(|(r, _)| r.id.clone()).zip(recorded);
    Ok((answer, recorded.collect()))
}

/// Each repo's recording, as the facts worker takes them.
fn facts_of(recorded: &[(String, record::Recorded)]) -> Vec<(&str, &record::Recorded)> {
    recorded.iter().map(|(id, r)| (id.as_str(), r)).collect()
}

/// At start-up: settles every change a crash left between its ref moves and their
/// recording. A change whose mains all have their merges is recorded whole; any other
/// has every main still at its merge put back and its merges dropped.
pub async fn recover(state: &AppState) {
    let rows = match state.store.read().await {
        Ok(mut conn) => merges::pending_changes(conn.h()).await,
        Err(e) => Err(e),
    };
    let rows = match rows {
        Ok(rows) => rows,
        Err(e) => {
            tracing::error!(error = %e, "cannot list the changes left unrecorded");
            return;
        }
    };
    let mut changes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for m in rows {
        if let Some(id) = m.change_id {
            changes.entry(id).or_default().push(m.repo_id);
        }
    }
    for (change, repo_ids) in changes {
        match recover_one(state, &change, &repo_ids).await {
            Ok(Some(landed)) => {
                tracing::warn!(change, landed, "settled a change a crash left unrecorded")
            }
            Ok(None) => {}
            Err(e) => tracing::error!(change, error = %e, "cannot settle a change"),
        }
    }
}

/// Settles one change under its repos' locks (a change still landing on another server
/// holds them, and has settled itself once they are free): whether it landed, or None
/// when there was nothing left to settle.
async fn recover_one(
    state: &AppState,
    change: &str,
    repo_ids: &[String],
) -> Result<Option<bool>, String> {
    let _locks = state
        .change_lock(repo_ids)
        .await
        .map_err(|e| e.message.clone())?;
    let mut parts = Vec::new();
    {
        let mut conn = state.store.read().await.map_err(|e| e.to_string())?;
        let rows = merges::pending_of_change(conn.h(), change)
            .await
            .map_err(|e| e.to_string())?;
        for m in rows {
            let Some(repo) = repos::by_id(conn.h(), &m.repo_id)
                .await
                .map_err(|e| e.to_string())?
            else {
                continue;
            };
            parts.push((repo, m));
        }
    }
    if parts.is_empty() {
        return Ok(None);
    }
    let mut at_merge = Vec::new();
    let mut all_landed = true;
    for (repo, m) in &parts {
        let dir = crate::git::storage::repo_dir(&state.config.data_dir, &repo.id);
        let heads = record::branch_heads(&dir)
            .await
            .map_err(|e| e.to_string())?;
        let main = heads.get(&repo.default_branch);
        let landed = match main {
            Some(head) if *head == m.sha => {
                at_merge.push((repo, m));
                true
            }
            Some(head) => record::is_ancestor(&dir, &m.sha, head)
                .await
                .map_err(|e| e.to_string())?,
            None => false,
        };
        all_landed &= landed;
    }
    if all_landed {
        let (_, recorded) = record(state, change, &parts)
            .await
            .map_err(|e| e.to_string())?;
        state.facts.after_records(&facts_of(&recorded)).await;
        return Ok(Some(true));
    }
    let mut back = Vec::new();
    for (repo, m) in at_merge {
        let (Some(main), Ok(sha)) = (
            m.main_before
                .as_deref()
                .and_then(|s| ObjectId::from_hex(s.as_bytes()).ok()),
            ObjectId::from_hex(m.sha.as_bytes()),
        ) else {
            continue;
        };
        back.push(Part {
            repo: repo.clone(),
            main,
            sha,
            row: m.clone(),
        });
    }
    let back: Vec<&Part> = back.iter().collect();
    if !put_back(state, &back).await {
        return Err("a main could not be put back".into());
    }
    drop_pending(&state.store, change)
        .await
        .map_err(|e| e.to_string())?;
    Ok(Some(false))
}
