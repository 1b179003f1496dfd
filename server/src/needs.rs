//! The needs-you list and the monorepo summary line of the web home.
//!
//! Both read stored facts and statuses only: a branch's state comes from the dry run
//! and `ahead`/`behind` the facts worker stored, and from the latest statuses on its
//! head, so answering never computes facts or diffs. The person's activity socket reads
//! [`lines_of`] on each check and sends [`changed`] between two snapshots.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use serde_json::Value;
use svc_protocol::branch::ChecksState;
use svc_protocol::needs::{
    IssueNeed, IssuesNeed, MonorepoSummary, NeedChange, NeedRow, NeedState, NeedsList,
};

use crate::checks::{self, Required};
use crate::facts;
use crate::merge_queue;
use crate::state::AppState;
use crate::store::branches::{self, BranchRow};
use crate::store::events::{self, EventRow};
use crate::store::monorepos::{self, MonorepoRow};
use crate::store::queue::{self, QueueRow};
use crate::store::repos::{self, RepoRow};
use crate::store::statuses::{self, StatusRow};
use crate::store::{self, H, presence, time_of, users};

/// Monorepos one needs list reads; the rest are named in `skipped`.
pub const MONOREPOS_MAX: usize = 50;
/// Changes one `needs` frame lists; past this it sets `more`.
pub const CHANGES_MAX: usize = 50;
/// Event kinds that make activity lines; the summary's latest activity is one of them.
const ACTIVITY_KINDS: &[&str] = &[
    "push",
    "branch.opened",
    "branch.deleted",
    "merged",
    "review",
    "status",
    "worktree.reported",
    "worktree.removed",
    "meta.saved",
];

type Result<T> = std::result::Result<T, store::Error>;

/// Monorepos one set of queries reads (keeps every `IN` list short).
const CHUNK: usize = 100;

/// The needs-you list of `user_id` (login `login`) across their monorepos.
pub async fn list(mut h: H<'_>, state: &AppState, user_id: &str, login: &str) -> Result<NeedsList> {
    let mut read: Vec<MonorepoRow> = monorepos::by_activity(h.reborrow(), user_id)
        .await?
        .into_iter()
        .map(|row| monorepo_of(row.membership))
        .collect();
    let skipped = read
        .split_off(read.len().min(MONOREPOS_MAX))
        .iter()
        .map(MonorepoRow::label)
        .collect();
    let mut items: Vec<NeedRow> = rows_of(h.reborrow(), state, &read, login)
        .await?
        .into_values()
        .flatten()
        .collect();
    sort(&mut items);
    let issues = assigned_issues(h, login, &read).await?;
    Ok(NeedsList {
        items,
        issues,
        skipped,
    })
}

fn monorepo_of(m: monorepos::MembershipRow) -> MonorepoRow {
    MonorepoRow {
        id: m.id,
        owner: m.owner,
        name: m.name,
        kind: m.kind,
        created_at: m.created_at,
    }
}

/// Per monorepo, the open issues assigned to `login`: how many, and the newest; the
/// monorepo with the most recently updated one first.
async fn assigned_issues(
    h: H<'_>,
    login: &str,
    monorepos: &[MonorepoRow],
) -> Result<Vec<IssuesNeed>> {
    let ids: Vec<String> = monorepos.iter().map(|m| m.id.clone()).collect();
    let mut out: Vec<IssuesNeed> = Vec::new();
    for (monorepo_id, number, title, updated_at) in
        store::issues::assigned_open(h, login, &ids).await?
    {
        if let Some(need) = out.iter_mut().find(|n| n.monorepo_id == monorepo_id) {
            need.open += 1;
            continue;
        }
        let Some(monorepo) = monorepos.iter().find(|m| m.id == monorepo_id) else {
            continue;
        };
        out.push(IssuesNeed {
            monorepo: monorepo.label(),
            monorepo_id,
            open: 1,
            newest: IssueNeed {
                number: u64::try_from(number).unwrap_or_default(),
                title,
                updated_at: time_of(updated_at),
            },
        });
    }
    Ok(out)
}

