//! Issues, their labels, assignees, links, comments, reactions and timelines, and the
//! full-text index kept beside them (SQLite FTS5 `issue_search`; PostgreSQL
//! `issues.search`, a `simple` tsvector with a GIN index).

use super::{Db, H, Result, on, placeholders};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct IssueRow {
    pub id: i64,
    pub monorepo_id: String,
    pub number: i64,
    pub title: String,
    pub body: String,
    pub body_version: i64,
    pub state: String,
    pub state_reason: Option<String>,
    pub author: String,
    pub project: Option<String>,
    pub comments: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub closed_at: Option<i64>,
}

const COLUMNS: &str = "i.id, i.monorepo_id, i.number, i.title, i.body, i.body_version, i.state, \
    i.state_reason, i.author, i.project, i.comments, i.created_at, i.updated_at, i.closed_at";

/// The next issue number of the monorepo: bumping the counter locks its row
/// (PostgreSQL) or waits for the one writer (SQLite), so no two creates share one.
pub async fn next_number(h: H<'_>, monorepo_id: &str) -> Result<i64> {
    Ok(on!(h, c => sqlx::query_scalar(
        "UPDATE monorepos SET last_issue = last_issue + 1 WHERE id = $1 RETURNING last_issue",
    )
    .bind(monorepo_id).fetch_one(c).await?))
}

/// Inserts the issue and answers its id.
pub async fn insert(h: H<'_>, r: &IssueRow) -> Result<i64> {
    Ok(on!(h, c => sqlx::query_scalar(
        "INSERT INTO issues (monorepo_id, number, title, body, body_version, state, state_reason,
           author, project, comments, created_at, updated_at, closed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
    )
    .bind(&r.monorepo_id).bind(r.number).bind(&r.title).bind(&r.body).bind(r.body_version)
    .bind(&r.state).bind(&r.state_reason).bind(&r.author).bind(&r.project).bind(r.comments)
    .bind(r.created_at).bind(r.updated_at).bind(r.closed_at)
    .fetch_one(c).await?))
}

/// Writes every field of the row back (an update is read, changed, written in one
/// transaction).
pub async fn save(h: H<'_>, r: &IssueRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "UPDATE issues SET title = $2, body = $3, body_version = $4, state = $5, state_reason = $6,
           project = $7, comments = $8, updated_at = $9, closed_at = $10 WHERE id = $1",
    )
    .bind(r.id).bind(&r.title).bind(&r.body).bind(r.body_version).bind(&r.state)
    .bind(&r.state_reason).bind(&r.project).bind(r.comments).bind(r.updated_at).bind(r.closed_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

pub async fn by_number(h: H<'_>, monorepo_id: &str, number: i64) -> Result<Option<IssueRow>> {
    let sql = format!("SELECT {COLUMNS} FROM issues i WHERE i.monorepo_id = $1 AND i.number = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(monorepo_id).bind(number)
        .fetch_optional(c).await?),
    )
}

/// Rewrites the issue's search entry from its title and body, already folded.
pub async fn index(h: H<'_>, id: i64, title: &str, body: &str) -> Result<()> {
    match h.db {
        Db::Sqlite(c) => {
            sqlx::query("DELETE FROM issue_search WHERE rowid = $1")
                .bind(id)
                .execute(&mut *c)
                .await?;
            sqlx::query("INSERT INTO issue_search (rowid, title, body) VALUES ($1, $2, $3)")
                .bind(id)
                .bind(title)
                .bind(body)
                .execute(&mut *c)
                .await?;
        }
        Db::Postgres(c) => {
            sqlx::query(
                "UPDATE issues SET search = to_tsvector('simple', $2) || to_tsvector('simple', $3)
                 WHERE id = $1",
            )
            .bind(id)
            .bind(title)
            .bind(body)
            .execute(&mut *c)
            .await?;
        }
    }
    Ok(())
}

/// What `listIssues` filters by; `search` is already a safe query of the backend's own
/// syntax ([`crate::search`]).
#[derive(Debug, Default)]
pub struct Filter {
    pub labels: Vec<String>,
    pub assignee: Option<String>,
    pub project: Option<String>,
    pub search: Option<String>,
}

/// `listIssues`' orders: each a key and the number as the tie-breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Newest,
    Oldest,
    Updated,
    Comments,
}

