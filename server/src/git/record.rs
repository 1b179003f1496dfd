//! Recording ref changes: the DB's branches and default heads are brought to what git
//! holds, with their events, in one transaction.
//!
//! Git's refs are the truth. Recording reads them with the repo's row locked, so when
//! pushes race, the last recorder writes the final state and no update is lost; and
//! after a crash between a ref update and its recording, the next recording (or the
//! start-up pass) brings the DB back in line.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;
use svc_protocol::event::{BranchRow, DefaultHeadRow, ZERO_SHA};

use super::push_options::PushOptions;
use futures_util::future::try_join_all;

use crate::store::{self, Store, branches, events, merges, now_ms, repos, time_of};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("reading refs: {0}")]
    Git(String),
    #[error("closing the issues a merge names: {0}")]
    Issues(String),
}

/// Who moved the refs, for authors and events.
#[derive(Debug, Clone, Default)]
pub struct Actor {
    pub login: Option<String>,
    pub agent: Option<String>,
}

/// Every `refs/heads/*` of a bare repository: branch name to commit.
pub async fn branch_heads(dir: &Path) -> Result<BTreeMap<String, String>, Error> {
    Ok(refs_of(dir, false).await?.heads)
}

/// A repository's branches and tags, read in one trip.
struct Refs {
    heads: BTreeMap<String, String>,
    tags: BTreeMap<String, String>,
}

/// The branches of the bare repository at `dir`, and its tags when `tags`.
async fn refs_of(dir: &Path, tags: bool) -> Result<Refs, Error> {
    let dir = dir.to_path_buf();
    let hex = |found: Vec<(String, gix::ObjectId)>| {
        found
            .into_iter()
            .map(|(name, id)| (name, id.to_string()))
            .collect()
    };
    tokio::task::spawn_blocking(move || {
        let repo = super::open_repos::open(&dir)?;
        Ok(Refs {
            heads: hex(repo.branch_heads()?),
            tags: if tags {
                hex(repo.tags()?)
            } else {
                BTreeMap::new()
            },
        })
    })
    .await
    .map_err(|e| Error::Git(e.to_string()))?
    .map_err(|e: super::read::Error| Error::Git(e.to_string()))
}

/// What a recording changed, for the facts worker.
#[derive(Debug, Default)]
pub struct Recorded {
    pub events: usize,
    /// Branches whose head moved or that appeared.
    pub moved: Vec<String>,
    /// Main moved.
    pub main_moved: bool,
}

/// Title and description for a branch the recording finds new (createBranch).
#[derive(Debug, Default)]
pub struct Seed {
    pub branch: String,
    pub title: Option<String>,
    pub description: Option<String>,
}

/// Pending merges older than this whose commit is not on main are given up: the merge
/// that wrote them failed before moving main (a crash, or the ref moved under it).
const PENDING_MERGE_TTL_MS: i64 = 5 * 60 * 1000;

/// A push's commit count (for its feed line) stops here.
pub const PUSH_COMMITS_CAP: usize = 10_000;

/// Brings the DB's view of one repo to git's refs.
pub async fn record(
    store: &Store,
    data_dir: &Path,
    repo_id: &str,
    actor: &Actor,
) -> Result<Recorded, Error> {
    record_with(store, data_dir, repo_id, actor, None).await
}

/// The same, seeding a new branch's title and description.
pub async fn record_with(
    store: &Store,
    data_dir: &Path,
    repo_id: &str,
    actor: &Actor,
    seed: Option<&Seed>,
) -> Result<Recorded, Error> {
    record_inner(
        store,
        data_dir,
        repo_id,
        actor,
        seed,
        &PushOptions::default(),
        Vec::new(),
    )
    .await
}

/// The same for a push through the door, with what its push options asked: a title and
/// description for the branches it opens, and no CI build (`ci.skip`).
pub async fn record_push(
    store: &Store,
    data_dir: &Path,
    repo_id: &str,
    actor: &Actor,
    options: &PushOptions,
) -> Result<Recorded, Error> {
    record_inner(store, data_dir, repo_id, actor, None, options, Vec::new()).await
}

