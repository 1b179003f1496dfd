//! The merge queue: with `merge_queue = true` for a repo in `.svc/svc.toml`, mergeBranch
//! puts the branch in the repo's queue instead of landing it, and this worker lands it.
//!
//! For each entry, in order, the worker makes a speculative merge commit of the entry's
//! branch onto main (the front) or onto the speculative commit of the entry ahead, so
//! every entry is tested with what lands before it, all at once (side by side). It
//! points `refs/svc/queue/<entry>` at it (fetchable through the git door) and announces
//! it with a `merge_group` event, whose hook deliveries start CI builds of that commit.
//! The gate is the required checks on the speculative commit. When the front's pass,
//! main moves with compare-and-swap to exactly that commit (no merge after testing) and
//! the recording of that move marks the branch merged and the entry landed, with their
//! events, in one transaction. An entry whose checks fail, whose merge conflicts or that
//! waits past the configured time leaves (`queue.left`, with its reason); the entries
//! behind it were made on its commit, so they are made again without it.
//!
//! The worker looks at a repo when an entry joins or leaves, when a status is posted in
//! it, and in a sweep every few seconds; it works under the repo's merge lock, so one
//! server at a time moves a repo's main. A crash anywhere leaves nothing to undo: the
//! merge row is written before main moves, and the start-up recording (or the worker's
//! next look, which records a main moved but unrecorded before anything else) lands the
//! entry; a speculative commit not yet recorded is simply made again.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use gix::ObjectId;
use serde_json::json;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{ChecksState, QueueEntry};

use crate::checks::{checks_in, merge_queue_on};
use crate::error::{ApiError, ApiResult};
use crate::git::merge::{self, Person};
use crate::git::record::{self, Actor, Pending};
use crate::git::storage;
use crate::merging::{self, Merger};
use crate::state::AppState;
use crate::store::branches::{self, BranchRow};
use crate::store::merges::{self, MergeRow};
use crate::store::queue::{self, QueueRow};
use crate::store::repos::{self, RepoRow};
use crate::store::{monorepos, now_ms, time_of, users};

/// How often every repo with a queue is looked at, whatever pokes it: entries time out,
/// and another server's requests are found.
pub const SWEEP_EVERY: Duration = Duration::from_secs(2);

/// Where an entry's speculative commit is kept while it is in the queue.
pub const REF_PREFIX: &str = "refs/svc/queue/";

/// Why an entry left, as its `reason` and its `queue.left` event say.
pub const CHECKS_FAILED: &str = "checks_failed";
pub const CHECKS_UNKNOWN: &str = "checks_unknown";
pub const CONFLICT: &str = "conflict";
pub const TIMEOUT: &str = "timeout";
pub const BY_HAND: &str = "by_hand";
pub const NOT_OPEN: &str = "not_open";
pub const NOTHING_TO_MERGE: &str = "nothing_to_merge";
pub const ACCESS_LOST: &str = "access_lost";
/// Another repo's entry of the same change left: a change lands whole or not at all.
pub const CHANGE_LEFT: &str = "change_left";

/// Entries out of the queue that listQueue shows after those in it.
const ENDED_LISTED: i64 = 20;

/// Steps of one look at a repo (each lands, builds or removes something) before the
/// next poke or sweep goes on.
const STEPS: usize = 64;

/// The ref of an entry's speculative commit.
pub fn ref_of(id: &str) -> String {
    format!("{REF_PREFIX}{id}")
}

