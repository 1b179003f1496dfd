//! Organizations: their rows, their people and the invites waiting for an email.

use super::{H, Result, on};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OrgRow {
    pub login: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub picture_url: Option<String>,
    pub created_at: i64,
}

const COLUMNS: &str = "login, name, description, picture_url, created_at";

/// Claims the login in the namespace table, creates the org and makes `owner_id` its
/// first owner. A taken login fails with a unique violation; of two creates of one
/// login at once, the second waits for the first and then fails so.
pub async fn create(h: H<'_>, org: &OrgRow, owner_id: &str) -> Result<()> {
    on!(h, c => {
        sqlx::query("INSERT INTO namespaces (login, kind, created_at) VALUES ($1, 'org', $2)")
            .bind(&org.login).bind(org.created_at).execute(&mut *c).await?;
        sqlx::query(
            "INSERT INTO orgs (login, name, description, picture_url, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&org.login).bind(&org.name).bind(&org.description).bind(&org.picture_url).bind(org.created_at)
        .execute(&mut *c).await?;
        sqlx::query(
            "INSERT INTO org_members (org, user_id, role, added_at, added_by) VALUES ($1, $2, 'owner', $3, NULL)",
        )
        .bind(&org.login).bind(owner_id).bind(org.created_at)
        .execute(&mut *c).await?.rows_affected()
    });
    Ok(())
}

pub async fn by_login(h: H<'_>, login: &str) -> Result<Option<OrgRow>> {
    let sql = format!("SELECT {COLUMNS} FROM orgs WHERE login = $1");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(login).fetch_optional(c).await?))
}

/// Writes the org's name, description and picture.
pub async fn update(h: H<'_>, org: &OrgRow) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE orgs SET name = $2, description = $3, picture_url = $4 WHERE login = $1")
        .bind(&org.login).bind(&org.name).bind(&org.description).bind(&org.picture_url)
        .execute(c).await?.rows_affected());
    Ok(())
}

/// The user's role in the org.
pub async fn role(h: H<'_>, org: &str, user_id: &str) -> Result<Option<String>> {
    Ok(
        on!(h, c => sqlx::query_scalar("SELECT role FROM org_members WHERE org = $1 AND user_id = $2")
        .bind(org).bind(user_id).fetch_optional(c).await?),
    )
}

/// How many people the org has.
pub async fn count_members(h: H<'_>, org: &str) -> Result<i64> {
    Ok(
        on!(h, c => sqlx::query_scalar("SELECT COUNT(*) FROM org_members WHERE org = $1")
        .bind(org).fetch_one(c).await?),
    )
}

/// An org the user is in, with their role and its head count.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MyOrgRow {
    #[sqlx(flatten)]
    pub org: OrgRow,
    pub role: String,
    pub members: i64,
}

/// The orgs the user is in, by login.
pub async fn list_for_user(h: H<'_>, user_id: &str) -> Result<Vec<MyOrgRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT o.login, o.name, o.description, o.picture_url, o.created_at, om.role,
           (SELECT COUNT(*) FROM org_members n WHERE n.org = o.login) AS members
         FROM org_members om JOIN orgs o ON o.login = om.org
         WHERE om.user_id = $1 ORDER BY o.login",
    )
    .bind(user_id).fetch_all(c).await?))
}

/// Someone in an org, with when they last used any credential.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OrgMemberRow {
    pub user_id: String,
    pub login: String,
    pub name: Option<String>,
    pub picture_url: Option<String>,
    pub role: String,
    pub added_at: i64,
    pub added_by: Option<String>,
    pub last_active_at: Option<i64>,
}

/// The org's people, by login; `only` narrows to one person.
pub async fn members(h: H<'_>, org: &str, only: Option<&str>) -> Result<Vec<OrgMemberRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT u.id AS user_id, u.login, u.name, u.picture_url, om.role, om.added_at, om.added_by,
           (SELECT MAX(cr.last_used_at) FROM credentials cr WHERE cr.user_id = u.id) AS last_active_at
         FROM org_members om JOIN users u ON u.id = om.user_id
         WHERE om.org = $1 AND ($2 IS NULL OR u.id = $2) ORDER BY u.login",
    )
    .bind(org).bind(only).fetch_all(c).await?))
}

/// Adds the user with `role`, or changes the role of someone already in.
pub async fn put_member(
    h: H<'_>,
    org: &str,
    user_id: &str,
    role: &str,
    by: Option<&str>,
    now: i64,
) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO org_members (org, user_id, role, added_at, added_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (org, user_id) DO UPDATE SET role = excluded.role",
    )
    .bind(org).bind(user_id).bind(role).bind(now).bind(by)
    .execute(c).await?.rows_affected());
    Ok(())
}

pub async fn remove_member(h: H<'_>, org: &str, user_id: &str) -> Result<bool> {
    let n = on!(h, c => sqlx::query("DELETE FROM org_members WHERE org = $1 AND user_id = $2")
        .bind(org).bind(user_id).execute(c).await?.rows_affected());
    Ok(n > 0)
}

/// Owners counted with the org row locked (PostgreSQL), so two demotions or removals
/// at once cannot both see another owner.
pub async fn count_owners(h: H<'_>, org: &str) -> Result<i64> {
    Ok(on!(h, c => {
        sqlx::query("UPDATE orgs SET created_at = created_at WHERE login = $1")
            .bind(org).execute(&mut *c).await?;
        sqlx::query_scalar("SELECT COUNT(*) FROM org_members WHERE org = $1 AND role = 'owner'")
            .bind(org).fetch_one(&mut *c).await?
    }))
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OrgInviteRow {
    pub org: String,
    pub email: String,
    pub role: String,
    pub invited_by: String,
    pub created_at: i64,
}

/// Records an invite; inviting the same email again replaces its role and inviter.
pub async fn put_invite(h: H<'_>, row: &OrgInviteRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO org_invites (org, email, role, invited_by, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (org, email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by",
    )
    .bind(&row.org).bind(&row.email).bind(&row.role).bind(&row.invited_by).bind(row.created_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

pub async fn invites(h: H<'_>, org: &str) -> Result<Vec<OrgInviteRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT org, email, role, invited_by, created_at FROM org_invites
         WHERE org = $1 ORDER BY created_at, email",
    )
    .bind(org).fetch_all(c).await?))
}

pub async fn revoke_invite(h: H<'_>, org: &str, email: &str) -> Result<bool> {
    let n = on!(h, c => sqlx::query("DELETE FROM org_invites WHERE org = $1 AND email = $2")
        .bind(org).bind(email).execute(c).await?.rows_affected());
    Ok(n > 0)
}

/// Takes every org invite waiting for `email` out, to become org memberships.
pub async fn take_invites_for(h: H<'_>, email: &str) -> Result<Vec<OrgInviteRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "DELETE FROM org_invites WHERE email = $1
         RETURNING org, email, role, invited_by, created_at",
    )
    .bind(email).fetch_all(c).await?))
}