/// The same, writing `extra` events (made by the caller's ref move) in the same
/// transaction, after the ref events.
pub async fn record_and(
    store: &Store,
    data_dir: &Path,
    repo_id: &str,
    actor: &Actor,
    extra: Vec<Pending>,
) -> Result<Recorded, Error> {
    record_inner(
        store,
        data_dir,
        repo_id,
        actor,
        None,
        &PushOptions::default(),
        extra,
    )
    .await
}

async fn record_inner(
    store: &Store,
    data_dir: &Path,
    repo_id: &str,
    actor: &Actor,
    seed: Option<&Seed>,
    options: &PushOptions,
    extra: Vec<Pending>,
) -> Result<Recorded, Error> {
    let mut tx = store.begin().await?;
    let how = How {
        seed,
        options,
        extra,
        import: false,
        change: None,
    };
    let recorded = record_in(&mut tx, data_dir, repo_id, actor, how).await?;
    tx.commit().await?;
    Ok(recorded)
}

/// Records the repos of the change `change` (its merges, now on every main) in the
/// caller's transaction, each as the one who merged it there, with `last` (the change's
/// own event) after their events. Every repo's row is locked before any refs are read,
/// the repos' refs are read side by side, and every event is written in one append.
/// Answers each repo's recording, in the order of `repos`.
pub async fn record_change(
    tx: &mut store::Tx,
    data_dir: &Path,
    repos: &[(&str, Actor)],
    change: &str,
    last: events::NewEvent<'_>,
) -> Result<Vec<Recorded>, Error> {
    let mut locked = Vec::with_capacity(repos.len());
    for (id, actor) in repos {
        locked.push(repos::lock(tx.h(), id).await?.map(|repo| (repo, actor)));
    }
    // The repos found, each with who merged there and its folder.
    let found: Vec<_> = locked
        .iter()
        .flatten()
        .map(|(repo, actor)| (repo, *actor, super::storage::repo_dir(data_dir, &repo.id)))
        .collect();
    let ids: Vec<&str> = found.iter().map(|(repo, ..)| repo.id.as_str()).collect();
    let monorepo_id = found.first().map(|(repo, ..)| repo.monorepo_id.clone());
    // The refs are read from disk while the stored rows are read.
    let read_refs = try_join_all(found.iter().map(|(_, _, dir)| refs_of(dir, true)));
    let read_rows = async {
        let stored = Stored::of_all(tx.h(), &ids).await?;
        let hooks = match &monorepo_id {
            Some(id) => store::hooks::of_monorepo(tx.h(), id).await?,
            None => Vec::new(),
        };
        Ok::<_, Error>((stored, hooks))
    };
    let (refs, rows) = tokio::join!(read_refs, read_rows);
    let (refs, (mut stored, hooks)) = (refs?, rows?);
    let mut settled = Vec::with_capacity(found.len());
    for ((repo, actor, dir), refs) in found.iter().zip(refs) {
        let how = How {
            seed: None,
            options: &PushOptions::default(),
            extra: Vec::new(),
            import: false,
            change: Some(change),
        };
        let rows = stored.remove(&repo.id).unwrap_or_default();
        settled.push(settle(tx, repo, dir, refs, rows, actor, how).await?);
    }
    // Each repo recorded, with its recording.
    let both: Vec<_> = found
        .iter()
        .zip(&settled)
        .map(|((repo, ..), s)| (*repo, s))
        .collect();
    mark_landed(tx.h(), &both).await?;
    let mut all: Vec<_> = both
        .iter()
        .flat_map(|(repo, s)| s.pending.iter().map(|p| new_event(repo, p, s.now)))
        .collect();
    all.push(last);
    let mut seq = events::append_all(tx.h(), &all).await? - all.len() as i64 + 1;
    for (repo, s) in &both {
        let seqs: Vec<i64> = (seq..seq + s.pending.len() as i64).collect();
        seq += s.pending.len() as i64;
        crate::hooks::enqueue_to(tx.h(), &hooks, repo, &s.pending, &seqs, s.now).await?;
    }
    let closing: Vec<_> = both
        .iter()
        .map(|(repo, s)| (*repo, s.closing.as_slice()))
        .collect();
    close_issues(tx, &closing).await?;
    let mut settled = settled.into_iter();
    Ok(locked
        .iter()
        .map(|l| match l {
            Some(_) => settled.next().map(|s| s.recorded).unwrap_or_default(),
            None => Recorded::default(),
        })
        .collect())
}

