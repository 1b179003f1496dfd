//! Tags: the stored list brought to git's `refs/tags/*`, with `tag.created` (a new or
//! moved tag) and `tag.deleted` events. Every way a tag changes (a push through the git
//! door, a release that makes its tag) comes through [`sync`], so this is where `tag`
//! hook deliveries plug in.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;
use svc_protocol::event::ZERO_SHA;
use svc_protocol::release::{Tag, TagRelease};

use super::record::{Actor, Error, Pending};
use crate::store::repos::RepoRow;
use crate::store::tags::{self, TagRow};
use crate::store::{H, releases, time_of};

/// Every tag of the repository at `dir`: name to the commit it names.
pub async fn in_git(dir: &Path) -> Result<BTreeMap<String, String>, Error> {
    let dir = dir.to_path_buf();
    let found = tokio::task::spawn_blocking(move || super::open_repos::open(&dir)?.tags())
        .await
        .map_err(|e| Error::Git(e.to_string()))?
        .map_err(|e| Error::Git(e.to_string()))?;
    Ok(found
        .into_iter()
        .map(|(name, id)| (name, id.to_string()))
        .collect())
}

/// Brings the stored tags of `repo`, `stored` (read in the caller's transaction, which
/// holds the repo's row locked), to git's, `in_git` ([`in_git`], read after the lock),
/// answering the events to write.
pub async fn sync(
    mut h: H<'_>,
    repo: &RepoRow,
    stored: Vec<TagRow>,
    in_git: &BTreeMap<String, String>,
    actor: &Actor,
    now: i64,
) -> Result<Vec<Pending>, Error> {
    let stored: BTreeMap<String, TagRow> =
        stored.into_iter().map(|t| (t.name.clone(), t)).collect();
    let mut pending = Vec::new();
    for (name, sha) in in_git {
        let old = stored.get(name);
        if old.is_some_and(|t| &t.sha == sha) {
            continue;
        }
        let row = TagRow {
            name: name.clone(),
            sha: sha.clone(),
            created_at: now,
        };
        tags::put(h.reborrow(), &repo.id, &row).await?;
        let release = releases::by_tag(h.reborrow(), &repo.id, name).await?;
        let view = view(&row, release.as_ref());
        let mut tag = json!(view);
        tag["repo"] = json!(repo.name);
        let before = old.map_or(ZERO_SHA, |t| t.sha.as_str());
        let body = json!({"row": tag, "before": before, "head": sha, "actor": actor.login, "agent": actor.agent});
        pending.push((
            "tag.created",
            "tags",
            format!("{}/{name}", repo.name),
            "upsert",
            body,
        ));
    }
    for (name, old) in stored.iter().filter(|(n, _)| !in_git.contains_key(*n)) {
        tags::remove(h.reborrow(), &repo.id, name).await?;
        let body = json!({"row": {"repo": repo.name, "name": name}, "before": old.sha, "head": ZERO_SHA, "actor": actor.login, "agent": actor.agent});
        pending.push((
            "tag.deleted",
            "tags",
            format!("{}/{name}", repo.name),
            "delete",
            body,
        ));
    }
    Ok(pending)
}

/// A stored tag in its REST shape, with its release if any.
pub fn view(row: &TagRow, release: Option<&releases::ReleaseRow>) -> Tag {
    Tag {
        name: row.name.clone(),
        commit: row.sha.clone(),
        created_at: time_of(row.created_at),
        release: release.map(|r| TagRelease {
            title: r.title.clone(),
            draft: r.draft,
        }),
    }
}