/// Puts the open branch `b` in the repo's queue as `by` (answered as it is when it is in
/// it already); `queue.entered` follows. The caller has authorized `by`.
pub async fn enqueue(
    state: &AppState,
    repo: &RepoRow,
    b: &BranchRow,
    by: &Merger,
) -> ApiResult<QueueEntry> {
    if b.state != "open" {
        return Err(ApiError::conflict(
            ErrorCode::NotOpen,
            format!("branch {} is {}, not open", b.name, b.state),
        ));
    }
    let mut tx = state.store.begin().await?;
    // One join at a time per repo: each gets its own place, a branch joins once.
    repos::lock(tx.h(), &repo.id).await?;
    if let Some(e) = queue::active_of(tx.h(), &repo.id, &b.name).await? {
        let ahead = queue::active(tx.h(), &repo.id).await?;
        tx.commit().await?;
        return Ok(view(&repo.name, &e, position(&ahead, &e.id)));
    }
    let now = now_ms();
    let row = new_entry(state, repo, b, by, None, now);
    let row = queue::insert(tx.h(), &row).await?;
    let all = queue::active(tx.h(), &repo.id).await?;
    let entry = view(&repo.name, &row, position(&all, &row.id));
    let ev = event("queue.entered", repo, &entry, None);
    record::append(tx.h(), repo, &[ev], now).await?;
    tx.commit().await?;
    state.merge_queue.poke(&repo.id);
    Ok(entry)
}

/// A new entry of the open branch `b` by `by`, to be inserted at the back of the queue.
pub(crate) fn new_entry(
    state: &AppState,
    repo: &RepoRow,
    b: &BranchRow,
    by: &Merger,
    change: Option<String>,
    now: i64,
) -> QueueRow {
    let timeout = i64::try_from(state.config.merge_queue.timeout_secs.saturating_mul(1000))
        .unwrap_or(i64::MAX);
    QueueRow {
        id: crate::token::new_id("q_"),
        repo_id: repo.id.clone(),
        branch: b.name.clone(),
        seq: 0,
        state: "queued".into(),
        reason: None,
        head: b.head.clone(),
        speculative_sha: None,
        base_sha: None,
        enqueued_user: by.user_id.clone(),
        enqueued_by: by.login.clone(),
        enqueued_agent: by.agent.clone(),
        created_at: now,
        deadline: now.saturating_add(timeout),
        ended_at: None,
        change_id: change,
    }
}

/// Takes the branch's entry out of the repo's queue by hand (`by_hand`), under the
/// repo's merge lock so it never leaves while its commit lands; a branch not in the
/// queue stays as it is.
pub async fn leave_by_hand(
    state: &AppState,
    repo: &RepoRow,
    branch: &str,
    actor: &Actor,
) -> ApiResult<()> {
    let lock = state.merge_lock(&repo.id).await?;
    let e = {
        let mut conn = state.store.read().await?;
        queue::active_of(conn.h(), &repo.id, branch).await?
    };
    let Some(e) = e else {
        return Ok(());
    };
    leave(state, repo, &e, BY_HAND, Some(actor)).await?;
    drop(lock);
    // The entries behind it are made again without it.
    state.merge_queue.poke(&repo.id);
    Ok(())
}

/// The repo's queue: the entries in it, front first, then the latest out of it.
pub async fn list(state: &AppState, repo: &RepoRow) -> ApiResult<Vec<QueueEntry>> {
    let mut conn = state.store.read().await?;
    let rows = queue::list(conn.h(), &repo.id, ENDED_LISTED).await?;
    let active: Vec<QueueRow> = rows
        .iter()
        .filter(|r| queue::is_active(&r.state))
        .cloned()
        .collect();
    Ok(rows
        .iter()
        .map(|r| view(&repo.name, r, position(&active, &r.id)))
        .collect())
}

/// The entries in the repo's queue by branch, for branch views.
pub async fn by_branch(
    h: crate::store::H<'_>,
    repo: &RepoRow,
) -> crate::store::Result<HashMap<String, QueueEntry>> {
    let active = queue::active(h, &repo.id).await?;
    Ok(active
        .iter()
        .map(|e| {
            (
                e.branch.clone(),
                view(&repo.name, e, position(&active, &e.id)),
            )
        })
        .collect())
}

/// 1-based place of `id` among the entries in the queue.
pub(crate) fn position(active: &[QueueRow], id: &str) -> Option<i64> {
    let at = active.iter().position(|r| r.id == id)?;
    i64::try_from(at + 1).ok()
}