/// Records an import in the caller's transaction, which writes the repo (and the
/// import's end) with it: the whole history appears at once or not at all. A branch
/// whose head main already has comes in merged (merged before the import: no merge
/// commit of this server), not open.
pub async fn record_import(
    tx: &mut store::Tx,
    data_dir: &Path,
    repo_id: &str,
    actor: &Actor,
) -> Result<Recorded, Error> {
    let how = How {
        seed: None,
        options: &PushOptions::default(),
        extra: Vec::new(),
        import: true,
        change: None,
    };
    record_in(tx, data_dir, repo_id, actor, how).await
}

/// What a recording does beyond bringing the DB to git's refs.
struct How<'a> {
    seed: Option<&'a Seed>,
    /// What a push asked with `git push -o`.
    options: &'a PushOptions,
    extra: Vec<Pending>,
    import: bool,
    /// The change (mergeChange) being recorded: its merges are recorded here. Another
    /// change's merges are left to it, and while one of them is on main, main is not
    /// recorded (no reader sees part of a change land).
    change: Option<&'a str>,
}

/// The recording, in the caller's transaction (committed by the caller).
async fn record_in(
    tx: &mut store::Tx,
    data_dir: &Path,
    repo_id: &str,
    actor: &Actor,
    how: How<'_>,
) -> Result<Recorded, Error> {
    let Some(repo) = repos::lock(tx.h(), repo_id).await? else {
        return Ok(Recorded::default());
    };
    let dir = super::storage::repo_dir(data_dir, &repo.id);
    // The refs are read from disk while the stored rows are read.
    let ids = [repo.id.as_str()];
    let (refs, stored) = tokio::join!(refs_of(&dir, true), Stored::of_all(tx.h(), &ids));
    let (refs, mut stored) = (refs?, stored?);
    let rows = stored.remove(&repo.id).unwrap_or_default();
    let ci_skip = how.options.ci_skip;
    let s = settle(tx, &repo, &dir, refs, rows, actor, how).await?;
    mark_landed(tx.h(), &[(&repo, &s)]).await?;
    append_with(tx.h(), &repo, &s.pending, s.now, ci_skip).await?;
    close_issues(tx, &[(&repo, s.closing.as_slice())]).await?;
    Ok(s.recorded)
}

/// A repo's rows as stored, read in the recording's transaction after its row is
/// locked: what git's refs are compared with.
#[derive(Default)]
struct Stored {
    /// Its merges not recorded yet, oldest first.
    merges: Vec<merges::MergeRow>,
    /// Its branches that git still has, by name.
    branches: BTreeMap<String, branches::BranchRow>,
    tags: Vec<store::tags::TagRow>,
}

impl Stored {
    /// The stored rows of the repos `ids` (one or a change's), three queries in all, by
    /// repo id; a repo with none has none in the map.
    async fn of_all(
        mut h: store::H<'_>,
        ids: &[&str],
    ) -> Result<std::collections::HashMap<String, Stored>, Error> {
        let mut all: std::collections::HashMap<String, Stored> = std::collections::HashMap::new();
        for m in merges::pending_in(h.reborrow(), ids).await? {
            all.entry(m.repo_id.clone()).or_default().merges.push(m);
        }
        for b in branches::live_in(h.reborrow(), ids).await? {
            let stored = all.entry(b.repo_id.clone()).or_default();
            stored.branches.insert(b.name.clone(), b);
        }
        for (repo_id, tag) in store::tags::all_in(h, ids).await? {
            all.entry(repo_id).or_default().tags.push(tag);
        }
        Ok(all)
    }
}

