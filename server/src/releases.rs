//! Releases: what the release routes share. A release names a commit on main by its
//! tag; publishing makes the tag when git lacks it, and from then on the tag is locked
//! (the git door refuses to move or delete it). Files live on disk under
//! `<data dir>/releases/`, named by a random blob id, their rows in the database.

pub mod files;
pub mod notes;

use std::path::Path;

use axum::http::StatusCode;
use serde_json::json;
use svc_protocol::ErrorCode;
use svc_protocol::release::{LATEST, Release, ReleaseFile};

use crate::config::Config;
use crate::error::{ApiError, ApiResult};
use crate::git::merge;
use crate::git::record::{self, Actor, Pending};
use crate::state::AppState;
use crate::store::monorepos::MonorepoRow;
use crate::store::releases::{self, FileRow, ReleaseRow};
use crate::store::repos::{self, RepoRow};
use crate::store::{H, Store, time_of};

/// A tag name: what git takes for `refs/tags/<name>`, at most 200 characters, and not
/// `latest` (which names the newest published release in download paths).
pub fn check_tag(tag: &str) -> ApiResult<()> {
    let why = if tag == LATEST {
        Some("latest names the newest published release")
    } else if tag.len() > 200 {
        Some("it is over 200 characters")
    } else {
        crate::git::branch_name::invalid_reason(tag)
    };
    match why {
        Some(why) => Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("{tag:?} cannot be a release tag: {why}"),
        )),
        None => Ok(()),
    }
}

/// A release file's name: 1 to 255 bytes, no slash or backslash, no control
/// characters, not `.` or `..`.
pub fn check_file_name(name: &str) -> ApiResult<()> {
    let bad = name.is_empty()
        || name.len() > 255
        || name == "."
        || name == ".."
        || name
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_control());
    if bad {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!(
                "{name:?} cannot be a file name: 1 to 255 bytes without slashes or control characters, not . or .."
            ),
        ));
    }
    Ok(())
}

/// A release title (at most 256 characters) and notes (at most 125,000).
pub fn check_text(title: Option<&str>, notes: Option<&str>) -> ApiResult<()> {
    if title.is_some_and(|t| t.chars().count() > 256) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "a release title is at most 256 characters",
        ));
    }
    if notes.is_some_and(|n| n.chars().count() > 125_000) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "release notes are at most 125,000 characters",
        ));
    }
    Ok(())
}

/// The release `tag` of `repo` (`latest`: the newest published one), or 404.
pub async fn find(h: H<'_>, repo: &RepoRow, tag: &str) -> ApiResult<ReleaseRow> {
    let found = if tag == LATEST {
        releases::latest(h, &repo.id, None).await?
    } else {
        releases::by_tag(h, &repo.id, tag).await?
    };
    found.ok_or_else(|| {
        if tag == LATEST {
            ApiError::not_found("published release")
        } else {
            ApiError::not_found(&format!("release {tag}"))
        }
    })
}

/// The commit a new release of `tag` names: the tag's when git has the tag, else
/// `target` (a full sha, or the default branch's name), else main's head. It must be on
/// main (422 `not_on_main`).
pub async fn commit_for(
    state: &AppState,
    repo: &RepoRow,
    tag: &str,
    target: Option<&str>,
) -> ApiResult<String> {
    let dir = crate::git::storage::repo_dir(&state.config.data_dir, &repo.id);
    let main = repo.default_head.clone().ok_or_else(|| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::EmptyRepo,
            "the repo has no main yet: push main first",
        )
    })?;
    let tags = crate::git::tags::in_git(&dir)
        .await
        .map_err(ApiError::internal)?;
    let sha = match (tags.get(tag), target) {
        (Some(sha), _) => sha.clone(),
        (None, None) => main.clone(),
        (None, Some(t)) if t == repo.default_branch => main.clone(),
        (None, Some(t)) => {
            let t = t.to_ascii_lowercase();
            let check = t.clone();
            let found = state
                .git(repo, move |git| git.commit_exists(&check))
                .await?;
            if found.is_none() {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    ErrorCode::NotOnMain,
                    format!(
                        "{t} is not a commit of this repo: name a commit on main by its full sha, or main"
                    ),
                ));
            }
            t
        }
    };
    let on_main = sha == main
        || record::is_ancestor(&dir, &sha, &main)
            .await
            .map_err(ApiError::internal)?;
    if !on_main {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::NotOnMain,
            format!(
                "{sha} is not on {}: a release names a commit on main",
                repo.default_branch
            ),
        ));
    }
    Ok(sha)
}

/// Makes `refs/tags/<tag>` at `sha` when git lacks it; a tag naming another commit is
/// 409 `tag_exists`.
pub async fn make_tag(state: &AppState, repo: &RepoRow, tag: &str, sha: &str) -> ApiResult<()> {
    let dir = crate::git::storage::repo_dir(&state.config.data_dir, &repo.id);
    let tags = crate::git::tags::in_git(&dir)
        .await
        .map_err(ApiError::internal)?;
    let exists = |at: &String| -> ApiResult<()> {
        if at == sha {
            Ok(())
        } else {
            Err(ApiError::conflict(
                ErrorCode::TagExists,
                format!("the tag {tag} names {at}, not the release commit {sha}"),
            ))
        }
    };
    if let Some(at) = tags.get(tag) {
        return exists(at);
    }
    let (full, target) = (format!("refs/tags/{tag}"), sha.to_owned());
    let made = state
        .git(repo, move |git| {
            let id = git
                .commit_exists(&target)?
                .ok_or_else(|| merge::Error::NotFound("commit".into()))?;
            Ok::<_, merge::Error>(git.create_ref(&full, id))
        })
        .await?;
    match made {
        Ok(()) => Ok(()),
        // Made meanwhile (a push, another publish): it must name the release commit.
        Err(merge::Error::RefExists(_)) => {
            let tags = crate::git::tags::in_git(&dir)
                .await
                .map_err(ApiError::internal)?;
            match tags.get(tag) {
                Some(at) => exists(at),
                None => Err(ApiError::internal(format!("tag {tag} vanished"))),
            }
        }
        Err(e) => Err(e.into()),
    }
}