/// An entry in its REST shape.
pub fn view(repo: &str, r: &QueueRow, position: Option<i64>) -> QueueEntry {
    QueueEntry {
        id: r.id.clone(),
        repo: repo.to_owned(),
        branch: r.branch.clone(),
        position,
        state: r.state.clone(),
        reason: r.reason.clone(),
        head: r.head.clone(),
        speculative_sha: r.speculative_sha.clone(),
        base_sha: r.base_sha.clone(),
        git_ref: ref_of(&r.id),
        enqueued_by: r.enqueued_by.clone(),
        enqueued_agent: r.enqueued_agent.clone(),
        created_at: time_of(r.created_at),
        deadline: time_of(r.deadline),
        ended_at: r.ended_at.map(time_of),
        change: r.change_id.clone(),
    }
}

/// A queue event: `queue.entered`, `merge_group` (a speculative commit made: `before` its
/// base, `head` the commit) or `queue.left` (with `reason`).
pub(crate) fn event(
    kind: &'static str,
    repo: &RepoRow,
    e: &QueueEntry,
    actor: Option<&Actor>,
) -> Pending {
    let mut body = json!({
        "row": e,
        "actor": actor.map_or(Some(e.enqueued_by.clone()), |a| a.login.clone()),
        "agent": actor.map_or(e.enqueued_agent.clone(), |a| a.agent.clone()),
    });
    if kind == "merge_group" {
        body["before"] = json!(e.base_sha);
        body["head"] = json!(e.speculative_sha);
    }
    if let Some(reason) = &e.reason {
        body["reason"] = json!(reason);
    }
    (
        kind,
        "queue",
        format!("{}/{}", repo.name, e.id),
        "upsert",
        body,
    )
}

/// The merge queue's worker: a look moves a repo's queue on; the sweep finds every repo
/// with entries (they time out, and another server's requests are found).
pub struct Worker;

impl crate::pokes::Worker for Worker {
    const WHAT: &'static str = "the merge queue";
    const SWEEP_EVERY: Duration = SWEEP_EVERY;

    fn pokes(state: &AppState) -> &crate::pokes::Pokes {
        &state.merge_queue
    }

    fn look(state: &AppState, repo_id: &str) -> impl Future<Output = ApiResult<()>> + Send {
        look_at(state, repo_id)
    }

    async fn due(state: &AppState) -> ApiResult<Vec<String>> {
        let mut conn = state.store.read().await?;
        Ok(queue::repos_with_entries(conn.h()).await?)
    }
}

/// Moves the repo's queue on as far as it goes now, under its merge lock, then drops the
/// refs of entries no longer in it.
async fn look_at(state: &AppState, repo_id: &str) -> ApiResult<()> {
    let queued = {
        let mut conn = state.store.read().await?;
        !queue::active(conn.h(), repo_id).await?.is_empty()
    };
    // Most pokes (a status in any repo) find no queue and no refs: no lock taken for them.
    // An empty queue can still have refs: start-up's recording lands an entry a crash cut
    // off after its main moved, and the look that follows finds the queue empty.
    if !queued && !has_refs(state, repo_id).await? {
        return Ok(());
    }
    let _lock = state.merge_lock(repo_id).await?;
    for _ in 0..STEPS {
        if !step(state, repo_id).await? {
            break;
        }
    }
    prune_refs(state, repo_id).await
}