/// An issue-closing merge: (branch, its title and description, merge commit, who merged).
type Closing = (String, String, String, Actor);

/// A repo's recording before its events are written: the events, the issues its merges
/// close, and what it changed.
struct Settled {
    pending: Vec<Pending>,
    /// The merge commits of the merges recorded.
    landed: Vec<String>,
    closing: Vec<Closing>,
    recorded: Recorded,
    now: i64,
}

/// Brings the stored rows of `repo` (locked by the caller's transaction), `stored`, to
/// `refs`, read from its repository at `dir` after the lock, answering the events to
/// write.
async fn settle(
    tx: &mut store::Tx,
    repo: &repos::RepoRow,
    dir: &Path,
    refs: Refs,
    stored: Stored,
    actor: &Actor,
    how: How<'_>,
) -> Result<Settled, Error> {
    let How {
        seed,
        options,
        extra,
        import,
        change,
    } = how;
    let Refs { heads, tags } = refs;
    let Stored {
        merges: pending_merges,
        branches: mut stored,
        tags: stored_tags,
    } = stored;
    let now = now_ms();
    let mut pending: Vec<Pending> = Vec::new();
    let main = heads.get(&repo.default_branch);

    // Merges whose ref move landed: the branch becomes merged with the main move.
    let mut actor = actor.clone();
    // Issues to close.
    let mut closing: Vec<Closing> = Vec::new();
    let mut recorded_merges = Vec::new();
    // A merge of another change that is on main: main waits for that change's recording.
    let mut held = false;
    for m in pending_merges {
        let landed = match main {
            Some(head) if *head == m.sha => true,
            Some(head) => is_ancestor(dir, &m.sha, head).await?,
            None => false,
        };
        if m.change_id.is_some() && m.change_id.as_deref() != change {
            held |= landed;
            continue;
        }
        if !landed {
            if now - m.merged_at > PENDING_MERGE_TTL_MS {
                merges::remove(tx.h(), &repo.id, &m.sha).await?;
            }
            continue;
        }
        let merged = branches::set_merged(tx.h(), &repo.id, &m).await?;
        // Marked recorded by the caller, with the other repos' ([`mark_landed`]).
        recorded_merges.push(m.sha.clone());
        actor = Actor {
            login: Some(m.merged_by.clone()),
            agent: m.merged_agent.clone(),
        };
        if let Some(b) = merged {
            // What a read of the stored branches after this one's merge would find.
            stored.insert(b.name.clone(), b.clone());
            let text = format!(
                "{}\n{}",
                b.title.as_deref().unwrap_or_default(),
                b.description.as_deref().unwrap_or_default()
            );
            closing.push((b.name.clone(), text, m.sha.clone(), actor.clone()));
            let mut body = event_body(
                &actor,
                json!(branch_row(&repo.name, &b)),
                true,
                &m.head,
                &m.sha,
            );
            if let Some(id) = &m.change_id {
                body["change"] = json!(id);
            }
            pending.push((
                "merged",
                "branches",
                format!("{}/{}", repo.name, b.name),
                "upsert",
                body,
            ));
        }
    }
    let actor = &actor;
    let mut moved = Vec::new();

    let main_moved = !held && main != repo.default_head.as_ref();
    if main_moved {
        repos::set_default_head(tx.h(), &repo.id, main.map(String::as_str), now).await?;
        let kind = if repo.default_head.is_none() {
            "push"
        } else {
            "default_head.updated"
        };
        let row = DefaultHeadRow {
            repo: repo.name.clone(),
            default_branch: repo.default_branch.clone(),
            default_head: main.cloned(),
        };
        let before = repo.default_head.as_deref().unwrap_or(ZERO_SHA);
        let head = main.map_or(ZERO_SHA, String::as_str);
        let mut body = event_body(actor, json!(row), false, before, head);
        if let Some(id) = change {
            body["change"] = json!(id);
        }
        if let (Some(main), None) = (main, &repo.default_head) {
            body["commits"] = json!(count_commits(dir, None, main).await?);
        }
        pending.push((kind, "default_heads", repo.name.clone(), "upsert", body));
    }
    for (name, sha) in heads.iter().filter(|(n, _)| **n != repo.default_branch) {
        let old = stored.get(name);
        if old.is_some_and(|b| &b.head == sha) {
            continue;
        }
        let seed = seed.filter(|s| old.is_none() && s.branch == *name);
        let merged_before = import
            && old.is_none()
            && match main {
                Some(main) => main == sha || is_ancestor(dir, sha, main).await?,
                None => false,
            };
        let row = branches::BranchRow {
            repo_id: repo.id.clone(),
            name: name.clone(),
            head: sha.clone(),
            author: old
                .and_then(|b| b.author.clone())
                .or_else(|| actor.login.clone()),
            pusher: actor.login.clone(),
            state: if merged_before { "merged" } else { "open" }.into(),
            title: old
                .and_then(|b| b.title.clone())
                .or_else(|| seed.and_then(|s| s.title.clone()))
                .or_else(|| old.is_none().then(|| options.title.clone()).flatten()),
            description: old
                .and_then(|b| b.description.clone())
                .or_else(|| seed.and_then(|s| s.description.clone()))
                .or_else(|| old.is_none().then(|| options.description.clone()).flatten()),
            created_at: old.map_or(now, |b| b.created_at),
            pushed_at: now,
            sort_at: now,
            ..Default::default()
        };
        moved.push(name.clone());
        branches::put(tx.h(), &row).await?;
        // Someone other than the one who armed it pushed: it no longer merges itself.
        let disarmed = match old {
            Some(old) if crate::auto_merge::ended_by_push(old, actor.login.as_deref()) => {
                branches::disarm(tx.h(), &repo.id, name).await?
            }
            _ => false,
        };
        if merged_before {
            branches::set_merged_before(tx.h(), &repo.id, name, now, actor.login.as_deref())
                .await?;
        }
        let kind = if old.is_some() {
            "push"
        } else {
            "branch.opened"
        };
        let before = old.map_or(ZERO_SHA, |b| b.head.as_str());
        let mut body = event_body(
            actor,
            json!(branch_row(&repo.name, &row)),
            true,
            before,
            sha,
        );
        // A new branch brought what main lacks; a push what its old head lacked.
        let base = old.map(|b| b.head.as_str()).or(main.map(String::as_str));
        body["commits"] = json!(count_commits(dir, base, sha).await?);
        pending.push((
            kind,
            "branches",
            format!("{}/{name}", repo.name),
            "upsert",
            body,
        ));
        if disarmed {
            pending.push(crate::auto_merge::disabled_event(
                repo,
                &row,
                crate::auto_merge::PUSHED_BY_OTHER,
                Some(actor),
            ));
        }
    }
    for (name, old) in stored.iter().filter(|(n, _)| !heads.contains_key(*n)) {
        let row = branches::BranchRow {
            state: "deleted".into(),
            pusher: actor.login.clone(),
            pushed_at: now,
            sort_at: now,
            ..old.clone()
        };
        branches::put(tx.h(), &row).await?;
        let body = event_body(
            actor,
            json!(branch_row(&repo.name, &row)),
            true,
            &old.head,
            ZERO_SHA,
        );
        pending.push((
            "branch.deleted",
            "branches",
            format!("{}/{name}", repo.name),
            "delete",
            body,
        ));
    }
    pending.extend(super::tags::sync(tx.h(), repo, stored_tags, &tags, actor, now).await?);
    pending.extend(extra);
    Ok(Settled {
        landed: recorded_merges,
        recorded: Recorded {
            events: pending.len(),
            moved,
            main_moved,
        },
        pending,
        closing,
        now,
    })
}

