//! Release notes written from the merges since the last published release: main's
//! first-parent chain from the release commit back to the previous release's commit,
//! each merge with its branch's title, branch and who merged it.

use std::collections::HashMap;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::store::releases::{self, ReleaseRow};
use crate::store::repos::RepoRow;
use crate::store::{H, branches, merges};

/// Commits of main read at most, looking for the previous release.
const WALK_CAP: usize = 10_000;

/// The last published release before `release` (before it was published, for a
/// published one; the newest other one, for a draft or a release to be made).
pub async fn previous(
    h: H<'_>,
    repo: &RepoRow,
    release: Option<&ReleaseRow>,
) -> ApiResult<Option<ReleaseRow>> {
    let before = release.and_then(|r| r.published_at);
    let found = releases::latest(h, &repo.id, before).await?;
    Ok(found.filter(|p| release.is_none_or(|r| r.id != p.id)))
}

/// The notes for a release at `upto` whose previous release is `previous`.
pub async fn generate(
    mut h: H<'_>,
    state: &AppState,
    repo: &RepoRow,
    upto: &str,
    previous: Option<&ReleaseRow>,
) -> ApiResult<String> {
    let (tip, stop) = (upto.to_owned(), previous.map(|p| p.sha.clone()));
    let chain: Vec<String> = state
        .git(repo, move |git| {
            let tip = git
                .commit_exists(&tip)?
                .ok_or_else(|| ApiError::not_found("commit"))?;
            let stop = match stop {
                Some(s) => git.commit_exists(&s)?,
                None => None,
            };
            Ok::<_, ApiError>(
                git.first_parents(tip, stop, WALK_CAP)?
                    .into_iter()
                    .map(|id| id.to_string())
                    .collect(),
            )
        })
        .await?;
    let mut found: HashMap<String, merges::MergeRow> = HashMap::new();
    for chunk in chain.chunks(500) {
        for m in merges::done_among(h.reborrow(), &repo.id, chunk).await? {
            found.insert(m.sha.clone(), m);
        }
    }
    let mut lines = Vec::new();
    for sha in chain.iter().rev() {
        let Some(m) = found.get(sha) else {
            continue;
        };
        let title = branches::get(h.reborrow(), &repo.id, &m.branch)
            .await?
            .and_then(|b| b.title)
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| m.branch.clone());
        lines.push(format!(
            "- {} (`{}`) by @{}",
            title.trim(),
            m.branch,
            m.merged_by
        ));
    }
    let since = previous.map_or(String::new(), |p| format!(" since {}", p.tag));
    if lines.is_empty() {
        return Ok(format!("No merges{since}."));
    }
    Ok(format!("## Merged{since}\n\n{}\n", lines.join("\n")))
}