/// One step: answers true when it changed something (look again), false when the queue
/// waits for checks (or is empty).
async fn step(state: &AppState, repo_id: &str) -> ApiResult<bool> {
    let (repo, monorepo, entries, branch_rows, queue_on) = {
        let mut conn = state.store.read().await?;
        let entries = queue::active(conn.h(), repo_id).await?;
        if entries.is_empty() {
            return Ok(false);
        }
        let Some(repo) = repos::by_id(conn.h(), repo_id).await? else {
            return Ok(false);
        };
        let Some(monorepo) = monorepos::by_id(conn.h(), &repo.monorepo_id).await? else {
            return Ok(false);
        };
        let mut rows = Vec::with_capacity(entries.len());
        for e in &entries {
            rows.push(branches::get(conn.h(), &repo.id, &e.branch).await?);
        }
        let on = merge_queue_on(conn.h(), state, &monorepo, &repo).await?;
        (repo, monorepo, entries, rows, on)
    };
    let dir = storage::repo_dir(&state.config.data_dir, &repo.id);
    let heads = record::branch_heads(&dir)
        .await
        .map_err(ApiError::internal)?;
    let Some(main) = heads.get(&repo.default_branch).cloned() else {
        return Ok(false);
    };
    if repo.default_head.as_deref() != Some(main.as_str()) {
        // Main moved unrecorded (a crash after a queue's move, or a push being recorded):
        // recorded first, so an entry that landed is known to have.
        let recorded = record::record(
            &state.store,
            &state.config.data_dir,
            &repo.id,
            &Actor::default(),
        )
        .await
        .map_err(ApiError::internal)?;
        state.facts.after_record(&repo.id, &recorded).await;
        return Ok(recorded.main_moved);
    }
    let now = now_ms();
    if let Some(e) = entries.iter().find(|e| e.deadline <= now) {
        leave(state, &repo, e, TIMEOUT, None).await?;
        return Ok(true);
    }
    // Every entry's speculative commit, on main or on the one of the entry ahead.
    let mut base = main.clone();
    let mut built: Vec<(QueueRow, String)> = Vec::with_capacity(entries.len());
    for (i, (e, b)) in entries.iter().zip(branch_rows).enumerate() {
        let Some(b) = b.filter(|b| b.state == "open" && heads.contains_key(&b.name)) else {
            leave(state, &repo, e, NOT_OPEN, None).await?;
            return Ok(true);
        };
        let fresh = e.base_sha.as_deref() == Some(base.as_str()) && e.head == b.head;
        let spec = match e.speculative_sha.clone().filter(|_| fresh) {
            Some(spec) => spec,
            None => match build(state, &repo, e, &b, &base).await? {
                Ok(spec) => {
                    let pos = i64::try_from(i + 1).ok();
                    let made = Built {
                        head: &b.head,
                        base: &base,
                        spec: &spec,
                        position: pos,
                        announced: queue_on,
                    };
                    announce(state, &repo, e, &made).await?;
                    spec
                }
                Err(reason) => {
                    leave(state, &repo, e, reason, None).await?;
                    return Ok(true);
                }
            },
        };
        let mut e = e.clone();
        e.head = b.head.clone();
        base = spec.clone();
        built.push((e, spec));
    }
    // The gate: the required checks on each speculative commit. A change's entry in a repo
    // without a queue of its own is gated as a merge there is, on its branch's head.
    let shas: Vec<String> = built
        .iter()
        .map(|(e, spec)| if queue_on { spec } else { &e.head }.clone())
        .collect();
    let checks = {
        let mut conn = state.store.read().await?;
        checks_in(conn.h(), state, &monorepo, &repo, &shas).await?
    };
    for ((e, _), c) in built.iter().zip(&checks) {
        let reason = match c.state {
            ChecksState::Failure | ChecksState::Error => CHECKS_FAILED,
            ChecksState::Unknown => CHECKS_UNKNOWN,
            _ => continue,
        };
        leave(state, &repo, e, reason, None).await?;
        return Ok(true);
    }
    // The front lands once green: nothing is ahead of it. A change's entry lands with the
    // change's entries in the other repos, once each is at its front and green.
    match (built.first(), checks.first()) {
        (Some((front, _)), Some(c)) if c.state == ChecksState::Success => {
            if let Some(change) = &front.change_id {
                state.queued_changes.poke(change);
                return Ok(false);
            }
            let (front, spec) = &built[0];
            land(state, &repo, front, spec, &main).await
        }
        _ => Ok(false),
    }
}

