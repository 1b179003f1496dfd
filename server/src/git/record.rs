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

use crate::store::{self, Store, branches, events, monorepos, now_ms, repos, time_of};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error("reading refs: {0}")]
    Git(String),
}

/// Who moved the refs, for authors and events.
#[derive(Debug, Clone, Default)]
pub struct Actor {
    pub login: Option<String>,
    pub agent: Option<String>,
}

/// Every `refs/heads/*` of a bare repository: branch name to commit.
pub async fn branch_heads(dir: &Path) -> Result<BTreeMap<String, String>, Error> {
    let dir = dir.to_path_buf();
    let heads = tokio::task::spawn_blocking(move || super::read::Repo::open(&dir)?.branch_heads())
        .await
        .map_err(|e| Error::Git(e.to_string()))?
        .map_err(|e| Error::Git(e.to_string()))?;
    Ok(heads
        .into_iter()
        .map(|(name, id)| (name, id.to_string()))
        .collect())
}

/// Brings the DB's view of one repo to git's refs; answers how many events it wrote.
pub async fn record(
    store: &Store,
    data_dir: &Path,
    repo_id: &str,
    actor: &Actor,
) -> Result<usize, Error> {
    let mut tx = store.begin().await?;
    let Some(repo) = repos::lock(tx.h(), repo_id).await? else {
        return Ok(0);
    };
    let Some(monorepo) = monorepos::by_id(tx.h(), &repo.monorepo_id).await? else {
        return Ok(0);
    };
    let heads = branch_heads(&super::storage::repo_dir(data_dir, &repo.id)).await?;
    let stored: BTreeMap<String, branches::BranchRow> = branches::live(tx.h(), &repo.id)
        .await?
        .into_iter()
        .map(|b| (b.name.clone(), b))
        .collect();
    let now = now_ms();
    let mut pending: Vec<Pending> = Vec::new();

    let main = heads.get(&repo.default_branch);
    if main != repo.default_head.as_ref() {
        repos::set_default_head(tx.h(), &repo.id, main.map(String::as_str)).await?;
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
        let body = event_body(actor, json!(row), false, before, head);
        pending.push((kind, "default_heads", repo.name.clone(), "upsert", body));
    }
    for (name, sha) in heads.iter().filter(|(n, _)| **n != repo.default_branch) {
        let old = stored.get(name);
        if old.is_some_and(|b| &b.head == sha) {
            continue;
        }
        let row = branches::BranchRow {
            repo_id: repo.id.clone(),
            name: name.clone(),
            head: sha.clone(),
            author: old
                .and_then(|b| b.author.clone())
                .or_else(|| actor.login.clone()),
            pusher: actor.login.clone(),
            state: "open".into(),
            title: old.and_then(|b| b.title.clone()),
            description: old.and_then(|b| b.description.clone()),
            created_at: old.map_or(now, |b| b.created_at),
            pushed_at: now,
        };
        branches::put(tx.h(), &row).await?;
        let kind = if old.is_some() {
            "push"
        } else {
            "branch.opened"
        };
        let before = old.map_or(ZERO_SHA, |b| b.head.as_str());
        let body = event_body(
            actor,
            json!(branch_row(&repo.name, &row)),
            true,
            before,
            sha,
        );
        pending.push((
            kind,
            "branches",
            format!("{}/{name}", repo.name),
            "upsert",
            body,
        ));
    }
    for (name, old) in stored.iter().filter(|(n, _)| !heads.contains_key(*n)) {
        let row = branches::BranchRow {
            state: "deleted".into(),
            pusher: actor.login.clone(),
            pushed_at: now,
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
    for (kind, collection, key, op, body) in &pending {
        let event = events::NewEvent {
            monorepo_id: &monorepo.id,
            kind,
            repo: Some(&repo.name),
            collection,
            key,
            op,
            body: body.clone(),
            at: now,
        };
        events::append(tx.h(), &event).await?;
    }
    tx.commit().await?;
    Ok(pending.len())
}

/// An event to write: kind, collection, key, op and its JSON body.
type Pending = (&'static str, &'static str, String, &'static str, String);

/// The stored body of a ref event: the row and the commits around the move.
fn event_body(
    actor: &Actor,
    row: serde_json::Value,
    partial: bool,
    before: &str,
    head: &str,
) -> String {
    json!({"row": row, "partial": partial, "before": before, "head": head, "actor": actor.login, "agent": actor.agent})
        .to_string()
}

fn branch_row(repo: &str, b: &branches::BranchRow) -> BranchRow {
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
/// update and its recording).
pub async fn record_all(store: Store, data_dir: std::path::PathBuf) {
    let all = match store.read().await {
        Ok(mut conn) => repos::every(conn.h()).await,
        Err(e) => Err(e),
    };
    let Ok(all) =
        all.inspect_err(|e| tracing::error!(error = %e, "cannot list repos to reconcile"))
    else {
        return;
    };
    for repo in all {
        match record(&store, &data_dir, &repo.id, &Actor::default()).await {
            Ok(0) => {}
            Ok(n) => {
                tracing::warn!(repo = %repo.id, events = n, "recorded ref changes the database had missed")
            }
            Err(e) => tracing::error!(repo = %repo.id, error = %e, "cannot reconcile refs"),
        }
    }
}