/// A monorepo as the web home shows it: its summary line and its needs-you rows.
pub struct HomeLine {
    pub summary: MonorepoSummary,
    pub rows: Vec<NeedRow>,
}

/// The home lines of `user_id` for those of `ids` they can read, by monorepo id (the
/// person's activity socket, on each check).
pub async fn lines_of(
    mut h: H<'_>,
    state: &AppState,
    user_id: &str,
    ids: &[&str],
) -> Result<BTreeMap<String, HomeLine>> {
    let Some(user) = users::by_id(h.reborrow(), user_id).await? else {
        return Ok(BTreeMap::new());
    };
    let readable: Vec<(MonorepoRow, Option<i64>)> = monorepos::by_activity(h.reborrow(), user_id)
        .await?
        .into_iter()
        .filter(|r| ids.contains(&r.membership.id.as_str()))
        .map(|r| (monorepo_of(r.membership), r.active_at))
        .collect();
    let lines = lines(h, state, &readable, &user.login).await?;
    Ok(readable.into_iter().map(|(m, _)| m.id).zip(lines).collect())
}

/// The home lines of `monorepos` (each with the time of its latest event) for `login`,
/// in their order: a few set queries per hundred monorepos, not a few per monorepo.
pub async fn lines(
    mut h: H<'_>,
    state: &AppState,
    monorepos: &[(MonorepoRow, Option<i64>)],
    login: &str,
) -> Result<Vec<HomeLine>> {
    let mut out = Vec::with_capacity(monorepos.len());
    for chunk in monorepos.chunks(CHUNK) {
        let rows: Vec<MonorepoRow> = chunk.iter().map(|(m, _)| m.clone()).collect();
        let ids: Vec<String> = rows.iter().map(|m| m.id.clone()).collect();
        let mut needs = rows_of(h.reborrow(), state, &rows, login).await?;
        let mut last: BTreeMap<String, EventRow> =
            events::latest_of_kinds_in(h.reborrow(), &ids, ACTIVITY_KINDS)
                .await?
                .into_iter()
                .map(|l| (l.monorepo_id, l.event))
                .collect();
        let open: BTreeMap<String, i64> = branches::count_open_in(h.reborrow(), &ids)
            .await?
            .into_iter()
            .collect();
        let machines: BTreeMap<String, i64> = presence::machines_in(h.reborrow(), &ids)
            .await?
            .into_iter()
            .collect();
        for (monorepo, active_at) in chunk {
            let rows = needs.remove(&monorepo.id).unwrap_or_default();
            let count = |m: &BTreeMap<String, i64>| {
                m.get(&monorepo.id)
                    .and_then(|n| u64::try_from(*n).ok())
                    .unwrap_or(0)
            };
            let summary = summary_of(
                last.remove(&monorepo.id),
                *active_at,
                count(&open),
                rows.len(),
                count(&machines),
            );
            out.push(HomeLine { summary, rows });
        }
    }
    Ok(out)
}

/// One summary line from what [`lines`] read.
fn summary_of(
    last: Option<EventRow>,
    active_at: Option<i64>,
    open_branches: u64,
    needs_you: usize,
    machines_connected: u64,
) -> MonorepoSummary {
    let body: Option<Value> = last
        .as_ref()
        .and_then(|e| serde_json::from_str(&e.body).ok());
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let row = body.as_ref().and_then(|b| b.get("row"));
    let last_branch = match last.as_ref().map(|e| e.collection.as_str()) {
        Some("branches") => text(row.and_then(|r| r.get("name"))),
        _ => text(row.and_then(|r| r.get("branch"))),
    };
    MonorepoSummary {
        active_at: active_at.map(time_of),
        last_kind: last.as_ref().map(|e| e.kind.clone()),
        last_actor: text(body.as_ref().and_then(|b| b.get("actor"))),
        last_repo: last.as_ref().and_then(|e| e.repo.clone()),
        last_branch,
        last_at: last.as_ref().map(|e| time_of(e.at)),
        open_branches,
        needs_you: u64::try_from(needs_you).unwrap_or(u64::MAX),
        machines_connected,
    }
}

