//! Auto-merge: a branch armed by a member merges itself, as them, once its gate passes.
//!
//! A repo is looked at when a status is posted in it, when facts are stored for one of
//! its armed branches, when a branch is armed, and by a sweep every few seconds (which
//! also finds what another server's requests armed or posted). Merges take the repo's
//! merge lock, so they stay one at a time per repo across servers, and the branch is read
//! again under it: a branch merged or disarmed meanwhile is left alone.
//!
//! A branch is disarmed, with an `auto_merge.disabled` event giving the reason, when
//! someone other than its armer pushes to it (`pushed_by_other`, in the push's
//! recording), when its merge is refused (`merge_refused:<code>`: conflicts,
//! `checks_unknown`, nothing to merge...), when its armer can no longer merge in the
//! monorepo (`access_lost`), or by hand (`by_hand`). On a repo with a merge queue a
//! passing gate does not merge: the branch joins the queue as its armer, and the arming
//! ends with `joined_queue` (the queue's own events follow the entry). Merging or deleting the branch
//! clears it without an event (the `merged` or `branch.deleted` event says it).

use std::time::Duration;

use serde_json::json;
use svc_protocol::ErrorCode;
use svc_protocol::branch::ChecksState;

use crate::authz::role_of;
use crate::checks::{checks_in, merge_queue_on};
use crate::error::{ApiError, ApiResult};
use crate::git::record::{self, Actor, Pending};
use crate::merging::{Merger, land};
use crate::state::AppState;
use crate::store::branches::{self, AutoMerge, BranchRow};
use crate::store::monorepos::{self, MonorepoRow};
use crate::store::repos::{self, RepoRow};
use crate::store::{now_ms, time_of, users};

/// How often every repo with an armed branch is looked at, whatever pokes it.
pub const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// Why a branch was disarmed, as its `auto_merge.disabled` event's `reason` says.
pub const PUSHED_BY_OTHER: &str = "pushed_by_other";
pub const BY_HAND: &str = "by_hand";
pub const ACCESS_LOST: &str = "access_lost";
/// The gate passed on a repo with a merge queue: the branch joined the queue.
pub const JOINED_QUEUE: &str = "joined_queue";

/// The reason of a disarming by a refused merge: `merge_refused:<error code>`.
pub fn refused(code: ErrorCode) -> String {
    format!("merge_refused:{}", code.as_str())
}

/// The auto-merge worker: a look merges a repo's armed branches whose gate passed; the
/// sweep finds every repo with an armed branch.
pub struct Worker;

impl crate::pokes::Worker for Worker {
    const WHAT: &'static str = "auto-merge";
    const SWEEP_EVERY: Duration = SWEEP_EVERY;

    fn pokes(state: &AppState) -> &crate::pokes::Pokes {
        &state.auto_merge
    }

    fn look(state: &AppState, repo_id: &str) -> impl Future<Output = ApiResult<()>> + Send {
        look_at(state, repo_id)
    }

    async fn due(state: &AppState) -> ApiResult<Vec<String>> {
        let mut conn = state.store.read().await?;
        Ok(branches::repos_with_armed(conn.h()).await?)
    }
}

/// Merges the repo's armed branches whose gate passes; disarms those whose required
/// checks cannot be read (their merge would be refused).
async fn look_at(state: &AppState, repo_id: &str) -> ApiResult<()> {
    let (repo, monorepo, armed, checks) = {
        let mut conn = state.store.read().await?;
        let armed = branches::armed(conn.h(), repo_id).await?;
        if armed.is_empty() {
            return Ok(());
        }
        let Some(repo) = repos::by_id(conn.h(), repo_id).await? else {
            return Ok(());
        };
        let Some(monorepo) = monorepos::by_id(conn.h(), &repo.monorepo_id).await? else {
            return Ok(());
        };
        let heads: Vec<String> = armed.iter().map(|b| b.head.clone()).collect();
        let checks = checks_in(conn.h(), state, &monorepo, &repo, &heads).await?;
        (repo, monorepo, armed, checks)
    };
    for (b, c) in armed.into_iter().zip(checks) {
        match c.state {
            ChecksState::Success => merge_one(state, &repo, &monorepo, b).await?,
            ChecksState::Unknown => {
                disarm(state, &repo, &b, &refused(ErrorCode::ChecksUnknown), None).await?;
            }
            // Pending, missing or red: the next status pokes the repo again.
            _ => {}
        }
    }
    Ok(())
}

