//! Monorepos, their old labels (aliases), memberships and invites.
//!
//! Access is read from the `monorepo_access` view (migration 0008): a person's own
//! membership rows and, for an org's monorepos, the org's people. Only writes and the
//! questions about a person's own row read `memberships` directly.

use super::access_cache::AccessCache;
use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MonorepoRow {
    pub id: String,
    pub owner: String,
    pub name: String,
    pub kind: String,
    pub created_at: i64,
}

impl MonorepoRow {
    pub fn label(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

const COLUMNS: &str = "id, owner, name, kind, created_at";

/// Makes the monorepo, with the labels every monorepo starts with.
pub async fn insert(mut h: H<'_>, row: &MonorepoRow) -> Result<()> {
    on!(h.reborrow(), c => sqlx::query("INSERT INTO monorepos (id, owner, name, kind, created_at) VALUES ($1, $2, $3, $4, $5)")
        .bind(&row.id).bind(&row.owner).bind(&row.name).bind(&row.kind).bind(row.created_at)
        .execute(c).await?.rows_affected());
    super::labels::add_defaults(h, &row.id).await
}

pub async fn by_id(h: H<'_>, id: &str) -> Result<Option<MonorepoRow>> {
    let sql = format!("SELECT {COLUMNS} FROM monorepos WHERE id = $1");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(c).await?))
}

/// The monorepo a label names now: its current label, else an old one.
pub async fn by_label(h: H<'_>, owner: &str, name: &str) -> Result<Option<MonorepoRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM monorepos WHERE owner = $1 AND name = $2
         UNION ALL
         SELECT m.id, m.owner, m.name, m.kind, m.created_at FROM monorepo_aliases a
           JOIN monorepos m ON m.id = a.monorepo_id WHERE a.owner = $1 AND a.name = $2"
    );
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(owner).bind(name).fetch_optional(c).await?),
    )
}

/// A monorepo found by label with a person's role in it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LabelAccess {
    #[sqlx(flatten)]
    pub monorepo: MonorepoRow,
    pub role: Option<String>,
}

/// [`by_label`] and [`role`] in one round trip, for the authorization of every request.
/// The role is read from the two tables behind `monorepo_access` directly: the view would
/// be read whole per row inside a correlated subquery on SQLite. Outside a transaction the
/// answer comes from the [`AccessCache`] when nothing committed since it was read.
pub async fn by_label_with_role(
    h: H<'_>,
    owner: &str,
    name: &str,
    user_id: &str,
) -> Result<Option<LabelAccess>> {
    let cache = h.access_cache;
    if let Some(answer) = cache.and_then(|c| c.get(user_id, owner, name)) {
        return Ok(Some(answer));
    }
    let generation = cache.map(AccessCache::generation);
    let found: Option<LabelAccess> = on!(h, c => sqlx::query_as(
        "SELECT x.id, x.owner, x.name, x.kind, x.created_at,
           (SELECT MAX(r.role) FROM (
              SELECT role FROM memberships WHERE monorepo_id = x.id AND user_id = $3
              UNION ALL
              SELECT role FROM org_members WHERE org = x.owner AND user_id = $3) r) AS role
         FROM (SELECT id, owner, name, kind, created_at FROM monorepos WHERE owner = $1 AND name = $2
               UNION ALL
               SELECT m.id, m.owner, m.name, m.kind, m.created_at FROM monorepo_aliases a
                 JOIN monorepos m ON m.id = a.monorepo_id WHERE a.owner = $1 AND a.name = $2) x",
    )
    .bind(owner).bind(name).bind(user_id).fetch_optional(c).await?);
    // Only access is kept: a miss costs a round trip, and outsiders' 404s stay uncached.
    if let (Some(cache), Some(generation), Some(answer)) = (cache, generation, &found)
        && answer.role.is_some()
    {
        cache.put(generation, user_id, owner, name, answer.clone());
    }
    Ok(found)
}

/// A monorepo with the caller's role, for lists.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MembershipRow {
    pub id: String,
    pub owner: String,
    pub name: String,
    pub kind: String,
    pub created_at: i64,
    pub role: String,
}

/// The user's monorepos, by membership and by organization, with their highest role:
/// their own namespace first, then by owner and name.
pub async fn list_for_user(
    h: H<'_>,
    user_id: &str,
    login: &str,
    owner: Option<&str>,
    name: Option<&str>,
) -> Result<Vec<MembershipRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT m.id, m.owner, m.name, m.kind, m.created_at, a.role
         FROM (SELECT monorepo_id, MAX(role) AS role FROM monorepo_access
               WHERE user_id = $1 GROUP BY monorepo_id) a
         JOIN monorepos m ON m.id = a.monorepo_id
         WHERE ($3 IS NULL OR m.owner = $3) AND ($4 IS NULL OR m.name = $4)
         ORDER BY CASE WHEN m.owner = $2 THEN 0 ELSE 1 END, m.owner, m.name",
    )
    .bind(user_id).bind(login).bind(owner).bind(name)
    .fetch_all(c).await?))
}

