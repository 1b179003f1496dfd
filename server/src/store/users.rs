//! Users and the namespace table they share with organizations.

use super::{H, Result, on, qualified};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct UserRow {
    pub id: String,
    pub login: String,
    pub email: Option<String>,
    pub email_verified: bool,
    pub name: Option<String>,
    pub picture_url: Option<String>,
    pub password_hash: Option<String>,
    pub created_at: i64,
    /// Manages the server's people (`/v1/admin`).
    pub site_admin: bool,
    /// When an admin or the operator disabled the person; none while they may sign in.
    pub disabled_at: Option<i64>,
}

const COLUMNS: &str = "id, login, email, email_verified, name, picture_url, password_hash, created_at, site_admin, disabled_at";

/// Claims the login in the namespace table and creates the user; a taken login or
/// email fails with a unique violation and writes nothing once the caller rolls back.
pub async fn insert(h: H<'_>, user: &UserRow) -> Result<()> {
    on!(h, c => {
        sqlx::query("INSERT INTO namespaces (login, kind, created_at) VALUES ($1, 'user', $2)")
            .bind(&user.login)
            .bind(user.created_at)
            .execute(&mut *c)
            .await?;
        sqlx::query(
            "INSERT INTO users (id, login, email, email_verified, name, picture_url, password_hash, created_at, site_admin)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&user.id)
        .bind(&user.login)
        .bind(&user.email)
        .bind(user.email_verified)
        .bind(&user.name)
        .bind(&user.picture_url)
        .bind(&user.password_hash)
        .bind(user.created_at)
        .bind(user.site_admin)
        .execute(&mut *c)
        .await?;
    });
    Ok(())
}

async fn one_by(h: H<'_>, column: &str, value: &str) -> Result<Option<UserRow>> {
    let sql = format!("SELECT {COLUMNS} FROM users WHERE {column} = $1");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(value).fetch_optional(c).await?))
}

pub async fn by_id(h: H<'_>, id: &str) -> Result<Option<UserRow>> {
    one_by(h, "id", id).await
}

pub async fn by_login(h: H<'_>, login: &str) -> Result<Option<UserRow>> {
    one_by(h, "login", login).await
}

pub async fn by_email(h: H<'_>, email: &str) -> Result<Option<UserRow>> {
    one_by(h, "email", email).await
}

/// The user an identity provider's `(issuer, subject)` signs in as.
pub async fn by_identity(h: H<'_>, issuer: &str, subject: &str) -> Result<Option<UserRow>> {
    let sql = format!(
        "SELECT {} FROM users JOIN identities ON identities.user_id = users.id
         WHERE identities.issuer = $1 AND identities.subject = $2",
        qualified(COLUMNS, "users")
    );
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(issuer).bind(subject).fetch_optional(c).await?),
    )
}

pub async fn link_identity(h: H<'_>, issuer: &str, subject: &str, user_id: &str) -> Result<()> {
    on!(h, c => sqlx::query("INSERT INTO identities (issuer, subject, user_id) VALUES ($1, $2, $3)")
        .bind(issuer).bind(subject).bind(user_id).execute(c).await?.rows_affected());
    Ok(())
}

/// Every taken namespace login equal to `base` or starting with `base-`, for deriving
/// a free login in one read.
pub async fn logins_like(h: H<'_>, base: &str) -> Result<Vec<String>> {
    let pattern = format!("{base}-%");
    Ok(on!(h, c => sqlx::query_scalar(
        "SELECT login FROM namespaces WHERE login = $1 OR login LIKE $2",
    )
    .bind(base)
    .bind(&pattern)
    .fetch_all(c)
    .await?))
}

pub async fn update_profile(
    h: H<'_>,
    id: &str,
    name: Option<&str>,
    picture_url: Option<&str>,
) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE users SET name = $2, picture_url = $3 WHERE id = $1")
        .bind(id).bind(name).bind(picture_url).execute(c).await?.rows_affected());
    Ok(())
}

pub async fn set_password(h: H<'_>, id: &str, password_hash: &str) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE users SET password_hash = $2 WHERE id = $1")
        .bind(id).bind(password_hash).execute(c).await?.rows_affected());
    Ok(())
}

/// Records what the identity provider last said of the person's email.
pub async fn set_email(h: H<'_>, id: &str, email: Option<&str>, verified: bool) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE users SET email = $2, email_verified = $3 WHERE id = $1")
        .bind(id).bind(email).bind(verified).execute(c).await?.rows_affected());
    Ok(())
}

/// Whether anyone has an account yet: the first one made runs the server (site admin).
pub async fn any(h: H<'_>) -> Result<bool> {
    let found: Option<String> =
        on!(h, c => sqlx::query_scalar("SELECT id FROM users LIMIT 1").fetch_optional(c).await?);
    Ok(found.is_some())
}

/// A page of every person by login, after the login `after` (the previous page's last).
pub async fn page(h: H<'_>, after: Option<&str>, limit: i64) -> Result<Vec<UserRow>> {
    let sql = format!("SELECT {COLUMNS} FROM users WHERE login > $1 ORDER BY login LIMIT $2");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(after.unwrap_or(""))
        .bind(limit)
        .fetch_all(c)
        .await?))
}

/// Disables the person at `at` (keeping an earlier time), or enables them (`None`).
pub async fn set_disabled(h: H<'_>, id: &str, at: Option<i64>) -> Result<()> {
    on!(h, c => sqlx::query(
        "UPDATE users SET disabled_at = CASE WHEN $2 IS NULL THEN NULL ELSE COALESCE(disabled_at, $2) END WHERE id = $1",
    )
    .bind(id).bind(at).execute(c).await?.rows_affected());
    Ok(())
}