/// Marks the merges that the recordings `settled` found on main recorded, and the merge
/// queue entries whose speculative commits they are landed: one statement each for every
/// repo recorded (one, or a change's).
async fn mark_landed(
    mut h: store::H<'_>,
    settled: &[(&repos::RepoRow, &Settled)],
) -> Result<(), Error> {
    let landed: Vec<(&str, &str)> = settled
        .iter()
        .flat_map(|(repo, s)| s.landed.iter().map(|sha| (repo.id.as_str(), sha.as_str())))
        .collect();
    let Some((_, first)) = settled.first() else {
        return Ok(());
    };
    merges::set_done(h.reborrow(), &landed).await?;
    store::queue::set_landed(h, &landed, first.now).await?;
    Ok(())
}

/// Closes the issues that the merges of `closing` name, each repo's with its list, in
/// the caller's transaction: the issues linked to their branches are read in one query.
async fn close_issues(
    tx: &mut store::Tx,
    closing: &[(&repos::RepoRow, &[Closing])],
) -> Result<(), Error> {
    let Some((first, _)) = closing.iter().find(|(_, c)| !c.is_empty()) else {
        return Ok(());
    };
    let monorepo_id = first.monorepo_id.clone();
    let branches: Vec<(&str, &str)> = closing
        .iter()
        .flat_map(|(repo, c)| c.iter().map(|(b, ..)| (repo.name.as_str(), b.as_str())))
        .collect();
    let links = crate::store::issues::linked_to_any(tx.h(), &monorepo_id, &branches).await?;
    for (repo, c) in closing {
        for (branch, text, sha, by) in c.iter() {
            let linked = links
                .iter()
                .filter(|(r, b, _)| r == &repo.name && b == branch)
                .map(|(.., number)| *number)
                .collect();
            let by = crate::issues::By {
                login: by.login.as_deref().unwrap_or_default(),
                agent: by.agent.as_deref(),
            };
            crate::issues::close_by_merge(
                tx.h(),
                &repo.monorepo_id,
                (&repo.name, branch, text),
                linked,
                sha,
                by,
            )
            .await
            .map_err(|e| Error::Issues(e.message))?;
        }
    }
    Ok(())
}

