//! Hooks: a delivery row for every change a hook asks for, written in the change's own
//! transaction ([`enqueue`], called by `record::append` for every ref event), and the
//! worker that sends them ([`worker`]).

pub mod ci_build;
pub mod send;
pub mod target;
pub mod tokens;
pub mod worker;

use serde_json::{Value, json};
use svc_protocol::event::ZERO_SHA;

use crate::git::record::Pending;
use crate::store::hooks::{self, DeliveryRow};
use crate::store::repos::RepoRow;
use crate::store::{self, H, time_of};

/// Deliveries whose records are kept per hook.
pub const RECORDS_KEPT: i64 = 1000;

/// The hook events a stream event makes: a branch's first push is a push too.
fn hook_events(kind: &str, collection: &str) -> &'static [&'static str] {
    match (kind, collection) {
        ("branch.opened", _) => &["push", "branch.opened"],
        ("push" | "branch.deleted", _) => &["push"],
        ("merged", _) => &["merged"],
        ("merge_group", _) => &["merge_group"],
        ("tag.created" | "tag.deleted", _) => &["tag"],
        _ => &[],
    }
}

/// The fields of a delivery body fixed when the change is made: the rest (the label at
/// delivery time, URLs, tokens, the merge base) are added at each try.
fn fixed_body(event: &str, repo: &RepoRow, body: &Value, seq: i64, now: i64) -> Value {
    let row = &body["row"];
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let mut out = json!({
        "event": event,
        "occurred_at": time_of(now).format(&time::format_description::well_known::Rfc3339).unwrap_or_default(),
        "monorepo_id": repo.monorepo_id,
        "repo": repo.name,
        "seq": seq,
        "pusher": body["actor"],
    });
    if event == "tag" {
        let name = text(&row["name"]).unwrap_or_default();
        out["ref"] = json!(format!("refs/tags/{name}"));
        out["tag"] = json!(name);
        out["head"] = json!(text(&body["head"]).unwrap_or_else(|| ZERO_SHA.to_owned()));
        out["before"] = body["before"].clone();
        return out;
    }
    if event == "merge_group" {
        // A merge queue entry's speculative commit, to build and report statuses on.
        out["ref"] = row["ref"].clone();
        out["branch"] = row["branch"].clone();
        out["queue_entry"] = row["id"].clone();
        out["head"] = body["head"].clone();
        out["before"] = body["before"].clone();
        return out;
    }
    // A branch row, or main's first push (`default_heads`).
    let branch = text(&row["name"]).or_else(|| text(&row["default_branch"]));
    let branch = branch.unwrap_or_default();
    out["ref"] = json!(format!("refs/heads/{branch}"));
    out["branch"] = json!(branch);
    out["title"] = row["title"].clone();
    out["description"] = row["description"].clone();
    out["author"] = row["author"].clone();
    if event == "merged" {
        // The merged head, and main's merge commit.
        out["head"] = body["before"].clone();
        out["merge_commit"] = body["head"].clone();
        // A branch landed with others of its name (mergeChange): the change's id.
        if let Some(change) = body.get("change") {
            out["change"] = change.clone();
        }
    } else {
        out["head"] = body["head"].clone();
        out["before"] = body["before"].clone();
    }
    out
}

/// Writes a delivery for every active hook of the repo's monorepo that asks for what
/// `pending` (just appended, with `seqs`) reports, due at once. With `ci_skip` (a push's
/// `-o ci.skip`) CI hooks get none: no build for that push.
pub async fn enqueue(
    mut h: H<'_>,
    repo: &RepoRow,
    pending: &[Pending],
    seqs: &[i64],
    now: i64,
    ci_skip: bool,
) -> store::Result<()> {
    let wanted = pending
        .iter()
        .any(|(kind, collection, ..)| !hook_events(kind, collection).is_empty());
    if !wanted {
        return Ok(());
    }
    let all = hooks::of_monorepo(h.reborrow(), &repo.monorepo_id).await?;
    deliver(h, &all, repo, pending, seqs, now, ci_skip).await
}

/// The same for `all`, the monorepo's hooks, read by the caller once for several repos'
/// events (a change).
pub async fn enqueue_to(
    h: H<'_>,
    all: &[hooks::HookRow],
    repo: &RepoRow,
    pending: &[Pending],
    seqs: &[i64],
    now: i64,
) -> store::Result<()> {
    deliver(h, all, repo, pending, seqs, now, false).await
}

/// Writes the deliveries of `pending` for each of `all` that asks for them.
async fn deliver(
    mut h: H<'_>,
    all: &[hooks::HookRow],
    repo: &RepoRow,
    pending: &[Pending],
    seqs: &[i64],
    now: i64,
    ci_skip: bool,
) -> store::Result<()> {
    let wanted: Vec<(&str, usize)> = pending
        .iter()
        .enumerate()
        .flat_map(|(i, (kind, collection, ..))| {
            hook_events(kind, collection).iter().map(move |e| (*e, i))
        })
        .collect();
    for hook in all
        .iter()
        .filter(|hk| hk.active && !(ci_skip && hk.kind == "ci"))
    {
        let asks = hook.event_list();
        let mut made = false;
        for (event, i) in wanted.iter().filter(|(e, _)| asks.iter().any(|a| a == e)) {
            let (_, _, _, _, body) = &pending[*i];
            // A CI hook builds branches that still exist.
            if hook.kind == "ci" && *event == "push" && body["head"] == ZERO_SHA {
                continue;
            }
            let seq = seqs.get(*i).copied().unwrap_or_default();
            let row = DeliveryRow {
                id: crate::token::new_id("d_"),
                hook_id: hook.id.clone(),
                repo_id: Some(repo.id.clone()),
                event: (*event).to_owned(),
                seq: Some(seq),
                body: fixed_body(event, repo, body, seq, now).to_string(),
                state: "pending".into(),
                attempts: 0,
                round_tries: 0,
                next_attempt_at: Some(now),
                lease_until: None,
                created_at: now,
            };
            hooks::insert_delivery(h.reborrow(), &row).await?;
            made = true;
        }
        if made {
            hooks::prune(h.reborrow(), &hook.id, RECORDS_KEPT).await?;
        }
    }
    Ok(())
}