/// The open branches `login` authored or pushed in `monorepos` that need them, by
/// monorepo id, each in list order (monorepos with none left out).
async fn rows_of(
    mut h: H<'_>,
    state: &AppState,
    monorepos: &[MonorepoRow],
    login: &str,
) -> Result<BTreeMap<String, Vec<NeedRow>>> {
    let mut out: BTreeMap<String, Vec<NeedRow>> = BTreeMap::new();
    for chunk in monorepos.chunks(CHUNK) {
        let ids: Vec<String> = chunk.iter().map(|m| m.id.clone()).collect();
        let mine = branches::open_of_person_in(h.reborrow(), &ids, login).await?;
        if mine.is_empty() {
            continue;
        }
        let all = repos::all_in(h.reborrow(), &ids).await?;
        let repos: Vec<&RepoRow> = all
            .iter()
            .filter(|r| mine.iter().any(|b| b.repo_id == r.id))
            .collect();
        let repo_ids: Vec<String> = repos.iter().map(|r| r.id.clone()).collect();
        let heads: Vec<String> = mine.iter().map(|b| b.head.clone()).collect();
        let statuses = statuses::of_any(h.reborrow(), &repo_ids, &heads).await?;
        let oldest = mine.iter().map(|b| b.pushed_at).min().unwrap_or_default();
        let entries = queue::recent_in(h.reborrow(), &repo_ids, oldest).await?;
        for repo in repos {
            let Some(monorepo) = chunk.iter().find(|m| m.id == repo.monorepo_id) else {
                continue;
            };
            // The file of required checks: a plain repo's own, else its meta layer's.
            let holder = if monorepo.kind == "repo" {
                Some(repo)
            } else {
                all.iter()
                    .find(|r| r.is_meta && r.monorepo_id == repo.monorepo_id)
            };
            let here: Vec<&BranchRow> = mine.iter().filter(|b| b.repo_id == repo.id).collect();
            let on_repo: Vec<&StatusRow> =
                statuses.iter().filter(|s| s.repo_id == repo.id).collect();
            let queued: Vec<QueueRow> = entries
                .iter()
                .filter(|e| e.repo_id == repo.id)
                .cloned()
                .collect();
            let mut rows = queue_rows(monorepo, repo, &here, &queued);
            let here: Vec<&BranchRow> = here
                .into_iter()
                .filter(|b| !rows.iter().any(|r| r.branch == b.name))
                .collect();
            rows.extend(rows_in(state, monorepo, repo, holder, &here, &on_repo).await);
            out.entry(monorepo.id.clone()).or_default().extend(rows);
        }
    }
    for rows in out.values_mut() {
        sort(rows);
    }
    Ok(out)
}

/// The rows of one repo's branches `here` that are in its merge queue, or left it since
/// their last push (not by hand), given its queue's entries (`entries`, in order).
fn queue_rows(
    monorepo: &MonorepoRow,
    repo: &RepoRow,
    here: &[&BranchRow],
    entries: &[QueueRow],
) -> Vec<NeedRow> {
    let active: Vec<QueueRow> = entries
        .iter()
        .filter(|e| queue::is_active(&e.state))
        .cloned()
        .collect();
    let mut rows = Vec::new();
    for b in here {
        let Some(e) = entries.iter().rev().find(|e| e.branch == b.name) else {
            continue;
        };
        let state_now = if queue::is_active(&e.state) {
            NeedState::Queued
        } else if e.state == "left"
            && e.reason.as_deref() != Some(merge_queue::BY_HAND)
            && e.ended_at.is_some_and(|t| t >= b.pushed_at)
        {
            NeedState::LeftQueue
        } else {
            continue;
        };
        let entry = merge_queue::view(&repo.name, e, merge_queue::position(&active, &e.id));
        rows.push(NeedRow {
            monorepo: monorepo.label(),
            monorepo_id: monorepo.id.clone(),
            repo: repo.name.clone(),
            branch: b.name.clone(),
            state: state_now,
            head: b.head.clone(),
            title: b.title.clone(),
            pushed_at: time_of(b.pushed_at),
            paths: None,
            queue: Some(entry),
        });
    }
    rows
}

