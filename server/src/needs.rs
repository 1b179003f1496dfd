//! The needs-you list and the monorepo summary line of the web home.
//!
//! Both read stored facts and statuses only: a branch's state comes from the dry run
//! and `ahead`/`behind` the facts worker stored, and from the latest statuses on its
//! head, so answering never computes facts or diffs. The person's activity socket calls
//! [`needs`] and [`summary`] per monorepo and sends [`changed`] between two snapshots.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use serde_json::Value;
use svc_protocol::branch::ChecksState;
use svc_protocol::needs::{
    IssueNeed, IssuesNeed, MonorepoSummary, NeedChange, NeedRow, NeedState, NeedsList,
};

use crate::checks::{self, Required};
use crate::facts;
use crate::state::AppState;
use crate::store::branches::{self, BranchRow};
use crate::store::monorepos::{self, MonorepoRow};
use crate::store::statuses::{self, StatusRow};
use crate::store::{self, H, events, presence, repos, time_of, users};

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

/// The needs-you list of `user_id` (login `login`) across their monorepos.
pub async fn list(mut h: H<'_>, state: &AppState, user_id: &str, login: &str) -> Result<NeedsList> {
    let mine = monorepos::by_activity(h.reborrow(), user_id).await?;
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    let mut read = Vec::new();
    for (i, row) in mine.into_iter().enumerate() {
        let m = row.membership;
        let monorepo = MonorepoRow {
            id: m.id,
            owner: m.owner,
            name: m.name,
            kind: m.kind,
            created_at: m.created_at,
        };
        if i < MONOREPOS_MAX {
            items.extend(rows_in(h.reborrow(), state, &monorepo, login).await?);
            read.push(monorepo);
        } else {
            skipped.push(monorepo.label());
        }
    }
    sort(&mut items);
    let issues = assigned_issues(h, login, &read).await?;
    Ok(NeedsList {
        items,
        issues,
        skipped,
    })
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

/// The rows of `user_id` in one monorepo, in list order; none when they cannot read it.
pub async fn needs(
    mut h: H<'_>,
    state: &AppState,
    monorepo_id: &str,
    user_id: &str,
) -> Result<Vec<NeedRow>> {
    let Some((monorepo, login)) = member(h.reborrow(), monorepo_id, user_id).await? else {
        return Ok(Vec::new());
    };
    rows_in(h, state, &monorepo, &login).await
}

/// The summary line of one monorepo for `user_id`; None when they cannot read it.
pub async fn summary(
    mut h: H<'_>,
    state: &AppState,
    monorepo_id: &str,
    user_id: &str,
) -> Result<Option<MonorepoSummary>> {
    let Some((monorepo, login)) = member(h.reborrow(), monorepo_id, user_id).await? else {
        return Ok(None);
    };
    let active_at = events::latest_at(h.reborrow(), monorepo_id).await?;
    summary_of(h, state, &monorepo, &login, active_at)
        .await
        .map(Some)
}

/// The summary line of `monorepo` for `login`, whose latest event was at `active_at`.
pub async fn summary_of(
    mut h: H<'_>,
    state: &AppState,
    monorepo: &MonorepoRow,
    login: &str,
    active_at: Option<i64>,
) -> Result<MonorepoSummary> {
    let last = events::latest_of_kinds(h.reborrow(), &monorepo.id, ACTIVITY_KINDS).await?;
    let body: Option<Value> = last
        .as_ref()
        .and_then(|e| serde_json::from_str(&e.body).ok());
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let row = body.as_ref().and_then(|b| b.get("row"));
    let last_branch = match last.as_ref().map(|e| e.collection.as_str()) {
        Some("branches") => text(row.and_then(|r| r.get("name"))),
        _ => text(row.and_then(|r| r.get("branch"))),
    };
    let open_branches = branches::count_open(h.reborrow(), &monorepo.id).await?;
    let needs_you = rows_in(h.reborrow(), state, monorepo, login).await?.len();
    let mut machines: Vec<(String, String)> = presence::connections(h, &monorepo.id)
        .await?
        .into_iter()
        .map(|c| (c.user_id, c.machine))
        .collect();
    machines.sort();
    machines.dedup();
    Ok(MonorepoSummary {
        active_at: active_at.map(time_of),
        last_kind: last.as_ref().map(|e| e.kind.clone()),
        last_actor: text(body.as_ref().and_then(|b| b.get("actor"))),
        last_repo: last.as_ref().and_then(|e| e.repo.clone()),
        last_branch,
        last_at: last.as_ref().map(|e| time_of(e.at)),
        open_branches: u64::try_from(open_branches).unwrap_or(0),
        needs_you: u64::try_from(needs_you).unwrap_or(u64::MAX),
        machines_connected: u64::try_from(machines.len()).unwrap_or(u64::MAX),
    })
}

/// The monorepo and the user's login, when the user can read it.
async fn member(
    mut h: H<'_>,
    monorepo_id: &str,
    user_id: &str,
) -> Result<Option<(MonorepoRow, String)>> {
    if monorepos::role(h.reborrow(), monorepo_id, user_id)
        .await?
        .is_none()
    {
        return Ok(None);
    }
    let Some(monorepo) = monorepos::by_id(h.reborrow(), monorepo_id).await? else {
        return Ok(None);
    };
    Ok(users::by_id(h, user_id).await?.map(|u| (monorepo, u.login)))
}

/// The open branches `login` authored or pushed in `monorepo` that need them.
async fn rows_in(
    mut h: H<'_>,
    state: &AppState,
    monorepo: &MonorepoRow,
    login: &str,
) -> Result<Vec<NeedRow>> {
    let mine = branches::open_of_person(h.reborrow(), &monorepo.id, login).await?;
    if mine.is_empty() {
        return Ok(Vec::new());
    }
    let plain = monorepo.kind == "repo";
    let mut rows = Vec::new();
    for repo in repos::all(h.reborrow(), &monorepo.id).await? {
        let here: Vec<&BranchRow> = mine.iter().filter(|b| b.repo_id == repo.id).collect();
        if here.is_empty() {
            continue;
        }
        let heads: Vec<String> = here.iter().map(|b| b.head.clone()).collect();
        let all = statuses::of(h.reborrow(), &repo.id, &heads).await?;
        // Read only when a branch gets as far as the gate (a config file read, cached).
        let mut required: Option<Required> = None;
        for b in here {
            let on_head: Vec<StatusRow> = all.iter().filter(|s| s.sha == b.head).cloned().collect();
            let state_now = if conflicts(b) {
                NeedState::Conflicts
            } else if on_head
                .iter()
                .any(|s| s.state == "failure" || s.state == "error")
            {
                NeedState::Failing
            } else if facts::fresh(b, repo.default_head.as_deref())
                && b.facts.mergeable.as_deref() == Some("clean")
            {
                let required = match &required {
                    Some(r) => r,
                    None => required.insert(
                        checks::required(
                            h.reborrow(),
                            &state.checks_config,
                            &state.config.data_dir,
                            &repo,
                            plain,
                        )
                        .await?,
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
            });
        }
    }
    sort(&mut rows);
    Ok(rows)
}

/// The stored dry run is for the branch's current head and conflicts (whatever main
/// it was run against).
fn conflicts(b: &BranchRow) -> bool {
    b.facts.facts_head.as_deref() == Some(b.head.as_str())
        && b.facts.mergeable.as_deref() == Some("conflicts")
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
        NeedState::Ready => 2,
    }
}

/// Conflicts, failing, ready; then most recently pushed; ties by label, repo, branch.
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