/// A release in its REST shape.
pub fn view(
    config: &Config,
    monorepo: &MonorepoRow,
    repo: &RepoRow,
    row: &ReleaseRow,
    files: &[FileRow],
) -> Release {
    Release {
        tag: row.tag.clone(),
        title: row.title.clone(),
        notes: row.notes.clone(),
        draft: row.draft,
        commit: row.sha.clone(),
        author: row.author.clone(),
        created_at: time_of(row.created_at),
        published_at: row.published_at.map(time_of),
        files: files
            .iter()
            .filter(|f| f.release_id == row.id)
            .map(|f| file_view(config, monorepo, repo, &row.tag, f))
            .collect(),
        checks: None,
    }
}

/// Releases in their REST shape, their files read in one query.
pub async fn views(
    h: H<'_>,
    config: &Config,
    monorepo: &MonorepoRow,
    repo: &RepoRow,
    rows: &[ReleaseRow],
) -> ApiResult<Vec<Release>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let files = releases::files(h, &ids).await?;
    Ok(rows
        .iter()
        .map(|r| view(config, monorepo, repo, r, &files))
        .collect())
}

/// One release in its REST shape, read afresh.
pub async fn view_one(
    h: H<'_>,
    config: &Config,
    monorepo: &MonorepoRow,
    repo: &RepoRow,
    row: &ReleaseRow,
) -> ApiResult<Release> {
    let files = releases::files(h, &[row.id]).await?;
    Ok(view(config, monorepo, repo, row, &files))
}

pub fn file_view(
    config: &Config,
    monorepo: &MonorepoRow,
    repo: &RepoRow,
    tag: &str,
    f: &FileRow,
) -> ReleaseFile {
    ReleaseFile {
        name: f.name.clone(),
        size: u64::try_from(f.size).unwrap_or_default(),
        sha256: f.sha256.clone(),
        uploaded_at: time_of(f.uploaded_at),
        download_url: download_url(config, monorepo, repo, tag, &f.name),
    }
}

/// Where a release file is downloaded, each segment percent-encoded.
fn download_url(
    config: &Config,
    monorepo: &MonorepoRow,
    repo: &RepoRow,
    tag: &str,
    name: &str,
) -> String {
    let segments = [
        "v1",
        "monorepos",
        &monorepo.owner,
        &monorepo.name,
        "repos",
        &repo.name,
        "releases",
        tag,
        "files",
        name,
    ];
    match url::Url::parse(config.base()) {
        Ok(mut url) => {
            if let Ok(mut path) = url.path_segments_mut() {
                path.pop_if_empty().extend(segments);
            }
            url.to_string()
        }
        Err(_) => format!("{}/{}", config.base(), segments.join("/")),
    }
}

/// A `release.*` event: collection `releases`, keyed `<repo>/<tag>`, the release as its
/// row (`release.deleted`: `{repo, tag}`).
pub fn event(kind: &'static str, repo: &str, release: &Release, actor: &Actor) -> Pending {
    let (op, row) = if kind == "release.deleted" {
        ("delete", json!({"repo": repo, "tag": release.tag}))
    } else {
        let mut row = json!(release);
        row["repo"] = json!(repo);
        ("upsert", row)
    };
    let body = json!({"row": row, "actor": actor.login, "agent": actor.agent});
    (
        kind,
        "releases",
        format!("{repo}/{}", release.tag),
        op,
        body,
    )
}

/// Runs `change` in a transaction with the repo's row locked, after bringing the stored
/// tags to git's (a tag a release just made gets its `tag.created`), and writes the tag
/// events and the events `change` answers with it: the change, its events and the tag's
/// commit together.
pub async fn with_tags<T, F>(
    store: &Store,
    data_dir: &Path,
    repo_id: &str,
    actor: &Actor,
    change: F,
) -> ApiResult<T>
where
    F: AsyncFnOnce(H<'_>, &RepoRow) -> ApiResult<(T, Vec<Pending>)>,
{
    let mut tx = store.begin().await?;
    let repo = repos::lock(tx.h(), repo_id)
        .await?
        .ok_or_else(|| ApiError::not_found("repo"))?;
    let dir = crate::git::storage::repo_dir(data_dir, &repo.id);
    let now = crate::store::now_ms();
    let in_git = crate::git::tags::in_git(&dir)
        .await
        .map_err(ApiError::internal)?;
    let stored = crate::store::tags::all(tx.h(), &repo.id).await?;
    let mut pending = crate::git::tags::sync(tx.h(), &repo, stored, &in_git, actor, now)
        .await
        .map_err(ApiError::internal)?;
    let (answer, more) = change(tx.h(), &repo).await?;
    pending.extend(more);
    record::append(tx.h(), &repo, &pending, now).await?;
    tx.commit().await?;
    Ok(answer)
}