/// The rows of one repo's branches `here`, given the statuses on their heads and the
/// repo holding its file of required checks.
async fn rows_in(
    state: &AppState,
    monorepo: &MonorepoRow,
    repo: &RepoRow,
    holder: Option<&RepoRow>,
    here: &[&BranchRow],
    statuses: &[&StatusRow],
) -> Vec<NeedRow> {
    let mut rows = Vec::new();
    // Read only when a branch gets as far as the gate (a config file read, cached).
    let mut required: Option<Required> = None;
    for b in here {
        let on_head: Vec<StatusRow> = statuses
            .iter()
            .filter(|s| s.sha == b.head)
            .map(|s| (*s).clone())
            .collect();
        let state_now = if conflicts(b) {
            NeedState::Conflicts
        } else if on_head
            .iter()
            .any(|s| s.state == "failure" || s.state == "error")
        {
            NeedState::Failing
        } else if facts::fresh(b, repo.default_head.as_deref())
            && b.facts.mergeable.as_deref() == Some("clean")
            && has_work(b)
        {
            let required = match &required {
                Some(r) => r,
                None => required.insert(
                    checks::required_from(
                        &state.checks_config,
                        &state.config.data_dir,
                        repo,
                        holder,
                    )
                    .await,
                ),
            };
            if checks::checks(Some(&b.head), required, &on_head).state != ChecksState::Success {
                continue;
            }
            NeedState::Ready
        } else {
            continue;
        };
        rows.push(NeedRow {
            monorepo: monorepo.label(),
            monorepo_id: monorepo.id.clone(),
            repo: repo.name.clone(),
            branch: b.name.clone(),
            state: state_now,
            head: b.head.clone(),
            title: b.title.clone(),
            pushed_at: time_of(b.pushed_at),
            paths: (state_now == NeedState::Conflicts).then(|| conflict_paths(b)),
            queue: None,
        });
    }
    rows
}

/// The stored dry run is for the branch's current head and conflicts (whatever main
/// it was run against).
fn conflicts(b: &BranchRow) -> bool {
    b.facts.facts_head.as_deref() == Some(b.head.as_str())
        && b.facts.mergeable.as_deref() == Some("conflicts")
}

/// The branch has commits main lacks, by its fresh facts: a head that is its own merge
/// base with main (main has it already: pushed with `--mirror`, merged elsewhere) has
/// nothing to merge, as `mergeBranch` answers.
fn has_work(b: &BranchRow) -> bool {
    b.facts.base.as_deref() != Some(b.head.as_str())
}

fn conflict_paths(b: &BranchRow) -> Vec<String> {
    b.facts
        .conflicts
        .as_deref()
        .and_then(|c| serde_json::from_str(c).ok())
        .unwrap_or_default()
}

fn rank(s: NeedState) -> u8 {
    match s {
        NeedState::Conflicts => 0,
        NeedState::Failing => 1,
        NeedState::LeftQueue => 2,
        NeedState::Ready => 3,
        NeedState::Queued => 4,
    }
}

/// Conflicts, failing, left the queue, ready, queued; then most recently pushed; ties by
/// label, repo, branch.
fn sort(rows: &mut [NeedRow]) {
    rows.sort_by(|a, b| {
        (
            rank(a.state),
            Reverse(a.pushed_at),
            &a.monorepo,
            &a.repo,
            &a.branch,
        )
            .cmp(&(
                rank(b.state),
                Reverse(b.pushed_at),
                &b.monorepo,
                &b.repo,
                &b.branch,
            ))
    });
}

