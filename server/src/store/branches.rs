//! Branches as stored: heads recorded from the git door, authors, state, merge facts and
//! the computed facts with the (main, head) they were computed for.

use super::{H, Result, on, placeholders};

/// A branch's stored fields. `sort_at` is the list order: the last push of an open
/// branch, the merge time of a merged one.
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub struct BranchRow {
    pub repo_id: String,
    pub name: String,
    pub head: String,
    pub author: Option<String>,
    pub pusher: Option<String>,
    pub state: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub created_at: i64,
    pub pushed_at: i64,
    pub sort_at: i64,
    pub merged_at: Option<i64>,
    pub merged_by: Option<String>,
    pub merged_agent: Option<String>,
    pub merge_sha: Option<String>,
    pub forced: Option<bool>,
    #[sqlx(flatten)]
    pub facts: Facts,
    #[sqlx(flatten)]
    pub auto_merge: AutoMerge,
}

/// Who armed the branch to merge itself once its gate passes (all null: not armed).
#[derive(Debug, Clone, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct AutoMerge {
    /// The armer's user id: the merge is theirs.
    pub auto_merge_user: Option<String>,
    pub auto_merge_by: Option<String>,
    /// The agent of the session whose credential armed it.
    pub auto_merge_agent: Option<String>,
    pub auto_merge_at: Option<i64>,
}

impl AutoMerge {
    pub fn armed(&self) -> bool {
        self.auto_merge_by.is_some()
    }
}

/// Computed facts and the (main, head) they are for.
#[derive(Debug, Clone, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct Facts {
    pub facts_head: Option<String>,
    /// Main's head, or the zero sha when the repo had no main.
    pub facts_main: Option<String>,
    pub facts_at: Option<i64>,
    pub ahead: Option<i64>,
    pub behind: Option<i64>,
    pub base: Option<String>,
    /// `clean` or `conflicts`.
    pub mergeable: Option<String>,
    /// JSON array of conflicting paths.
    pub conflicts: Option<String>,
}

const COLUMNS: &str = "repo_id, name, head, author, pusher, state, title, description, created_at, pushed_at, \
     sort_at, merged_at, merged_by, merged_agent, merge_sha, forced, \
     facts_head, facts_main, facts_at, ahead, behind, base, mergeable, conflicts, \
     auto_merge_user, auto_merge_by, auto_merge_agent, auto_merge_at";

/// The repo's branches that git still has (open or merged), by name.
pub async fn live(h: H<'_>, repo_id: &str) -> Result<Vec<BranchRow>> {
    live_in(h, &[repo_id]).await
}

/// The same for several repos (a change's), by repo, then by name.
pub async fn live_in(h: H<'_>, repo_ids: &[&str]) -> Result<Vec<BranchRow>> {
    if repo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {COLUMNS} FROM branches WHERE repo_id IN ({}) AND state <> 'deleted' ORDER BY repo_id, name",
        placeholders(1, repo_ids.len())
    );
    super::rows_for(h, sql, repo_ids).await
}

/// The branch called `name` in each of several repos that has one (a change's branches).
pub async fn named_in(h: H<'_>, repo_ids: &[&str], name: &str) -> Result<Vec<BranchRow>> {
    if repo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let n = repo_ids.len();
    let sql = format!(
        "SELECT {COLUMNS} FROM branches WHERE repo_id IN ({}) AND name = ${}",
        placeholders(1, n),
        n + 1
    );
    let binds: Vec<&str> = repo_ids.iter().copied().chain([name]).collect();
    super::rows_for(h, sql, &binds).await
}

pub async fn get(h: H<'_>, repo_id: &str, name: &str) -> Result<Option<BranchRow>> {
    let sql = format!("SELECT {COLUMNS} FROM branches WHERE repo_id = $1 AND name = $2");
    Ok(
        on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).bind(name).fetch_optional(c).await?),
    )
}

/// Where a list page starts: after the row with this order time and name.
pub struct After {
    pub sort_at: i64,
    pub name: String,
}

/// A page of the list: newest `sort_at` first, ties by name; `states` filters (never
/// `deleted` unless asked). `sort_at <= $2` is implied by the cursor's condition but
/// lets the index scan start at the cursor rather than at the newest row.
pub async fn page(
    h: H<'_>,
    repo_id: &str,
    states: &[&str],
    after: Option<&After>,
    limit: i64,
) -> Result<Vec<BranchRow>> {
    let open = states.contains(&"open");
    let merged = states.contains(&"merged");
    let deleted = states.contains(&"deleted");
    let (sort_at, name) = after.map_or((i64::MAX, ""), |a| (a.sort_at, a.name.as_str()));
    let sql = format!(
        "SELECT {COLUMNS} FROM branches
         WHERE repo_id = $1 AND sort_at <= $2 AND (sort_at < $2 OR (sort_at = $2 AND name > $3))
           AND ((state = 'open' AND $4) OR (state = 'merged' AND $5) OR (state = 'deleted' AND $6))
         ORDER BY sort_at DESC, name LIMIT $7"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(sort_at).bind(name).bind(open).bind(merged).bind(deleted).bind(limit)
        .fetch_all(c).await?))
}