impl Sort {
    pub fn parse(s: &str) -> Option<Sort> {
        match s {
            "newest" => Some(Sort::Newest),
            "oldest" => Some(Sort::Oldest),
            "updated" => Some(Sort::Updated),
            "comments" => Some(Sort::Comments),
            _ => None,
        }
    }

    /// The sort key's column.
    fn column(self) -> &'static str {
        match self {
            Sort::Newest | Sort::Oldest => "i.number",
            Sort::Updated => "i.updated_at",
            Sort::Comments => "i.comments",
        }
    }

    fn descending(self) -> bool {
        self != Sort::Oldest
    }

    /// The key of a row, for the cursor after it.
    pub fn key(self, r: &IssueRow) -> i64 {
        match self {
            Sort::Newest | Sort::Oldest => r.number,
            Sort::Updated => r.updated_at,
            Sort::Comments => r.comments,
        }
    }
}

/// The FROM clause and WHERE conditions of a filter (placeholders from `$first` on; `$1`
/// is the monorepo), with their values. On SQLite a search's matches drive the query
/// (`CROSS JOIN` fixes the join order; left to itself the planner walks every issue of
/// the monorepo and probes the matches). A label's issues do not: walking the number
/// index stops after a page, where they would be read and sorted whole.
fn conditions(h: &H<'_>, filter: &Filter, first: usize) -> (String, String, Vec<String>) {
    let sqlite = matches!(h.db, Db::Sqlite(_));
    let mut from = "issues i".to_owned();
    let mut sql = String::new();
    let mut values = Vec::new();
    let mut next = first;
    let mut bind = |sql: &mut String, template: &str, value: String| {
        sql.push_str(&template.replace("$?", &format!("${next}")));
        values.push(value);
        next += 1;
    };
    if let Some(search) = &filter.search {
        if sqlite {
            from = "issue_search CROSS JOIN issues i ON i.id = issue_search.rowid".to_owned();
            bind(&mut sql, " AND issue_search MATCH $?", search.clone());
        } else {
            bind(
                &mut sql,
                " AND i.search @@ to_tsquery('simple', $?)",
                search.clone(),
            );
        }
    }
    for label in &filter.labels {
        bind(
            &mut sql,
            " AND EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id
               WHERE il.issue_id = i.id AND l.name_key = $?)",
            label.to_lowercase(),
        );
    }
    if let Some(login) = &filter.assignee {
        bind(
            &mut sql,
            " AND EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id AND a.login = $?)",
            login.to_ascii_lowercase(),
        );
    }
    if let Some(project) = &filter.project {
        bind(&mut sql, " AND i.project = $?", project.clone());
    }
    (from, sql, values)
}

/// A page of the monorepo's issues in `state` (None: all) after the cursor
/// `(key, number)`, in `sort` order.
pub async fn page(
    h: H<'_>,
    monorepo_id: &str,
    state: Option<&str>,
    filter: &Filter,
    sort: Sort,
    after: Option<(i64, i64)>,
    limit: i64,
) -> Result<Vec<IssueRow>> {
    let (from, cond, values) = conditions(&h, filter, 6);
    let (col, cmp, dir) = match sort.descending() {
        true => (sort.column(), "<", "DESC"),
        false => (sort.column(), ">", "ASC"),
    };
    let sql = format!(
        "SELECT {COLUMNS} FROM {from}
         WHERE i.monorepo_id = $1 AND ($2 IS NULL OR i.state = $2)
           AND ($3 IS NULL OR ({col}, i.number) {cmp} ($4, $5)){cond}
         ORDER BY {col} {dir}, i.number {dir} LIMIT {limit}"
    );
    let (key, number) = after.unzip();
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(monorepo_id).bind(state).bind(after.map(|_| 1_i64)).bind(key).bind(number);
        for v in &values {
            q = q.bind(v);
        }
        q.fetch_all(c).await?
    }))
}

