//! A monorepo's labels. Issues hold a label by id, so a rename moves it on every issue
//! in one step.

use super::{H, Result, on};

/// The labels every monorepo starts with: (name, colour, description).
const DEFAULTS: [(&str, &str, &str); 4] = [
    ("bug", "orange", "Something does not work"),
    ("enhancement", "blue", "New feature or request"),
    (
        "documentation",
        "teal",
        "Improvements or additions to documentation",
    ),
    ("question", "purple", "Further information is requested"),
];

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LabelRow {
    pub id: i64,
    pub name: String,
    pub color: String,
    pub description: Option<String>,
    pub open_issues: i64,
}

/// Gives a new monorepo its four labels (in its create transaction).
pub async fn add_defaults(mut h: H<'_>, monorepo_id: &str) -> Result<()> {
    for (name, color, description) in DEFAULTS {
        insert(h.reborrow(), monorepo_id, name, color, Some(description)).await?;
    }
    Ok(())
}

pub async fn insert(
    h: H<'_>,
    monorepo_id: &str,
    name: &str,
    color: &str,
    description: Option<&str>,
) -> Result<i64> {
    Ok(on!(h, c => sqlx::query_scalar(
        "INSERT INTO labels (monorepo_id, name, name_key, color, description) VALUES ($1, $2, $3, $4, $5)
         RETURNING id",
    )
    .bind(monorepo_id).bind(name).bind(name.to_lowercase()).bind(color).bind(description)
    .fetch_one(c).await?))
}

/// `open_issues` is kept by the database's triggers (migration 0009).
const SELECT: &str = "SELECT l.id, l.name, l.color, l.description, l.open_issues FROM labels l";

/// Every label of the monorepo, by name, with its open issues.
pub async fn all(h: H<'_>, monorepo_id: &str) -> Result<Vec<LabelRow>> {
    let sql = format!("{SELECT} WHERE l.monorepo_id = $1 ORDER BY l.name_key");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).fetch_all(c).await?))
}

/// The label named `name` (any case).
pub async fn by_name(h: H<'_>, monorepo_id: &str, name: &str) -> Result<Option<LabelRow>> {
    let sql = format!("{SELECT} WHERE l.monorepo_id = $1 AND l.name_key = $2");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(monorepo_id).bind(name.to_lowercase()).fetch_optional(c).await?))
}

/// The id and name of the label named `name` (any case), without counting its issues.
pub async fn id_of(h: H<'_>, monorepo_id: &str, name: &str) -> Result<Option<(i64, String)>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT id, name FROM labels WHERE monorepo_id = $1 AND name_key = $2",
    )
    .bind(monorepo_id).bind(name.to_lowercase()).fetch_optional(c).await?))
}

/// How many labels the monorepo has, counted with its row locked (PostgreSQL), so two
/// creates at once cannot both make the 500th.
pub async fn count(h: H<'_>, monorepo_id: &str) -> Result<i64> {
    Ok(on!(h, c => {
        sqlx::query("UPDATE monorepos SET last_issue = last_issue WHERE id = $1")
            .bind(monorepo_id).execute(&mut *c).await?;
        sqlx::query_scalar("SELECT COUNT(*) FROM labels WHERE monorepo_id = $1")
            .bind(monorepo_id).fetch_one(&mut *c).await?
    }))
}

pub async fn update(
    h: H<'_>,
    id: i64,
    name: &str,
    color: &str,
    description: Option<&str>,
) -> Result<()> {
    on!(h, c => sqlx::query(
        "UPDATE labels SET name = $2, name_key = $3, color = $4, description = $5 WHERE id = $1",
    )
    .bind(id).bind(name).bind(name.to_lowercase()).bind(color).bind(description)
    .execute(c).await?.rows_affected());
    Ok(())
}

/// Deletes the label; it leaves every issue with it (cascade), with no timeline items.
pub async fn delete(h: H<'_>, id: i64) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM labels WHERE id = $1").bind(id).execute(c).await?.rows_affected());
    Ok(())
}