/// Makes the speculative commit of `e`'s branch `b` onto `base` and points the entry's
/// ref at it; Err with the reason the entry leaves when it cannot be made.
async fn build(
    state: &AppState,
    repo: &RepoRow,
    e: &QueueRow,
    b: &BranchRow,
    base: &str,
) -> ApiResult<Result<String, &'static str>> {
    let user = {
        let mut conn = state.store.read().await?;
        users::by_id(conn.h(), &e.enqueued_user).await?
    };
    let Some(user) = user.filter(|u| u.disabled_at.is_none()) else {
        return Ok(Err(ACCESS_LOST));
    };
    let (Ok(base_id), Ok(head_id)) = (
        ObjectId::from_hex(base.as_bytes()),
        ObjectId::from_hex(b.head.as_bytes()),
    ) else {
        return Err(ApiError::internal("a queue entry's commits are not shas"));
    };
    let message = merging::message(
        b.title.as_deref(),
        b.description.as_deref(),
        &b.name,
        e.enqueued_agent.as_deref(),
    );
    let author = Person::author(&user);
    let committer = Person::service(&state.config);
    let name = ref_of(&e.id);
    let made = state
        .git(repo, move |git| {
            let sha = match git.merge(base_id, head_id, &author, &committer, &message) {
                Ok(sha) => sha,
                Err(e) => return Ok(Err(e)),
            };
            git.set_ref(&name, sha)?;
            Ok::<_, merge::Error>(Ok(sha))
        })
        .await?;
    match made {
        Ok(sha) => Ok(Ok(sha.to_string())),
        Err(merge::Error::Conflicts(_) | merge::Error::Unrelated { .. }) => Ok(Err(CONFLICT)),
        Err(merge::Error::NothingToMerge { .. }) => Ok(Err(NOTHING_TO_MERGE)),
        Err(e) => Err(e.into()),
    }
}

/// A speculative commit just made for an entry.
struct Built<'a> {
    /// The branch head merged.
    head: &'a str,
    /// What it was made on.
    base: &'a str,
    spec: &'a str,
    position: Option<i64>,
    /// Announced with `merge_group` (a repo with a queue of its own: its CI tests it).
    announced: bool,
}