/// Writes `pending`, events of `repo`, in the caller's transaction, with the hook
/// deliveries they make (`hooks::enqueue`): a change, its events and its deliveries
/// commit together.
pub async fn append(
    h: store::H<'_>,
    repo: &repos::RepoRow,
    pending: &[Pending],
    now: i64,
) -> Result<(), store::Error> {
    append_with(h, repo, pending, now, false).await
}

/// The same; `ci_skip` makes no CI hook deliveries (a push with `-o ci.skip`).
async fn append_with(
    mut h: store::H<'_>,
    repo: &repos::RepoRow,
    pending: &[Pending],
    now: i64,
    ci_skip: bool,
) -> Result<(), store::Error> {
    let all: Vec<_> = pending.iter().map(|p| new_event(repo, p, now)).collect();
    let last = events::append_all(h.reborrow(), &all).await?;
    let seqs: Vec<i64> = (last - all.len() as i64 + 1..=last).collect();
    crate::hooks::enqueue(h, repo, pending, &seqs, now, ci_skip).await
}

/// The event of `repo` that `pending` describes.
fn new_event<'a>(repo: &'a repos::RepoRow, pending: &'a Pending, now: i64) -> events::NewEvent<'a> {
    let (kind, collection, key, op, body) = pending;
    events::NewEvent {
        monorepo_id: &repo.monorepo_id,
        kind,
        repo: Some(&repo.name),
        also_repos: None,
        collection,
        key,
        op,
        body: body.to_string(),
        at: now,
    }
}

/// Whether `ancestor` is reachable from `tip`.
pub async fn is_ancestor(dir: &Path, ancestor: &str, tip: &str) -> Result<bool, Error> {
    let (dir, ancestor, tip) = (dir.to_path_buf(), ancestor.to_owned(), tip.to_owned());
    tokio::task::spawn_blocking(move || {
        let repo = super::open_repos::open(&dir)?;
        let (Some(a), Some(t)) = (repo.commit_exists(&ancestor)?, repo.commit_exists(&tip)?) else {
            return Ok(false);
        };
        Ok(repo.merge_base(a, t)? == Some(a))
    })
    .await
    .map_err(|e| Error::Git(e.to_string()))?
    .map_err(|e: super::read::Error| Error::Git(e.to_string()))
}

