//! A change through the merge queues: mergeChange on a monorepo whose repos (any of
//! those the change touches) have a merge queue puts the change's branch in each repo's
//! queue, one entry per repo sharing the change id. A repo without a queue of its own
//! gets the entry too, gated as its merges are (on the branch's head): the change is
//! still one landing.
//!
//! Each repo's queue worker (`merge_queue`) makes and tests its entry like any other,
//! but does not land it: once an entry of a change is at its queue's front and green it
//! pokes this worker, which takes every repo's merge lock (in one fixed order) and lands
//! the change when each entry is at its front, built on its main as it is now, and green:
//! every main moves to exactly its tested commit, all or none, recorded in one
//! transaction with the `merged` events and `change.merged` (`changes::land`). An entry
//! that leaves takes the others of its change with it (`change_left`).

use std::time::Duration;

use gix::ObjectId;
use svc_protocol::branch::{ChangeQueued, ChecksState};

use crate::changes::{self, Part};
use crate::checks::{checks_in, merge_queue_on};
use crate::error::{ApiError, ApiResult};
use crate::git::record;
use crate::git::storage;
use crate::merge_queue::{event, new_entry, position, view};
use crate::merging::Merger;
use crate::state::AppState;
use crate::store::branches::{self, BranchRow};
use crate::store::merges::MergeRow;
use crate::store::queue::{self, QueueRow};
use crate::store::repos::{self, RepoRow};
use crate::store::{monorepos, now_ms};

/// Puts the open branches `parts` (one per repo, of one name) in their repos' queues as
/// one change, in one transaction, as `by` (authorized by the caller). A branch already in
/// its queue keeps its place and joins the change; a change asked again answers its
/// entries as they are.
pub async fn enqueue(
    state: &AppState,
    parts: &[(RepoRow, BranchRow)],
    by: &Merger,
) -> ApiResult<ChangeQueued> {
    let mut parts: Vec<&(RepoRow, BranchRow)> = parts.iter().collect();
    parts.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let mut there = Vec::with_capacity(parts.len());
    for (repo, b) in &parts {
        // One join at a time per repo (in the order of their ids, as every change takes).
        repos::lock(tx.h(), &repo.id).await?;
        there.push(queue::active_of(tx.h(), &repo.id, &b.name).await?);
    }
    let change = there
        .iter()
        .flatten()
        .find_map(|e| e.change_id.clone())
        .unwrap_or_else(|| crate::token::new_id("ch_"));
    let mut entries = Vec::with_capacity(parts.len());
    for ((repo, b), was) in parts.iter().zip(there) {
        let (row, new) = match was {
            Some(e) if e.change_id.as_deref() == Some(change.as_str()) => (e, false),
            Some(e) => {
                queue::set_change(tx.h(), &e.id, &change).await?;
                let row = QueueRow {
                    change_id: Some(change.clone()),
                    ..e
                };
                (row, true)
            }
            None => {
                let row = new_entry(state, repo, b, by, Some(change.clone()), now);
                (queue::insert(tx.h(), &row).await?, true)
            }
        };
        let all = queue::active(tx.h(), &repo.id).await?;
        let entry = view(&repo.name, &row, position(&all, &row.id));
        if new {
            let ev = event("queue.entered", repo, &entry, None);
            record::append(tx.h(), repo, &[ev], now).await?;
        }
        entries.push(entry);
    }
    tx.commit().await?;
    for (repo, _) in &parts {
        state.merge_queue.poke(&repo.id);
    }
    entries.sort_by(|a, b| a.repo.cmp(&b.repo));
    Ok(ChangeQueued { change, entries })
}

/// The worker that lands changes whose entries are ready; its sweep finds every change
/// with entries in a queue (another server's, or one whose poke was lost to a crash).
pub struct Worker;

impl crate::pokes::Worker for Worker {
    const WHAT: &'static str = "a change through the merge queues";
    const SWEEP_EVERY: Duration = crate::merge_queue::SWEEP_EVERY;

    fn pokes(state: &AppState) -> &crate::pokes::Pokes {
        &state.queued_changes
    }

    fn look(state: &AppState, change: &str) -> impl Future<Output = ApiResult<()>> + Send {
        land(state, change)
    }

    async fn due(state: &AppState) -> ApiResult<Vec<String>> {
        let mut conn = state.store.read().await?;
        Ok(queue::changes_with_entries(conn.h()).await?)
    }
}

