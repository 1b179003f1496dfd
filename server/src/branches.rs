//! Branch operations more than one route takes: making a branch off a commit, and
//! stored rows in their REST shape with their checks.

use svc_protocol::ErrorCode;
use svc_protocol::branch::{Branch, Checks, Mergeable, QueueEntry};

use crate::authz::Access;
use crate::checks::checks_of;
use crate::error::{ApiError, ApiResult};
use crate::facts;
use crate::git::merge;
use crate::git::record::{self, Actor, Seed};
use crate::state::AppState;
use crate::store::branches::BranchRow;
use crate::store::repos::RepoRow;
use crate::store::{H, time_of};

/// Makes `seed.branch` at commit `from` and records it (`branch.opened`, with the seed's
/// title and description): 409 `branch_exists` when git has it already.
pub async fn open(
    state: &AppState,
    repo: &RepoRow,
    actor: &Actor,
    seed: Seed,
    from: String,
) -> ApiResult<()> {
    let full = format!("refs/heads/{}", seed.branch);
    let made = state
        .git(repo, move |git| {
            let id = git
                .commit_exists(&from)?
                .ok_or_else(|| merge::Error::NotFound("commit".into()))?;
            Ok::<_, merge::Error>(git.create_ref(&full, id))
        })
        .await?;
    match made {
        Ok(()) => {}
        Err(merge::Error::RefExists(_)) => {
            return Err(ApiError::conflict(
                ErrorCode::BranchExists,
                format!("branch {} already exists", seed.branch),
            ));
        }
        Err(e) => return Err(e.into()),
    }
    let recorded = record::record_with(
        &state.store,
        &state.config.data_dir,
        &repo.id,
        actor,
        Some(&seed),
    )
    .await
    .map_err(ApiError::internal)?;
    state.facts.after_record(&repo.id, &recorded).await;
    Ok(())
}

/// The REST shape of stored rows, with their checks.
pub async fn views(
    mut h: H<'_>,
    state: &AppState,
    access: &Access,
    repo: &RepoRow,
    rows: &[BranchRow],
) -> ApiResult<Vec<Branch>> {
    let mut queued = crate::merge_queue::by_branch(h.reborrow(), repo).await?;
    let shas: Vec<String> = rows.iter().map(|b| b.head.clone()).collect();
    let checks = checks_of(h, state, access, repo, &shas).await?;
    Ok(rows
        .iter()
        .zip(checks)
        .map(|(b, c)| view(repo, b, c, queued.remove(&b.name)))
        .collect())
}

fn view(repo: &RepoRow, b: &BranchRow, checks: Checks, queue: Option<QueueEntry>) -> Branch {
    let stale = b.state == "open" && !facts::fresh(b, repo.default_head.as_deref());
    let computed = b.facts.mergeable.as_deref().and_then(Mergeable::parse);
    let f = &b.facts;
    Branch {
        repo: repo.name.clone(),
        name: b.name.clone(),
        head: b.head.clone(),
        author: b.author.clone(),
        pusher: b.pusher.clone(),
        state: b.state.clone(),
        title: b.title.clone(),
        description: b.description.clone(),
        created_at: time_of(b.created_at),
        pushed_at: time_of(b.pushed_at),
        merged_at: b.merged_at.map(time_of),
        merged_by: b.merged_by.clone(),
        merged_agent: b.merged_agent.clone(),
        merge_sha: b.merge_sha.clone(),
        forced: b.forced,
        ahead: f.ahead.and_then(|n| u32::try_from(n).ok()),
        behind: f.behind.and_then(|n| u32::try_from(n).ok()),
        base: f.base.clone(),
        mergeable: match (stale, computed) {
            (false, Some(m)) => m,
            _ => Mergeable::Pending,
        },
        last_mergeable: computed.filter(|_| stale),
        conflicts: f
            .conflicts
            .as_deref()
            .and_then(|c| serde_json::from_str(c).ok())
            .unwrap_or_default(),
        stale,
        facts_main: f.facts_main.clone(),
        checks,
        auto_merge: crate::auto_merge::view(&b.auto_merge),
        queue,
    }
}