/// A user's monorepo with the time of its latest event (none before any event).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ActiveRow {
    #[sqlx(flatten)]
    pub membership: MembershipRow,
    pub active_at: Option<i64>,
}

/// The user's monorepos, most recently active first; those without events last, by
/// owner and name.
pub async fn by_activity(h: H<'_>, user_id: &str) -> Result<Vec<ActiveRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT id, owner, name, kind, created_at, role, active_at FROM (
           SELECT m.id, m.owner, m.name, m.kind, m.created_at, a.role,
             (SELECT e.at FROM events e WHERE e.monorepo_id = m.id AND e.seq = m.last_seq) AS active_at
           FROM (SELECT monorepo_id, MAX(role) AS role FROM monorepo_access
                 WHERE user_id = $1 GROUP BY monorepo_id) a
           JOIN monorepos m ON m.id = a.monorepo_id) AS mine
         ORDER BY CASE WHEN active_at IS NULL THEN 1 ELSE 0 END, active_at DESC, owner, name",
    )
    .bind(user_id).fetch_all(c).await?))
}

/// Moves the monorepo to a new label, keeping the old one as an alias.
pub async fn relabel(h: H<'_>, row: &MonorepoRow, owner: &str, name: &str) -> Result<()> {
    on!(h, c => {
        sqlx::query("UPDATE monorepos SET owner = $2, name = $3 WHERE id = $1")
            .bind(&row.id).bind(owner).bind(name).execute(&mut *c).await?;
        sqlx::query("DELETE FROM monorepo_aliases WHERE monorepo_id = $1 AND owner = $2 AND name = $3")
            .bind(&row.id).bind(owner).bind(name).execute(&mut *c).await?;
        sqlx::query("INSERT INTO monorepo_aliases (owner, name, monorepo_id) VALUES ($1, $2, $3)")
            .bind(&row.owner).bind(&row.name).bind(&row.id).execute(&mut *c).await?.rows_affected()
    });
    Ok(())
}

/// Takes an old label away from whichever monorepo kept it; answers that label.
pub async fn take_alias(h: H<'_>, owner: &str, name: &str) -> Result<Option<String>> {
    let gone = on!(h, c => sqlx::query("DELETE FROM monorepo_aliases WHERE owner = $1 AND name = $2")
        .bind(owner).bind(name).execute(c).await?.rows_affected());
    Ok((gone > 0).then(|| format!("{owner}/{name}")))
}

/// Deletes the monorepo and, by cascade, everything it holds.
/// The ids of the monorepos `owner` (a person's or an org's login) owns.
pub async fn ids_of_owner(h: H<'_>, owner: &str) -> Result<Vec<String>> {
    Ok(
        on!(h, c => sqlx::query_scalar("SELECT id FROM monorepos WHERE owner = $1 ORDER BY id")
        .bind(owner).fetch_all(c).await?),
    )
}

pub async fn delete(h: H<'_>, id: &str) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM monorepos WHERE id = $1").bind(id).execute(c).await?.rows_affected());
    Ok(())
}

/// The user's role in the monorepo: the highest of their own row and, in an org's
/// monorepo, their org role. The query behind every authorization.
pub async fn role(h: H<'_>, monorepo_id: &str, user_id: &str) -> Result<Option<String>> {
    Ok(on!(h, c => sqlx::query_scalar(
        "SELECT MAX(role) FROM monorepo_access WHERE monorepo_id = $1 AND user_id = $2",
    )
    .bind(monorepo_id).bind(user_id).fetch_one(c).await?))
}