/// Writes the stored fields (insert or replace); facts are kept, and merge facts too
/// unless the branch is open again (pushed after its merge).
pub async fn put(h: H<'_>, row: &BranchRow) -> Result<()> {
    on!(h, c => sqlx::query(
        "INSERT INTO branches (repo_id, name, head, author, pusher, state, title, description, created_at, pushed_at, sort_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (repo_id, name) DO UPDATE SET head = excluded.head, author = excluded.author,
           pusher = excluded.pusher, state = excluded.state, title = excluded.title,
           description = excluded.description, created_at = excluded.created_at,
           pushed_at = excluded.pushed_at, sort_at = excluded.sort_at,
           merged_at = CASE WHEN excluded.state = 'open' THEN NULL ELSE branches.merged_at END,
           merged_by = CASE WHEN excluded.state = 'open' THEN NULL ELSE branches.merged_by END,
           merged_agent = CASE WHEN excluded.state = 'open' THEN NULL ELSE branches.merged_agent END,
           merge_sha = CASE WHEN excluded.state = 'open' THEN NULL ELSE branches.merge_sha END,
           forced = CASE WHEN excluded.state = 'open' THEN NULL ELSE branches.forced END,
           auto_merge_user = CASE WHEN excluded.state = 'open' THEN branches.auto_merge_user END,
           auto_merge_by = CASE WHEN excluded.state = 'open' THEN branches.auto_merge_by END,
           auto_merge_agent = CASE WHEN excluded.state = 'open' THEN branches.auto_merge_agent END,
           auto_merge_at = CASE WHEN excluded.state = 'open' THEN branches.auto_merge_at END",
    )
    .bind(&row.repo_id).bind(&row.name).bind(&row.head).bind(&row.author).bind(&row.pusher)
    .bind(&row.state).bind(&row.title).bind(&row.description).bind(row.created_at).bind(row.pushed_at)
    .bind(row.sort_at)
    .execute(c).await?.rows_affected());
    Ok(())
}

/// Sets title and description.
pub async fn set_text(
    h: H<'_>,
    repo_id: &str,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
) -> Result<()> {
    on!(h, c => sqlx::query("UPDATE branches SET title = $3, description = $4 WHERE repo_id = $1 AND name = $2")
        .bind(repo_id).bind(name).bind(title).bind(description).execute(c).await?.rows_affected());
    Ok(())
}

/// Marks the branch merged with its merge facts (and no longer armed to merge itself).
pub async fn set_merged(
    h: H<'_>,
    repo_id: &str,
    m: &super::merges::MergeRow,
) -> Result<Option<BranchRow>> {
    let sql = format!(
        "UPDATE branches SET state = 'merged', sort_at = $3, merged_at = $3, merged_by = $4,
           merged_agent = $5, merge_sha = $6, forced = $7, auto_merge_user = NULL,
           auto_merge_by = NULL, auto_merge_agent = NULL, auto_merge_at = NULL
         WHERE repo_id = $1 AND name = $2 RETURNING {COLUMNS}"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(repo_id).bind(&m.branch).bind(m.merged_at).bind(&m.merged_by).bind(&m.merged_agent)
        .bind(&m.sha).bind(m.forced)
        .fetch_optional(c).await?))
}

/// Marks a branch an import brought in merged: main had its head before the import,
/// so there is no merge commit of this server (`merge_sha` stays null) and it counts as
/// merged when the importer brought it.
pub async fn set_merged_before(
    h: H<'_>,
    repo_id: &str,
    name: &str,
    at: i64,
    by: Option<&str>,
) -> Result<()> {
    on!(h, c => sqlx::query(
        "UPDATE branches SET state = 'merged', sort_at = $3, merged_at = $3, merged_by = $4,
           merged_agent = NULL, merge_sha = NULL, forced = FALSE, auto_merge_user = NULL,
           auto_merge_by = NULL, auto_merge_agent = NULL, auto_merge_at = NULL
         WHERE repo_id = $1 AND name = $2",
    )
    .bind(repo_id).bind(name).bind(at).bind(by)
    .execute(c).await?.rows_affected());
    Ok(())
}

/// Arms the open branch to merge itself as `a` says; answers whether it is armed now
/// (false: the branch is not open).
pub async fn arm(h: H<'_>, repo_id: &str, name: &str, a: &AutoMerge) -> Result<bool> {
    let n = on!(h, c => sqlx::query(
        "UPDATE branches SET auto_merge_user = $3, auto_merge_by = $4, auto_merge_agent = $5,
           auto_merge_at = $6
         WHERE repo_id = $1 AND name = $2 AND state = 'open'",
    )
    .bind(repo_id).bind(name).bind(&a.auto_merge_user).bind(&a.auto_merge_by)
    .bind(&a.auto_merge_agent).bind(a.auto_merge_at)
    .execute(c).await?.rows_affected());
    Ok(n == 1)
}