/// Lands change `change` when every entry of it is ready; else leaves it to the queues.
async fn land(state: &AppState, change: &str) -> ApiResult<()> {
    // Looked at without the locks first: most looks (the sweep's) find it waiting.
    let Some(ids) = ready_repos(state, change).await? else {
        return Ok(());
    };
    let _locks = state.change_lock(&ids).await?;
    let entries = {
        let mut conn = state.store.read().await?;
        queue::of_change(conn.h(), change).await?
    };
    if repo_ids(&entries) != ids {
        // An entry left meanwhile: the queues go on without the change.
        return Ok(());
    }
    let mut parts = Vec::with_capacity(entries.len());
    for e in &entries {
        let Some(part) = ready(state, e).await? else {
            return Ok(());
        };
        parts.push(part);
    }
    let landed = changes::land(state, change, &parts).await?;
    // The entries behind move on (or, when a main moved under the change, every entry is
    // made again on it).
    ids.iter().for_each(|r| state.merge_queue.poke(r));
    if landed.is_some() {
        tracing::info!(
            change,
            repos = ids.len(),
            "landed a change from the merge queues"
        );
    }
    Ok(())
}

/// The repos of the change's entries when every one is ready to land (None: not yet).
async fn ready_repos(state: &AppState, change: &str) -> ApiResult<Option<Vec<String>>> {
    let entries = {
        let mut conn = state.store.read().await?;
        queue::of_change(conn.h(), change).await?
    };
    if entries.is_empty() {
        return Ok(None);
    }
    for e in &entries {
        if ready(state, e).await?.is_none() {
            return Ok(None);
        }
    }
    Ok(Some(repo_ids(&entries)))
}

fn repo_ids(entries: &[QueueRow]) -> Vec<String> {
    let mut ids: Vec<String> = entries.iter().map(|e| e.repo_id.clone()).collect();
    ids.sort();
    ids.dedup();
    ids
}

/// `e`'s part of its change when it is ready to land: at its queue's front, built on its
/// main as git has it (and as recorded), its branch still at the head tested, its gate
/// green. The merge row is the tested commit.
async fn ready(state: &AppState, e: &QueueRow) -> ApiResult<Option<Part>> {
    let (Some(spec), Some(base)) = (&e.speculative_sha, &e.base_sha) else {
        return Ok(None);
    };
    let (repo, checks) = {
        let mut conn = state.store.read().await?;
        let front = queue::active(conn.h(), &e.repo_id).await?;
        if front.first().map(|f| f.id.as_str()) != Some(e.id.as_str()) {
            return Ok(None);
        }
        let Some(repo) = repos::by_id(conn.h(), &e.repo_id).await? else {
            return Ok(None);
        };
        if repo.default_head.as_deref() != Some(base.as_str()) {
            return Ok(None);
        }
        let b = branches::get(conn.h(), &repo.id, &e.branch).await?;
        if !b.is_some_and(|b| b.state == "open" && b.head == e.head) {
            return Ok(None);
        }
        let Some(monorepo) = monorepos::by_id(conn.h(), &repo.monorepo_id).await? else {
            return Ok(None);
        };
        let gate = if merge_queue_on(conn.h(), state, &monorepo, &repo).await? {
            spec.clone()
        } else {
            e.head.clone()
        };
        let checks = checks_in(conn.h(), state, &monorepo, &repo, &[gate]).await?;
        (repo, checks)
    };
    if !checks
        .first()
        .is_some_and(|c| c.state == ChecksState::Success)
    {
        return Ok(None);
    }
    let dir = storage::repo_dir(&state.config.data_dir, &repo.id);
    let heads = record::branch_heads(&dir)
        .await
        .map_err(ApiError::internal)?;
    if heads.get(&repo.default_branch) != Some(base) {
        return Ok(None);
    }
    let (Ok(main), Ok(sha)) = (
        ObjectId::from_hex(base.as_bytes()),
        ObjectId::from_hex(spec.as_bytes()),
    ) else {
        return Err(ApiError::internal("a queue entry's commits are not shas"));
    };
    let row = MergeRow {
        repo_id: repo.id.clone(),
        sha: spec.clone(),
        branch: e.branch.clone(),
        head: e.head.clone(),
        merged_by: e.enqueued_by.clone(),
        merged_agent: e.enqueued_agent.clone(),
        forced: false,
        merged_at: now_ms(),
        done: false,
        change_id: e.change_id.clone(),
        main_before: Some(base.clone()),
    };
    Ok(Some(Part {
        repo,
        main,
        sha,
        row,
    }))
}