/// What a `needs` frame sends between two snapshots of one monorepo's rows: branches
/// that entered, changed state or left (`state` null), by repo and branch; at most 50,
/// with `true` when there were more (the client refetches the list).
pub fn changed(before: &[NeedRow], after: &[NeedRow]) -> (Vec<NeedChange>, bool) {
    let key = |r: &NeedRow| (r.repo.clone(), r.branch.clone());
    let old: BTreeMap<_, NeedState> = before.iter().map(|r| (key(r), r.state)).collect();
    let new: BTreeMap<_, NeedState> = after.iter().map(|r| (key(r), r.state)).collect();
    let mut changes: BTreeMap<(String, String), Option<NeedState>> = BTreeMap::new();
    for (k, s) in &new {
        if old.get(k) != Some(s) {
            changes.insert(k.clone(), Some(*s));
        }
    }
    for k in old.keys().filter(|k| !new.contains_key(*k)) {
        changes.insert(k.clone(), None);
    }
    let more = changes.len() > CHANGES_MAX;
    let list = changes
        .into_iter()
        .take(CHANGES_MAX)
        .map(|((repo, branch), state)| NeedChange {
            repo,
            branch,
            state,
        })
        .collect();
    (list, more)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn row(repo: &str, branch: &str, state: NeedState) -> NeedRow {
        NeedRow {
            monorepo: "ann/mono".into(),
            monorepo_id: "m_1".into(),
            repo: repo.into(),
            branch: branch.into(),
            state,
            head: "h".into(),
            title: None,
            pushed_at: time_of(0),
            paths: None,
            queue: None,
        }
    }

    fn change(repo: &str, branch: &str, state: Option<NeedState>) -> NeedChange {
        NeedChange {
            repo: repo.into(),
            branch: branch.into(),
            state,
        }
    }

    #[test]
    fn same_snapshots_change_nothing() {
        let rows = [row("app", "a", NeedState::Ready)];
        assert_eq!(changed(&rows, &rows), (Vec::new(), false));
        assert_eq!(changed(&[], &[]), (Vec::new(), false));
    }

    #[test]
    fn entered_moved_and_left() {
        let before = [
            row("app", "stays", NeedState::Ready),
            row("app", "moves", NeedState::Ready),
            row("app", "leaves", NeedState::Failing),
            row("lib", "moves", NeedState::Failing),
        ];
        let after = [
            row("app", "stays", NeedState::Ready),
            row("app", "moves", NeedState::Conflicts),
            row("app", "enters", NeedState::Failing),
            row("lib", "moves", NeedState::Ready),
        ];
        let (list, more) = changed(&before, &after);
        assert!(!more);
        assert_eq!(
            list,
            [
                change("app", "enters", Some(NeedState::Failing)),
                change("app", "leaves", None),
                change("app", "moves", Some(NeedState::Conflicts)),
                change("lib", "moves", Some(NeedState::Ready)),
            ]
        );
    }

    #[test]
    fn more_past_fifty() {
        let before: Vec<NeedRow> = (0..60)
            .map(|i| row("app", &format!("b{i:02}"), NeedState::Ready))
            .collect();
        let (list, more) = changed(&before, &[]);
        assert!(more);
        assert_eq!(list.len(), CHANGES_MAX);
        assert!(list.iter().all(|c| c.state.is_none()));
        let (list, more) = changed(&before[..50], &[]);
        assert!(!more, "exactly 50 fit");
        assert_eq!(list.len(), 50);
    }

    #[test]
    fn order_is_state_then_newest_push() {
        let mut rows = vec![
            row("app", "ready-old", NeedState::Ready),
            row("app", "failing", NeedState::Failing),
            row("app", "ready-new", NeedState::Ready),
            row("app", "conflicts", NeedState::Conflicts),
        ];
        rows[2].pushed_at = time_of(5);
        sort(&mut rows);
        let names: Vec<&str> = rows.iter().map(|r| r.branch.as_str()).collect();
        assert_eq!(names, ["conflicts", "failing", "ready-new", "ready-old"]);
    }
}