/// How many issues match the filter, (open, closed). No filter or one label alone read
/// the counters the database's triggers keep (migration 0009); other filters count.
pub async fn counts(h: H<'_>, monorepo_id: &str, filter: &Filter) -> Result<(i64, i64)> {
    let single = filter.assignee.is_none() && filter.project.is_none() && filter.search.is_none();
    match filter.labels.as_slice() {
        [] if single => {
            return Ok(on!(h, c => sqlx::query_as(
                "SELECT open_issues, closed_issues FROM monorepos WHERE id = $1",
            )
            .bind(monorepo_id).fetch_optional(c).await?)
            .unwrap_or((0, 0)));
        }
        [label] if single => {
            return Ok(on!(h, c => sqlx::query_as(
                "SELECT open_issues, closed_issues FROM labels WHERE monorepo_id = $1 AND name_key = $2",
            )
            .bind(monorepo_id).bind(label.to_lowercase()).fetch_optional(c).await?)
            .unwrap_or((0, 0)));
        }
        _ => {}
    }
    let (from, cond, values) = conditions(&h, filter, 2);
    let sql = format!(
        "SELECT COALESCE(SUM(CASE WHEN i.state = 'open' THEN 1 ELSE 0 END), 0),
                COALESCE(SUM(CASE WHEN i.state = 'closed' THEN 1 ELSE 0 END), 0)
         FROM {from} WHERE i.monorepo_id = $1{cond}"
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as::<_, (i64, i64)>(sqlx::AssertSqlSafe(sql)).bind(monorepo_id);
        for v in &values {
            q = q.bind(v);
        }
        q.fetch_one(c).await?
    }))
}