/// An event to write: kind, collection, key, op and its JSON body.
pub type Pending = (
    &'static str,
    &'static str,
    String,
    &'static str,
    serde_json::Value,
);

/// The stored body of a ref event: the row and the commits around the move.
fn event_body(
    actor: &Actor,
    row: serde_json::Value,
    partial: bool,
    before: &str,
    head: &str,
) -> serde_json::Value {
    json!({"row": row, "partial": partial, "before": before, "head": head, "actor": actor.login, "agent": actor.agent})
}

/// Commits reachable from `head` and not from `base` (a commit git may have lost
/// counts as none), at most [`PUSH_COMMITS_CAP`].
async fn count_commits(dir: &Path, base: Option<&str>, head: &str) -> Result<usize, Error> {
    let (dir, base, head) = (dir.to_path_buf(), base.map(str::to_owned), head.to_owned());
    tokio::task::spawn_blocking(move || {
        let repo = super::open_repos::open(&dir)?;
        let Some(head) = repo.commit_exists(&head)? else {
            return Ok(0);
        };
        let base = match base {
            Some(b) => repo.commit_exists(&b)?,
            None => None,
        };
        repo.count_new(base, head, PUSH_COMMITS_CAP)
    })
    .await
    .map_err(|e| Error::Git(e.to_string()))?
    .map_err(|e: super::read::Error| Error::Git(e.to_string()))
}

/// Writes `branch.updated` for the stored branch `b` of `repo` (facts computed, title or
/// description changed), in the caller's transaction.
pub async fn branch_updated(
    h: store::H<'_>,
    monorepo_id: &str,
    repo: &str,
    b: &branches::BranchRow,
    actor: &Actor,
) -> Result<(), store::Error> {
    let body = json!({"row": branch_row(repo, b), "partial": true, "actor": actor.login, "agent": actor.agent});
    let key = format!("{repo}/{}", b.name);
    let event = events::NewEvent {
        monorepo_id,
        kind: "branch.updated",
        repo: Some(repo),
        also_repos: None,
        collection: "branches",
        key: &key,
        op: "upsert",
        body: body.to_string(),
        at: now_ms(),
    };
    events::append(h, &event).await.map(|_| ())
}

pub fn branch_row(repo: &str, b: &branches::BranchRow) -> BranchRow {
    BranchRow {
        repo: repo.to_owned(),
        name: b.name.clone(),
        head: b.head.clone(),
        author: b.author.clone(),
        pusher: b.pusher.clone(),
        state: b.state.clone(),
        title: b.title.clone(),
        description: b.description.clone(),
        created_at: time_of(b.created_at),
        pushed_at: time_of(b.pushed_at),
    }
}

/// At start-up: records whatever git holds that the DB missed (a crash between a ref
/// update and its recording, or a merge), then queues branch facts for every repo.
pub async fn record_all(state: crate::state::AppState) {
    let all = match state.store.read().await {
        Ok(mut conn) => repos::every(conn.h()).await,
        Err(e) => Err(e),
    };
    let Ok(all) =
        all.inspect_err(|e| tracing::error!(error = %e, "cannot list repos to reconcile"))
    else {
        return;
    };
    for repo in all {
        match record(
            &state.store,
            &state.config.data_dir,
            &repo.id,
            &Actor::default(),
        )
        .await
        {
            Ok(r) if r.events == 0 => {}
            Ok(r) => {
                tracing::warn!(repo = %repo.id, events = r.events, "recorded ref changes the database had missed");
                // A queue entry this recording landed leaves a ref for the queue to drop.
                state.merge_queue.poke(&repo.id);
            }
            Err(e) => tracing::error!(repo = %repo.id, error = %e, "cannot reconcile refs"),
        }
        state.facts.sweep(&repo.id).await;
    }
}