/// The user's own row's role in the monorepo, leaving out what an org gives.
pub async fn own_role(h: H<'_>, monorepo_id: &str, user_id: &str) -> Result<Option<String>> {
    Ok(
        on!(h, c => sqlx::query_scalar("SELECT role FROM memberships WHERE monorepo_id = $1 AND user_id = $2")
        .bind(monorepo_id).bind(user_id).fetch_optional(c).await?),
    )
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MemberRow {
    pub user_id: String,
    pub login: String,
    pub name: Option<String>,
    pub picture_url: Option<String>,
    pub role: String,
    /// `direct` when the person has their own row, else `org`.
    pub via: String,
    pub added_at: i64,
    pub added_by: Option<String>,
}

/// Everyone who can open the monorepo, by login, each once with their highest role.
/// `via`, `added_at` and `added_by` are of their own row when they have one (the row
/// removeMember takes away), else of their org row.
pub async fn members(h: H<'_>, monorepo_id: &str) -> Result<Vec<MemberRow>> {
    let rows: Vec<MemberRow> = on!(h, c => sqlx::query_as(
        "SELECT u.id AS user_id, u.login, u.name, u.picture_url, a.role, a.via, a.added_at, a.added_by
         FROM monorepo_access a JOIN users u ON u.id = a.user_id
         WHERE a.monorepo_id = $1 ORDER BY u.login, a.via",
    )
    .bind(monorepo_id).fetch_all(c).await?);
    Ok(one_each(rows))
}

/// One person's row of [`members`], if they can open the monorepo.
pub async fn member(h: H<'_>, monorepo_id: &str, user_id: &str) -> Result<Option<MemberRow>> {
    let rows: Vec<MemberRow> = on!(h, c => sqlx::query_as(
        "SELECT u.id AS user_id, u.login, u.name, u.picture_url, a.role, a.via, a.added_at, a.added_by
         FROM monorepo_access a JOIN users u ON u.id = a.user_id
         WHERE a.monorepo_id = $1 AND a.user_id = $2 ORDER BY a.via",
    )
    .bind(monorepo_id).bind(user_id).fetch_all(c).await?);
    Ok(one_each(rows).pop())
}

/// Access rows sorted by person then `via`, made one per person with their highest role.
fn one_each(rows: Vec<MemberRow>) -> Vec<MemberRow> {
    let mut people: Vec<MemberRow> = Vec::with_capacity(rows.len());
    for row in rows {
        match people.last_mut() {
            // 'direct' sorts before 'org': the first row of a person is the one shown.
            Some(last) if last.user_id == row.user_id => {
                last.role = last.role.clone().max(row.role);
            }
            _ => people.push(row),
        }
    }
    people
}

pub async fn put_member(
    h: H<'_>,
    monorepo_id: &str,
    user_id: &str,
    role: &str,
    by: Option<&str>,
    now: i64,
) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO memberships (monorepo_id, user_id, role, added_at, added_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (monorepo_id, user_id) DO UPDATE SET role = excluded.role",
    )
    .bind(monorepo_id).bind(user_id).bind(role).bind(now).bind(by)
    .execute(c).await?.rows_affected());
    Ok(())
}

pub async fn remove_member(h: H<'_>, monorepo_id: &str, user_id: &str) -> Result<bool> {
    let n = on!(h, c => sqlx::query("DELETE FROM memberships WHERE monorepo_id = $1 AND user_id = $2")
        .bind(monorepo_id).bind(user_id).execute(c).await?.rows_affected());
    Ok(n > 0)
}

/// Sources of ownership (own owner rows and, in an org's monorepo, the org's owners)
/// counted with the monorepo row locked (PostgreSQL), so two demotions at once cannot
/// both see another owner. Taking one owner row away leaves an owner while this is 2
/// or more; an org always has an owner, so an org's monorepo needs no owner row.
pub async fn count_owners(h: H<'_>, monorepo_id: &str) -> Result<i64> {
    Ok(on!(h, c => {
        sqlx::query("UPDATE monorepos SET last_seq = last_seq WHERE id = $1")
            .bind(monorepo_id).execute(&mut *c).await?;
        sqlx::query_scalar("SELECT COUNT(*) FROM monorepo_access WHERE monorepo_id = $1 AND role = 'owner'")
            .bind(monorepo_id).fetch_one(&mut *c).await?
    }))
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct InviteRow {
    pub monorepo_id: String,
    pub email: String,
    pub role: String,
    pub invited_by: String,
    pub created_at: i64,
}

pub async fn put_invite(h: H<'_>, row: &InviteRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO monorepo_invites (monorepo_id, email, role, invited_by, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (monorepo_id, email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by",
    )
    .bind(&row.monorepo_id).bind(&row.email).bind(&row.role).bind(&row.invited_by).bind(row.created_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

pub async fn invites(h: H<'_>, monorepo_id: &str) -> Result<Vec<InviteRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT monorepo_id, email, role, invited_by, created_at FROM monorepo_invites
         WHERE monorepo_id = $1 ORDER BY created_at, email",
    )
    .bind(monorepo_id).fetch_all(c).await?))
}

pub async fn revoke_invite(h: H<'_>, monorepo_id: &str, email: &str) -> Result<bool> {
    let n = on!(h, c => sqlx::query("DELETE FROM monorepo_invites WHERE monorepo_id = $1 AND email = $2")
        .bind(monorepo_id).bind(email).execute(c).await?.rows_affected());
    Ok(n > 0)
}

/// Takes every invite waiting for `email` out, to become memberships.
pub async fn take_invites_for(h: H<'_>, email: &str) -> Result<Vec<InviteRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "DELETE FROM monorepo_invites WHERE email = $1
         RETURNING monorepo_id, email, role, invited_by, created_at",
    )
    .bind(email).fetch_all(c).await?))
}