/// (issue id, name) of the labels of these issues, by name.
pub async fn labels_of(h: H<'_>, ids: &[i64]) -> Result<Vec<(i64, String)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT il.issue_id, l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id
         WHERE il.issue_id IN ({}) ORDER BY l.name_key",
        placeholders(1, ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

/// (issue id, login) of the assignees of these issues, by login.
pub async fn assignees_of(h: H<'_>, ids: &[i64]) -> Result<Vec<(i64, String)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT issue_id, login FROM issue_assignees WHERE issue_id IN ({}) ORDER BY login",
        placeholders(1, ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

pub async fn add_label(h: H<'_>, issue_id: i64, label_id: i64) -> Result<bool> {
    let n = on!(h, c => sqlx::query(
        "INSERT INTO issue_labels (issue_id, label_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(issue_id).bind(label_id).execute(c).await?.rows_affected());
    Ok(n > 0)
}

pub async fn remove_label(h: H<'_>, issue_id: i64, label_id: i64) -> Result<bool> {
    let n = on!(h, c => sqlx::query("DELETE FROM issue_labels WHERE issue_id = $1 AND label_id = $2")
        .bind(issue_id).bind(label_id).execute(c).await?.rows_affected());
    Ok(n > 0)
}

pub async fn add_assignee(h: H<'_>, issue_id: i64, login: &str) -> Result<bool> {
    let n = on!(h, c => sqlx::query(
        "INSERT INTO issue_assignees (issue_id, login) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(issue_id).bind(login).execute(c).await?.rows_affected());
    Ok(n > 0)
}

pub async fn remove_assignee(h: H<'_>, issue_id: i64, login: &str) -> Result<bool> {
    let n = on!(h, c => sqlx::query("DELETE FROM issue_assignees WHERE issue_id = $1 AND login = $2")
        .bind(issue_id).bind(login).execute(c).await?.rows_affected());
    Ok(n > 0)
}

pub async fn links(h: H<'_>, issue_id: i64) -> Result<Vec<(String, String)>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT repo, branch FROM issue_links WHERE issue_id = $1 ORDER BY repo, branch",
    )
    .bind(issue_id).fetch_all(c).await?))
}

pub async fn add_link(h: H<'_>, issue_id: i64, repo: &str, branch: &str) -> Result<bool> {
    let n = on!(h, c => sqlx::query(
        "INSERT INTO issue_links (issue_id, repo, branch) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
    )
    .bind(issue_id).bind(repo).bind(branch).execute(c).await?.rows_affected());
    Ok(n > 0)
}

pub async fn remove_link(h: H<'_>, issue_id: i64, repo: &str, branch: &str) -> Result<bool> {
    let n = on!(h, c => sqlx::query(
        "DELETE FROM issue_links WHERE issue_id = $1 AND repo = $2 AND branch = $3",
    )
    .bind(issue_id).bind(repo).bind(branch).execute(c).await?.rows_affected());
    Ok(n > 0)
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CommentRow {
    pub id: i64,
    pub issue_id: i64,
    pub author: String,
    pub body: String,
    pub created_at: i64,
    pub updated_at: i64,
}

pub async fn insert_comment(h: H<'_>, r: &CommentRow) -> Result<i64> {
    Ok(on!(h, c => sqlx::query_scalar(
        "INSERT INTO issue_comments (issue_id, author, body, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
    )
    .bind(r.issue_id).bind(&r.author).bind(&r.body).bind(r.created_at).bind(r.updated_at)
    .fetch_one(c).await?))
}

pub async fn comment(h: H<'_>, issue_id: i64, id: i64) -> Result<Option<CommentRow>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT id, issue_id, author, body, created_at, updated_at FROM issue_comments
         WHERE issue_id = $1 AND id = $2",
    )
    .bind(issue_id).bind(id).fetch_optional(c).await?))
}

pub async fn update_comment(h: H<'_>, id: i64, body: &str, at: i64) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE issue_comments SET body = $2, updated_at = $3 WHERE id = $1")
        .bind(id).bind(body).bind(at).execute(c).await?.rows_affected());
    Ok(())
}

/// Deletes a comment; its timeline item goes with it (cascade), and its reactions.
pub async fn delete_comment(mut h: H<'_>, issue_id: i64, id: i64) -> Result<()> {
    on!(h.reborrow(), c => sqlx::query("DELETE FROM issue_reactions WHERE issue_id = $1 AND comment_id = $2")
        .bind(issue_id).bind(id).execute(c).await?.rows_affected());
    on!(h, c => sqlx::query("DELETE FROM issue_comments WHERE id = $1").bind(id).execute(c).await?.rows_affected());
    Ok(())
}

/// Gives (true) or takes back (false) a reaction; answers whether anything changed.
pub async fn react(
    h: H<'_>,
    issue_id: i64,
    comment_id: i64,
    login: &str,
    content: &str,
    give: bool,
) -> Result<bool> {
    let n = on!(h, c => if give {
        sqlx::query(
            "INSERT INTO issue_reactions (issue_id, comment_id, login, content) VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING",
        )
        .bind(issue_id).bind(comment_id).bind(login).bind(content).execute(c).await?.rows_affected()
    } else {
        sqlx::query(
            "DELETE FROM issue_reactions WHERE issue_id = $1 AND comment_id = $2 AND login = $3 AND content = $4",
        )
        .bind(issue_id).bind(comment_id).bind(login).bind(content).execute(c).await?.rows_affected()
    });
    Ok(n > 0)
}

/// (comment id, content, count, whether `login` gave it) of an issue's reactions
/// (comment 0: the issue's own).
pub async fn reactions(
    h: H<'_>,
    issue_id: i64,
    login: &str,
) -> Result<Vec<(i64, String, i64, bool)>> {
    let rows: Vec<(i64, String, i64, i64)> = on!(h, c => sqlx::query_as(
        "SELECT comment_id, content, COUNT(*), SUM(CASE WHEN login = $2 THEN 1 ELSE 0 END)
         FROM issue_reactions WHERE issue_id = $1 GROUP BY comment_id, content",
    )
    .bind(issue_id).bind(login).fetch_all(c).await?);
    Ok(rows
        .into_iter()
        .map(|(comment, content, n, mine)| (comment, content, n, mine > 0))
        .collect())
}

/// Everyone who wrote the issue or a comment, or is assigned, by login.
pub async fn participants(h: H<'_>, issue_id: i64) -> Result<Vec<String>> {
    Ok(on!(h, c => sqlx::query_scalar(
        "SELECT author FROM issues WHERE id = $1
         UNION SELECT author FROM issue_comments WHERE issue_id = $1
         UNION SELECT login FROM issue_assignees WHERE issue_id = $1
         ORDER BY 1",
    )
    .bind(issue_id).fetch_all(c).await?))
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ItemRow {
    pub id: i64,
    pub kind: String,
    pub actor: String,
    pub comment_id: Option<i64>,
    pub details: String,
    pub created_at: i64,
    pub body: Option<String>,
    pub updated_at: Option<i64>,
}

/// Appends a timeline item and answers its id.
pub async fn add_item(
    h: H<'_>,
    issue_id: i64,
    kind: &str,
    actor: &str,
    comment_id: Option<i64>,
    details: &str,
    at: i64,
) -> Result<i64> {
    Ok(on!(h, c => sqlx::query_scalar(
        "INSERT INTO issue_timeline (issue_id, kind, actor, comment_id, details, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(issue_id).bind(kind).bind(actor).bind(comment_id).bind(details).bind(at)
    .fetch_one(c).await?))
}

/// Timeline items of the issue, oldest first: after `after`, or (`newest`) the newest
/// `limit` ones.
pub async fn items(
    h: H<'_>,
    issue_id: i64,
    after: i64,
    limit: i64,
    newest: bool,
) -> Result<Vec<ItemRow>> {
    let order = if newest { "DESC" } else { "ASC" };
    let sql = format!(
        "SELECT t.id, t.kind, t.actor, t.comment_id, t.details, t.created_at, c.body, c.updated_at
         FROM issue_timeline t LEFT JOIN issue_comments c ON c.id = t.comment_id
         WHERE t.issue_id = $1 AND t.id > $2 ORDER BY t.id {order} LIMIT {limit}"
    );
    let mut rows: Vec<ItemRow> = on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(issue_id).bind(after).fetch_all(c).await?);
    if newest {
        rows.reverse();
    }
    Ok(rows)
}

pub async fn item_count(h: H<'_>, issue_id: i64) -> Result<i64> {
    Ok(
        on!(h, c => sqlx::query_scalar("SELECT COUNT(*) FROM issue_timeline WHERE issue_id = $1")
        .bind(issue_id).fetch_one(c).await?),
    )
}

/// The issue number an `Idempotency-Key` of `user_id` made within the last 24 hours,
/// with the request it was made by.
pub async fn idempotent(
    h: H<'_>,
    user_id: &str,
    key: &str,
    since: i64,
) -> Result<Option<(String, String, i64)>> {
    Ok(on!(h, c => sqlx::query_as(
        "SELECT request, monorepo_id, number FROM idempotency_keys
         WHERE user_id = $1 AND key = $2 AND created_at >= $3",
    )
    .bind(user_id).bind(key).bind(since).fetch_optional(c).await?))
}

/// Records the key (replacing an expired one) and forgets the person's expired keys.
pub async fn remember_key(
    mut h: H<'_>,
    user_id: &str,
    key: &str,
    request: &str,
    monorepo_id: &str,
    number: i64,
    (now, since): (i64, i64),
) -> Result<()> {
    on!(h.reborrow(), c => sqlx::query("DELETE FROM idempotency_keys WHERE user_id = $1 AND created_at < $2")
        .bind(user_id).bind(since).execute(c).await?.rows_affected());
    on!(h, c => sqlx::query(
        "INSERT INTO idempotency_keys (user_id, key, request, monorepo_id, number, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(user_id).bind(key).bind(request).bind(monorepo_id).bind(number).bind(now)
    .execute(c).await?.rows_affected());
    Ok(())
}

/// The issues of the monorepo linked to any of `branches`, (repo, branch) pairs (a
/// merge's, or a change's), as (repo, branch, issue number).
pub async fn linked_to_any(
    h: H<'_>,
    monorepo_id: &str,
    branches: &[(&str, &str)],
) -> Result<Vec<(String, String, i64)>> {
    if branches.is_empty() {
        return Ok(Vec::new());
    }
    let any = (0..branches.len())
        .map(|i| format!("(l.repo = ${} AND l.branch = ${})", 2 + 2 * i, 3 + 2 * i))
        .collect::<Vec<_>>()
        .join(" OR ");
    let sql = format!(
        "SELECT l.repo, l.branch, i.number FROM issue_links l JOIN issues i ON i.id = l.issue_id
         WHERE i.monorepo_id = $1 AND ({any})"
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone())).bind(monorepo_id);
        for (repo, branch) in branches {
            q = q.bind(*repo).bind(*branch);
        }
        q.fetch_all(c).await?
    }))
}

/// The open issues assigned to `login` in these monorepos: (monorepo id, number, title,
/// updated at), most recently updated first.
pub async fn assigned_open(
    h: H<'_>,
    login: &str,
    monorepo_ids: &[String],
) -> Result<Vec<(String, i64, String, i64)>> {
    if monorepo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT i.monorepo_id, i.number, i.title, i.updated_at
         FROM issue_assignees a JOIN issues i ON i.id = a.issue_id
         WHERE a.login = $1 AND i.state = 'open' AND i.monorepo_id IN ({})
         ORDER BY i.updated_at DESC, i.number DESC",
        placeholders(2, monorepo_ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(login);
        for id in monorepo_ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}
