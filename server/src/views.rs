//! Stored rows into their REST shapes.

use svc_protocol::event::{Event, Op};
use svc_protocol::monorepo::{Member, Monorepo, MonorepoKind, Repo, Role};

use crate::config::Config;
use crate::store::events::EventRow;
use crate::store::monorepos::{MemberRow, MonorepoRow};
use crate::store::repos::RepoRow;
use crate::store::time_of;

pub fn monorepo(row: &MonorepoRow, role: Role) -> Monorepo {
    Monorepo {
        id: row.id.clone(),
        owner: row.owner.clone(),
        name: row.name.clone(),
        full_name: row.label(),
        kind: kind(&row.kind),
        role,
        created_at: time_of(row.created_at),
    }
}

pub fn kind(s: &str) -> MonorepoKind {
    if s == "repo" {
        MonorepoKind::Repo
    } else {
        MonorepoKind::Monorepo
    }
}

/// The git door URL of a repo under the monorepo's current label.
pub fn clone_url(config: &Config, monorepo: &MonorepoRow, repo: &RepoRow) -> String {
    if kind(&monorepo.kind) == MonorepoKind::Repo {
        format!("{}/{}.git", config.base(), monorepo.label())
    } else {
        format!("{}/{}/{}.git", config.base(), monorepo.label(), repo.name)
    }
}

pub fn repo(config: &Config, monorepo: &MonorepoRow, row: &RepoRow) -> Repo {
    Repo {
        name: row.name.clone(),
        path: row.path.clone(),
        clone_url: clone_url(config, monorepo, row),
        default_branch: row.default_branch.clone(),
        releases_public: row.releases_public,
        monorepo: monorepo.label(),
        monorepo_id: monorepo.id.clone(),
        created_at: time_of(row.created_at),
    }
}

pub fn member(row: &MemberRow) -> Member {
    Member {
        login: row.login.clone(),
        name: row.name.clone(),
        picture_url: row.picture_url.clone(),
        role: Role::parse(&row.role).unwrap_or(Role::Member),
        via: row.via.clone(),
        added_at: time_of(row.added_at),
        added_by: row.added_by.clone(),
    }
}

/// A stored event in its wire shape.
pub fn event(label: &str, monorepo_id: &str, row: EventRow) -> serde_json::Result<Event> {
    let mut body: serde_json::Value = serde_json::from_str(&row.body)?;
    let row_value = body["row"].take();
    let text = |k: &str| body[k].as_str().map(str::to_owned);
    Ok(Event {
        seq: row.seq,
        kind: row.kind,
        monorepo: label.to_owned(),
        monorepo_id: monorepo_id.to_owned(),
        repo: row.repo,
        collection: row.collection,
        key: row.key,
        op: if row.op == "delete" {
            Op::Delete
        } else {
            Op::Upsert
        },
        partial: body["partial"].as_bool().unwrap_or(false),
        before: text("before"),
        head: text("head"),
        actor: text("actor"),
        agent: text("agent"),
        details: svc_protocol::event::DETAIL_FIELDS
            .iter()
            .filter_map(|k| Some(((*k).to_owned(), body.get_mut(*k)?.take())))
            .collect(),
        row: row_value,
        at: time_of(row.at),
    })
}