/// Disarms the branch; answers whether it was armed (so one disarming writes its event,
/// whichever server or request comes second).
pub async fn disarm(h: H<'_>, repo_id: &str, name: &str) -> Result<bool> {
    let n = on!(h, c => sqlx::query(
        "UPDATE branches SET auto_merge_user = NULL, auto_merge_by = NULL,
           auto_merge_agent = NULL, auto_merge_at = NULL
         WHERE repo_id = $1 AND name = $2 AND auto_merge_by IS NOT NULL",
    )
    .bind(repo_id).bind(name)
    .execute(c).await?.rows_affected());
    Ok(n == 1)
}

/// The repo's open branches armed to merge themselves, oldest arming first.
pub async fn armed(h: H<'_>, repo_id: &str) -> Result<Vec<BranchRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM branches
         WHERE repo_id = $1 AND auto_merge_by IS NOT NULL AND state = 'open'
         ORDER BY auto_merge_at, name"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id).fetch_all(c).await?))
}

/// Every repo with an open branch armed to merge itself.
pub async fn repos_with_armed(h: H<'_>) -> Result<Vec<String>> {
    Ok(on!(h, c => sqlx::query_scalar(
        "SELECT DISTINCT repo_id FROM branches WHERE auto_merge_by IS NOT NULL AND state = 'open'",
    )
    .fetch_all(c).await?))
}

/// Stores computed facts, only while the branch still has the head they are for;
/// answers whether they were stored.
pub async fn set_facts(h: H<'_>, repo_id: &str, name: &str, f: &Facts) -> Result<bool> {
    let n = on!(h, c => sqlx::query(
        "UPDATE branches SET facts_head = $3, facts_main = $4, facts_at = $5, ahead = $6, behind = $7,
           base = $8, mergeable = $9, conflicts = $10
         WHERE repo_id = $1 AND name = $2 AND head = $3 AND state <> 'deleted'",
    )
    .bind(repo_id).bind(name).bind(&f.facts_head).bind(&f.facts_main).bind(f.facts_at)
    .bind(f.ahead).bind(f.behind).bind(&f.base).bind(&f.mergeable).bind(&f.conflicts)
    .execute(c).await?.rows_affected());
    Ok(n == 1)
}

/// Open branches that should have fresh facts in each of the repos `repo_ids`, as (repo
/// id, branch): pushed since `since`, plus the `sweep` most recently pushed. Each repo
/// has its own parts of the one statement, so each reads only its newest open branches.
pub async fn wanting_facts(
    h: H<'_>,
    repo_ids: &[&str],
    since: i64,
    sweep: i64,
) -> Result<Vec<(String, String)>> {
    let sql = (0..repo_ids.len())
        .map(|i| {
            let id = i + 3;
            format!(
                "SELECT repo_id, name FROM branches WHERE repo_id = ${id} AND state = 'open' AND pushed_at >= $1
                 UNION
                 SELECT repo_id, name FROM (SELECT repo_id, name FROM branches
                   WHERE repo_id = ${id} AND state = 'open' ORDER BY pushed_at DESC LIMIT $2) AS recent{i}"
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ");
    if sql.is_empty() {
        return Ok(Vec::new());
    }
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone())).bind(since).bind(sweep);
        for id in repo_ids {
            q = q.bind(*id);
        }
        q.fetch_all(c).await?
    }))
}

/// The open branches `login` authored or pushed in any of `monorepo_ids`, newest push
/// first.
pub async fn open_of_person_in(
    h: H<'_>,
    monorepo_ids: &[String],
    login: &str,
) -> Result<Vec<BranchRow>> {
    if monorepo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = placeholders(2, monorepo_ids.len());
    let sql = format!(
        "SELECT {COLUMNS} FROM branches
         WHERE repo_id IN (SELECT id FROM repos WHERE monorepo_id IN ({list})) AND state = 'open'
           AND (author = $1 OR pusher = $1)
         ORDER BY pushed_at DESC, name"
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(login);
        for id in monorepo_ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}

/// How many open branches each of `monorepo_ids` has across its repos (none listed
/// for a monorepo without one).
pub async fn count_open_in(h: H<'_>, monorepo_ids: &[String]) -> Result<Vec<(String, i64)>> {
    if monorepo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT r.monorepo_id, COUNT(*) FROM branches b JOIN repos r ON r.id = b.repo_id
         WHERE r.monorepo_id IN ({}) AND b.state = 'open' GROUP BY r.monorepo_id",
        placeholders(1, monorepo_ids.len())
    );
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        for id in monorepo_ids {
            q = q.bind(id);
        }
        q.fetch_all(c).await?
    }))
}
