//! Merges into main: written before main's ref moves, marked done when recorded.

use super::{H, Result, on, placeholders};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MergeRow {
    pub repo_id: String,
    /// The merge commit.
    pub sha: String,
    pub branch: String,
    /// The branch head that was merged.
    pub head: String,
    pub merged_by: String,
    pub merged_agent: Option<String>,
    pub forced: bool,
    pub merged_at: i64,
    pub done: bool,
    /// The change (mergeChange) this merge lands with, if any: recorded only with the
    /// change's other merges.
    pub change_id: Option<String>,
    /// For a change's merge: main's head before it moved, where a change that cannot land
    /// whole puts it back.
    pub main_before: Option<String>,
}

const COLUMNS: &str = "repo_id, sha, branch, head, merged_by, merged_agent, forced, merged_at, done, \
     change_id, main_before";

/// Records a merge about to move main. The same commit made again (a merge retried in
/// the same second after a crash left its first try pending) takes the old row's place.
pub async fn insert(h: H<'_>, m: &MergeRow) -> Result<()> {
    insert_all(h, std::slice::from_ref(m)).await
}

/// Records the merges of a change about to move their mains, in one statement.
pub async fn insert_all(h: H<'_>, all: &[MergeRow]) -> Result<()> {
    if all.is_empty() {
        return Ok(());
    }
    let rows = (0..all.len())
        .map(|i| format!("({})", placeholders(1 + i * 11, 11)))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "INSERT INTO merges (repo_id, sha, branch, head, merged_by, merged_agent, forced, merged_at, done,
           change_id, main_before)
         VALUES {rows}
         ON CONFLICT (repo_id, sha) DO UPDATE SET branch = excluded.branch, head = excluded.head,
           merged_by = excluded.merged_by, merged_agent = excluded.merged_agent,
           forced = excluded.forced, merged_at = excluded.merged_at, done = excluded.done,
           change_id = excluded.change_id, main_before = excluded.main_before"
    );
    on!(h, c => {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
        for m in all {
            q = q.bind(&m.repo_id).bind(&m.sha).bind(&m.branch).bind(&m.head).bind(&m.merged_by)
                .bind(&m.merged_agent).bind(m.forced).bind(m.merged_at).bind(m.done)
                .bind(&m.change_id).bind(&m.main_before);
        }
        q.execute(c).await?.rows_affected()
    });
    Ok(())
}

/// The merges of the repos `repo_ids` (one, or a change's) whose ref move has not been
/// recorded yet: by repo, each's oldest first.
pub async fn pending_in(h: H<'_>, repo_ids: &[&str]) -> Result<Vec<MergeRow>> {
    if repo_ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {COLUMNS} FROM merges WHERE repo_id IN ({}) AND NOT done ORDER BY repo_id, merged_at",
        placeholders(1, repo_ids.len())
    );
    super::rows_for(h, sql, repo_ids).await
}

/// The unrecorded merges of every change (each change's merges together, by change).
pub async fn pending_changes(h: H<'_>) -> Result<Vec<MergeRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM merges WHERE change_id IS NOT NULL AND NOT done \
         ORDER BY change_id, repo_id"
    );
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_all(c).await?))
}

/// The unrecorded merges of one change.
pub async fn pending_of_change(h: H<'_>, change_id: &str) -> Result<Vec<MergeRow>> {
    let sql =
        format!("SELECT {COLUMNS} FROM merges WHERE change_id = $1 AND NOT done ORDER BY repo_id");
    Ok(on!(h, c => sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(change_id).fetch_all(c).await?))
}

/// Drops a change's unrecorded merges (the change was put back).
pub async fn remove_change(h: H<'_>, change_id: &str) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM merges WHERE change_id = $1 AND NOT done")
        .bind(change_id).execute(c).await?.rows_affected());
    Ok(())
}

/// Marks the merges `landed`, (repo id, merge commit) pairs, recorded: one statement
/// for a recording's merges, in one repo or a change's several.
pub async fn set_done(h: H<'_>, landed: &[(&str, &str)]) -> Result<()> {
    if landed.is_empty() {
        return Ok(());
    }
    let any = super::repo_pairs(1, landed.len(), "sha");
    let sql = format!("UPDATE merges SET done = TRUE WHERE {any}");
    on!(h, c => {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
        for (repo_id, sha) in landed {
            q = q.bind(*repo_id).bind(*sha);
        }
        q.execute(c).await?.rows_affected()
    });
    Ok(())
}

pub async fn remove(h: H<'_>, repo_id: &str, sha: &str) -> Result<()> {
    on!(h, c => sqlx::query("DELETE FROM merges WHERE repo_id = $1 AND sha = $2 AND NOT done")
        .bind(repo_id).bind(sha).execute(c).await?.rows_affected());
    Ok(())
}

/// Branch names of the recorded merge commits among `shas`, for commit pages on main.
pub async fn branches_of(
    h: H<'_>,
    repo_id: &str,
    shas: &[String],
) -> Result<Vec<(String, String)>> {
    if shas.is_empty() {
        return Ok(Vec::new());
    }
    let list = super::placeholders(2, shas.len());
    let sql =
        format!("SELECT sha, branch FROM merges WHERE repo_id = $1 AND done AND sha IN ({list})");
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id);
        for s in shas {
            q = q.bind(s);
        }
        q.fetch_all(c).await?
    }))
}

/// The recorded merges among the commits `shas`.
pub async fn done_among(h: H<'_>, repo_id: &str, shas: &[String]) -> Result<Vec<MergeRow>> {
    if shas.is_empty() {
        return Ok(Vec::new());
    }
    let list = super::placeholders(2, shas.len());
    let sql =
        format!("SELECT {COLUMNS} FROM merges WHERE repo_id = $1 AND done AND sha IN ({list})");
    Ok(on!(h, c => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(repo_id);
        for s in shas {
            q = q.bind(s);
        }
        q.fetch_all(c).await?
    }))
}
