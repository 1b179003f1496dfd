//! The `members` collection's events: who can open a monorepo, written in the
//! transaction that changes it, so a settings page (or any client) follows the member
//! list live. `member.updated` upserts the person's row as listMembers shows it (key:
//! their login); `member.removed` deletes it (row `{login}`). A person who keeps access
//! through the owning org after their own row goes gets `member.updated` with that row.
//! A change of an org's people is a change of every monorepo the org owns (its people
//! are members there, `via: org`). Invites carry emails only owners may see, so they
//! have no events of their own: an accepted invite shows as its member's
//! `member.updated`.

use crate::store::{H, Result, events, monorepos, now_ms};
use crate::views;

/// The person `user_id`'s row of the monorepo changed (added, role changed, or their own
/// row removed): `member.updated` with the row they have now, else `member.removed`.
pub async fn changed(
    mut h: H<'_>,
    monorepo_id: &str,
    user_id: &str,
    login: &str,
    actor: Option<&str>,
) -> Result<()> {
    let (kind, op, row) = match monorepos::member(h.reborrow(), monorepo_id, user_id).await? {
        Some(row) => (
            "member.updated",
            "upsert",
            serde_json::to_value(views::member(&row)).unwrap_or_default(),
        ),
        None => (
            "member.removed",
            "delete",
            serde_json::json!({"login": login}),
        ),
    };
    let body = serde_json::json!({"row": row, "actor": actor});
    let event = events::NewEvent {
        monorepo_id,
        kind,
        repo: None,
        also_repos: None,
        collection: "members",
        key: login,
        op,
        body: body.to_string(),
        at: now_ms(),
    };
    events::append(h, &event).await?;
    Ok(())
}

/// The person's place in the org `org` changed: [`changed`] in every monorepo it owns.
pub async fn org_changed(
    mut h: H<'_>,
    org: &str,
    user_id: &str,
    login: &str,
    actor: Option<&str>,
) -> Result<()> {
    for monorepo_id in monorepos::ids_of_owner(h.reborrow(), org).await? {
        changed(h.reborrow(), &monorepo_id, user_id, login, actor).await?;
    }
    Ok(())
}