/// Merges one armed branch whose gate passed, as its armer.
async fn merge_one(
    state: &AppState,
    repo: &RepoRow,
    monorepo: &MonorepoRow,
    b: BranchRow,
) -> ApiResult<()> {
    let (Some(user_id), Some(login)) = (
        b.auto_merge.auto_merge_user.clone(),
        b.auto_merge.auto_merge_by.clone(),
    ) else {
        return Ok(());
    };
    let may = {
        let mut conn = state.store.read().await?;
        let user = users::by_id(conn.h(), &user_id).await?;
        user.is_some_and(|u| u.disabled_at.is_none())
            && role_of(conn.h(), &monorepo.id, &user_id).await?.is_some()
    };
    if !may {
        return disarm(state, repo, &b, ACCESS_LOST, None).await;
    }
    let lock = state.merge_lock(&repo.id).await?;
    // Under the lock: still open, at the head judged, and armed by the same arming.
    let now = {
        let mut conn = state.store.read().await?;
        branches::get(conn.h(), &repo.id, &b.name).await?
    };
    let Some(now) = now.filter(|n| n.state == "open" && n.auto_merge == b.auto_merge) else {
        return Ok(());
    };
    if now.head != b.head {
        // Pushed since (by the armer): judged again at its new head.
        state.auto_merge.poke(&repo.id);
        return Ok(());
    }
    let by = Merger {
        user_id,
        login,
        agent: b.auto_merge.auto_merge_agent.clone(),
    };
    let queued = {
        let mut conn = state.store.read().await?;
        merge_queue_on(conn.h(), state, monorepo, repo).await?
    };
    if queued {
        // A repo with a merge queue: the branch joins it as its armer, and the arming is
        // spent (the entry's own events follow it from here).
        drop(lock);
        let entry = crate::merge_queue::enqueue(state, repo, &now, &by).await?;
        tracing::info!(repo = %repo.id, branch = %b.name, entry = %entry.id, by = %by.login, "auto-merge joined the merge queue");
        return disarm(state, repo, &b, JOINED_QUEUE, None).await;
    }
    let landed = land(state, &repo.id, &b.name, &by, false).await;
    drop(lock);
    match landed {
        Ok(m) => {
            tracing::info!(repo = %repo.id, branch = %b.name, sha = %m.sha, by = %m.merged_by, "auto-merged");
            Ok(())
        }
        Err(e) => match e.code {
            // The gate or main moved under it: the next status or main move pokes again.
            ErrorCode::ChecksNotGreen | ErrorCode::MainMoved => Ok(()),
            // Merged or deleted meanwhile: nothing is armed any more.
            ErrorCode::NotOpen | ErrorCode::NotFound => Ok(()),
            code if e.status.is_client_error() || code == ErrorCode::ChecksUnknown => {
                disarm(state, repo, &b, &refused(code), None).await
            }
            _ => Err(e),
        },
    }
}

/// Disarms `b` with its `auto_merge.disabled` event, unless it was disarmed already.
pub async fn disarm(
    state: &AppState,
    repo: &RepoRow,
    b: &BranchRow,
    reason: &str,
    actor: Option<&Actor>,
) -> ApiResult<()> {
    let mut tx = state.store.begin().await?;
    if branches::disarm(tx.h(), &repo.id, &b.name).await? {
        let ev = disabled_event(repo, b, reason, actor);
        record::append(tx.h(), repo, &[ev], now_ms()).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Arms `b` for `by` and writes `auto_merge.enabled`, in the caller's transaction; an
/// arming by the same person and agent is kept as it was (no event). Answers the arming
/// now stored; 409 `not_open` for a branch that is not open.
pub async fn arm(
    tx: &mut crate::store::Tx,
    repo: &RepoRow,
    b: &BranchRow,
    by: &Merger,
) -> ApiResult<AutoMerge> {
    let same = b.auto_merge.auto_merge_by.as_deref() == Some(by.login.as_str())
        && b.auto_merge.auto_merge_agent == by.agent;
    if same {
        return Ok(b.auto_merge.clone());
    }
    let armed = AutoMerge {
        auto_merge_user: Some(by.user_id.clone()),
        auto_merge_by: Some(by.login.clone()),
        auto_merge_agent: by.agent.clone(),
        auto_merge_at: Some(now_ms()),
    };
    if !branches::arm(tx.h(), &repo.id, &b.name, &armed).await? {
        return Err(not_open(b));
    }
    let actor = Actor {
        login: Some(by.login.clone()),
        agent: by.agent.clone(),
    };
    let ev = event("auto_merge.enabled", repo, b, None, Some(&actor));
    record::append(tx.h(), repo, &[ev], now_ms()).await?;
    Ok(armed)
}

/// 409 `not_open`: only an open branch is armed.
pub fn not_open(b: &BranchRow) -> ApiError {
    ApiError::conflict(
        ErrorCode::NotOpen,
        format!("branch {} is {}, not open", b.name, b.state),
    )
}

/// `auto_merge.disabled` for `b`, with its reason and who caused it (none: the server).
pub fn disabled_event(
    repo: &RepoRow,
    b: &BranchRow,
    reason: &str,
    actor: Option<&Actor>,
) -> Pending {
    event("auto_merge.disabled", repo, b, Some(reason), actor)
}

fn event(
    kind: &'static str,
    repo: &RepoRow,
    b: &BranchRow,
    reason: Option<&str>,
    actor: Option<&Actor>,
) -> Pending {
    let mut body = json!({
        "row": record::branch_row(&repo.name, b),
        "partial": true,
        "actor": actor.and_then(|a| a.login.clone()),
        "agent": actor.and_then(|a| a.agent.clone()),
    });
    if let Some(reason) = reason {
        body["reason"] = json!(reason);
    }
    (
        kind,
        "branches",
        format!("{}/{}", repo.name, b.name),
        "upsert",
        body,
    )
}

/// The stored arming in its REST shape (none: not armed).
pub fn view(a: &AutoMerge) -> Option<svc_protocol::branch::AutoMerge> {
    Some(svc_protocol::branch::AutoMerge {
        armed_by: a.auto_merge_by.clone()?,
        armed_agent: a.auto_merge_agent.clone(),
        armed_at: time_of(a.auto_merge_at.unwrap_or_default()),
    })
}

/// Whether a push by `pusher` ends the arming of `old`: it was armed by someone else.
pub fn ended_by_push(old: &BranchRow, pusher: Option<&str>) -> bool {
    match (old.auto_merge.auto_merge_by.as_deref(), pusher) {
        (Some(armer), Some(pusher)) => armer != pusher,
        _ => false,
    }
}