/// Records `e`'s new speculative commit and its `merge_group` event (and hook deliveries)
/// in one transaction.
async fn announce(
    state: &AppState,
    repo: &RepoRow,
    e: &QueueRow,
    made: &Built<'_>,
) -> ApiResult<()> {
    // The ref points at the commit; the row and the event do not say it yet.
    crate::crash::point("queue.built");
    let mut tx = state.store.begin().await?;
    if queue::set_built(tx.h(), &e.id, made.head, made.base, made.spec).await? && made.announced {
        let row = QueueRow {
            state: "testing".into(),
            head: made.head.to_owned(),
            base_sha: Some(made.base.to_owned()),
            speculative_sha: Some(made.spec.to_owned()),
            ..e.clone()
        };
        let ev = event(
            "merge_group",
            repo,
            &view(&repo.name, &row, made.position),
            None,
        );
        record::append(tx.h(), repo, &[ev], now_ms()).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Moves main from `main` to exactly `spec`, the front entry's tested commit, and records
/// it (the branch merged, the entry landed, their events); answers whether it moved.
async fn land(
    state: &AppState,
    repo: &RepoRow,
    e: &QueueRow,
    spec: &str,
    main: &str,
) -> ApiResult<bool> {
    let (Ok(from), Ok(to)) = (
        ObjectId::from_hex(main.as_bytes()),
        ObjectId::from_hex(spec.as_bytes()),
    ) else {
        return Err(ApiError::internal(
            "main or a queue entry's commit is not a sha",
        ));
    };
    let pending = MergeRow {
        repo_id: repo.id.clone(),
        sha: spec.to_owned(),
        branch: e.branch.clone(),
        head: e.head.clone(),
        merged_by: e.enqueued_by.clone(),
        merged_agent: e.enqueued_agent.clone(),
        forced: false,
        merged_at: now_ms(),
        done: false,
        change_id: None,
        main_before: None,
    };
    {
        let mut tx = state.store.begin().await?;
        merges::insert(tx.h(), &pending).await?;
        tx.commit().await?;
    }
    crate::crash::point("queue.moving");
    let main_ref = format!("refs/heads/{}", repo.default_branch);
    let moved = state
        .git(repo, move |git| {
            Ok::<_, merge::Error>(git.update_ref(&main_ref, from, to))
        })
        .await?;
    match moved {
        Ok(()) => {}
        Err(merge::Error::RefMoved(_)) => {
            // Pushed to meanwhile: every entry is made again on the new main.
            let mut tx = state.store.begin().await?;
            merges::remove(tx.h(), &repo.id, spec).await?;
            tx.commit().await?;
            return Ok(true);
        }
        Err(e) => return Err(e.into()),
    }
    crate::crash::point("queue.moved");
    let actor = Actor {
        login: Some(e.enqueued_by.clone()),
        agent: e.enqueued_agent.clone(),
    };
    let recorded = record::record(&state.store, &state.config.data_dir, &repo.id, &actor)
        .await
        .map_err(ApiError::internal)?;
    state.facts.after_record(&repo.id, &recorded).await;
    tracing::info!(repo = %repo.id, branch = %e.branch, sha = %spec, "landed from the merge queue");
    Ok(true)
}

/// `e` leaves the queue with `reason` and its `queue.left` event, unless it left already;
/// the other entries of its change leave with it (`change_left`), and their repos' queues
/// move on without them.
async fn leave(
    state: &AppState,
    repo: &RepoRow,
    e: &QueueRow,
    reason: &str,
    actor: Option<&Actor>,
) -> ApiResult<()> {
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let mut others = Vec::new();
    if left(tx.h(), repo, e, reason, actor, now).await?
        && let Some(change) = &e.change_id
    {
        for other in queue::of_change(tx.h(), change).await? {
            let Some(at) = repos::by_id(tx.h(), &other.repo_id).await? else {
                continue;
            };
            left(tx.h(), &at, &other, CHANGE_LEFT, actor, now).await?;
            others.push(at.id);
        }
    }
    tx.commit().await?;
    others.iter().for_each(|r| state.merge_queue.poke(r));
    Ok(())
}

/// Writes `e`'s leaving and its `queue.left` event in `h`; false when it was out already.
async fn left(
    mut h: crate::store::H<'_>,
    repo: &RepoRow,
    e: &QueueRow,
    reason: &str,
    actor: Option<&Actor>,
    now: i64,
) -> ApiResult<bool> {
    if !queue::leave(h.reborrow(), &e.id, reason, now).await? {
        return Ok(false);
    }
    let row = QueueRow {
        state: "left".into(),
        reason: Some(reason.to_owned()),
        ended_at: Some(now),
        ..e.clone()
    };
    let ev = event("queue.left", repo, &view(&repo.name, &row, None), actor);
    record::append(h, repo, &[ev], now).await?;
    Ok(true)
}

/// Whether the repo has any `refs/svc/queue/*` ref.
async fn has_refs(state: &AppState, repo_id: &str) -> ApiResult<bool> {
    let repo = {
        let mut conn = state.store.read().await?;
        repos::by_id(conn.h(), repo_id).await?
    };
    let Some(repo) = repo else {
        return Ok(false);
    };
    state
        .git(&repo, |git| {
            git.refs_under(REF_PREFIX).map(|r| !r.is_empty())
        })
        .await
}

/// Deletes the `refs/svc/queue/*` refs of entries no longer in the queue.
async fn prune_refs(state: &AppState, repo_id: &str) -> ApiResult<()> {
    let (repo, active) = {
        let mut conn = state.store.read().await?;
        let Some(repo) = repos::by_id(conn.h(), repo_id).await? else {
            return Ok(());
        };
        let active: HashSet<String> = queue::active(conn.h(), repo_id)
            .await?
            .into_iter()
            .map(|e| ref_of(&e.id))
            .collect();
        (repo, active)
    };
    state
        .git(&repo, move |git| {
            for (name, id) in git.refs_under(REF_PREFIX)? {
                if !active.contains(&name) {
                    git.delete_ref(&name, id)?;
                }
            }
            Ok::<_, merge::Error>(())
        })
        .await
}
