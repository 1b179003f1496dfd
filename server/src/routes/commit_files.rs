//! commitFiles: files written (text or base64) and deleted as one commit on a branch,
//! without a checkout, for people and agents alike.
//!
//! It is a push in all but transport: the same authorization (write), the same rule for
//! main (it moves only by merges, once it exists), the branch moved by a compare-and-swap
//! so a concurrent push loses nothing, and recorded as the door records a push (events,
//! branch facts, hook deliveries including CI's, live fan-out). The commit is authored
//! and committed as the caller; an agent's commit gets its trailers from the server.

use axum::extract::State;
use axum::http::{StatusCode, header};
use base64::Engine;
use gix::ObjectId;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::branch::{CommitFiles, ContentEncoding, FileChange};
use svc_protocol::code::Commit;

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path};
use crate::git::merge::{self, Person};
use crate::git::push_options::PushOptions;
use crate::git::record::{self, Actor};
use crate::git::{branch_name, write};
use crate::paths::BranchPath;
use crate::state::AppState;
use crate::store::users;

/// Files one commit writes or deletes at most.
pub const FILES_MAX: usize = 1000;
/// The longest message, in bytes.
const MESSAGE_MAX: usize = 64 * 1024;
/// The longest path, in bytes.
const PATH_MAX: usize = 4096;
/// The request body's limit: 64 MiB of content (the push limit's default) as base64,
/// with room for the JSON around it. The content itself is held to `[git] max_push_bytes`.
pub const BODY_MAX: usize = 96 * 1024 * 1024;
/// Times the commit is made again when the branch moved under it (no `expected_head`).
const ATTEMPTS: usize = 5;
/// The trailers naming an agent, which only the server writes on these commits.
const AGENT_TRAILERS: [&str; 3] = ["svc-agent", "svc-worktree", "svc-machine"];

/// Writes and deletes files on the branch as one commit on its head, authored and
/// committed as the caller, and answers the commit as getCommit does (with `Location`).
/// A branch that does not exist is made from main's head (without `expected_head`). An
/// agent session's credential gets its `Svc-Agent`, `Svc-Worktree` and `Svc-Machine`
/// trailers (a person's `X-Svc-Agent` its `Svc-Agent`); such trailers in the message are
/// dropped. Recorded as a push: `push` or `branch.opened`, hooks, CI. At most 1,000
/// files, a 64 KiB message and `[git] max_push_bytes` (64 MiB) of content.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/commits", tag = "branches",
    operation_id = "commitFiles",
    request_body = CommitFiles,
    params(BranchPath),
    responses(
        (status = 201, body = Commit, description = "the new commit, the branch's head now",
            headers(("Location" = String, description = "the commit's getCommit URL"))),
        (status = 400, body = ApiErrorBody, description = "bad_request (message, files, expected_head), bad_branch_name"),
        (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "head_moved (with `current`, the head now: null when the branch does not exist), branch_exists (a new branch clashes with one: `a` and `a/b`), ref_moved (the branch kept moving)"),
        (status = 413, body = ApiErrorBody, description = "too_large: over `[git] max_push_bytes` of content"),
        (status = 422, body = ApiErrorBody, description = "bad_path (with `paths`), no_such_path (a deleted path the branch lacks), too_many_files, bad_request (content), default_branch (main moves only by merges)")))]
pub async fn commit_files(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
    Json(body): Json<CommitFiles>,
) -> ApiResult<(
    StatusCode,
    [(header::HeaderName, String); 1],
    axum::Json<Commit>,
)> {
    let changes = changes(&body.files, state.config.git.max_push_bytes)?;
    let expected = body.expected_head.as_deref().map(sha).transpose()?;
    let message = message(&body.message, agent.as_deref(), &caller)?;
    let (monorepo, repo, user) = {
        let mut conn = state.store.read().await?;
        let (access, repo) = path.resolve(conn.h(), &caller, Need::Write).await?;
        let user = users::by_id(conn.h(), &caller.user_id)
            .await?
            .ok_or_else(|| ApiError::unauthorized("unknown user"))?;
        (access.monorepo, repo, user)
    };
    let branch = path.branch.clone();
    let person = Person::author(&user);
    let mut made = None;
    for _ in 0..ATTEMPTS {
        let (name, main, changes, message, person) = (
            branch.clone(),
            repo.default_branch.clone(),
            changes.clone(),
            message.clone(),
            person.clone(),
        );
        let attempt = state
            .git(&repo, move |git| {
                let heads = git.branch_heads()?;
                let head_of = |name: &str| heads.iter().find(|(n, _)| n == name).map(|h| h.1);
                let (head, main_head) = (head_of(&name), head_of(&main));
                if name == main && main_head.is_some() {
                    return Err(ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        ErrorCode::DefaultBranch,
                        format!("{main} moves only by merges: write to a branch and merge it; nothing was written"),
                    ));
                }
                if head.is_none()
                    && let Some(why) = branch_name::invalid_reason(&name)
                {
                    return Err(ApiError::bad_request(
                        ErrorCode::BadBranchName,
                        format!("{name:?} is not a valid git branch name: {why}"),
                    ));
                }
                if let Some(expected) = expected
                    && head != Some(expected)
                {
                    return Err(head_moved(&name, head));
                }
                // A new branch starts at main's head (none in an empty repo: a root
                // commit, as a first push).
                let parent = head.or(main_head);
                let sha = git.commit_files(parent, &changes, &person, &person, &message)?;
                let full = format!("refs/heads/{name}");
                let moved = match head {
                    Some(old) => git.update_ref(&full, old, sha),
                    None => git.create_ref(&full, sha),
                };
                Ok::<_, ApiError>(moved.map(|()| sha))
            })
            .await?;
        match attempt {
            Ok(sha) => {
                made = Some(sha);
                break;
            }
            // The branch moved (or appeared) meanwhile: nothing of ours landed.
            Err(merge::Error::RefMoved(_) | merge::Error::RefExists(_)) if expected.is_none() => {}
            Err(merge::Error::RefMoved(_) | merge::Error::RefExists(_)) => {
                let now = record::branch_heads(&storage_dir(&state, &repo.id))
                    .await
                    .map_err(ApiError::internal)?
                    .get(&branch)
                    .and_then(|h| ObjectId::from_hex(h.as_bytes()).ok());
                return Err(head_moved(&branch, now));
            }
            Err(e) => return Err(e.into()),
        }
    }
    let Some(sha) = made else {
        return Err(ApiError::conflict(
            ErrorCode::RefMoved,
            format!("{branch} kept moving while writing; nothing was written, try again"),
        ));
    };
    let actor = Actor {
        login: Some(caller.login.clone()),
        agent,
    };
    let recorded = record::record_push(
        &state.store,
        &state.config.data_dir,
        &repo.id,
        &actor,
        &PushOptions::default(),
    )
    .await
    .map_err(ApiError::internal)?;
    state.facts.after_record(&repo.id, &recorded).await;
    crate::presence::pushed(
        &state.store,
        &repo.monorepo_id,
        &caller.user_id,
        &caller.login,
        &caller.credential_name,
    )
    .await;
    state.maintenance.after_write(&repo.id);
    let commit = state.git(&repo, move |git| git.commit(sha)).await?;
    let location = format!(
        "/v1/monorepos/{}/repos/{}/commits/{sha}",
        monorepo.label(),
        repo.name
    );
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        axum::Json(commit),
    ))
}

fn storage_dir(state: &AppState, repo_id: &str) -> std::path::PathBuf {
    crate::git::storage::repo_dir(&state.config.data_dir, repo_id)
}

/// 409 `head_moved`, naming the head now (none: the branch does not exist).
fn head_moved(branch: &str, now: Option<ObjectId>) -> ApiError {
    let said = now.map_or_else(|| "does not exist".to_owned(), |h| format!("is at {h}"));
    ApiError::conflict(
        ErrorCode::HeadMoved,
        format!("{branch} {said}, not at expected_head; nothing was written"),
    )
    .with_current(now.map(|h| h.to_string()))
}

/// `expected_head` as a commit id: 40 hex digits.
fn sha(text: &str) -> ApiResult<ObjectId> {
    let id = (text.len() == 40)
        .then(|| ObjectId::from_hex(text.as_bytes()).ok())
        .flatten();
    id.ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::BadRequest,
            "expected_head is a full commit sha, 40 hex digits",
        )
    })
}

fn unprocessable(code: ErrorCode, message: String) -> ApiError {
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
}

/// The files as changes, checked: 1 to [`FILES_MAX`], each path well formed and named
/// once, content or `delete` (not both), base64 that decodes, within `limit` bytes in all.
fn changes(files: &[FileChange], limit: u64) -> ApiResult<Vec<write::Change>> {
    if files.is_empty() {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "files is empty: name at least one file to write or delete",
        ));
    }
    if files.len() > FILES_MAX {
        return Err(unprocessable(
            ErrorCode::TooManyFiles,
            format!("a commit writes at most {FILES_MAX} files"),
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut total = 0u64;
    let mut changes = Vec::with_capacity(files.len());
    for file in files {
        let bad_path = |why: &str| {
            unprocessable(
                ErrorCode::BadPath,
                format!("{:?} {why}; nothing was written", file.path),
            )
            .with_paths(vec![file.path.clone()])
        };
        if let Some(why) = path_problem(&file.path) {
            return Err(bad_path(why));
        }
        if !seen.insert(file.path.as_str()) {
            return Err(bad_path("is named twice"));
        }
        let content = match (&file.content, file.delete) {
            (Some(_), true) => {
                return Err(unprocessable(
                    ErrorCode::BadRequest,
                    format!("{}: give content or delete, not both", file.path),
                )
                .with_paths(vec![file.path.clone()]));
            }
            (None, false) => {
                return Err(unprocessable(
                    ErrorCode::BadRequest,
                    format!("{}: give its content, or delete: true", file.path),
                )
                .with_paths(vec![file.path.clone()]));
            }
            (None, true) => None,
            (Some(text), false) => Some(match file.encoding.unwrap_or_default() {
                ContentEncoding::Utf8 => text.as_bytes().to_vec(),
                ContentEncoding::Base64 => base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|e| {
                    unprocessable(
                        ErrorCode::BadRequest,
                        format!("{}: the content is not valid base64 ({e})", file.path),
                    )
                    .with_paths(vec![file.path.clone()])
                })?,
            }),
        };
        total += content.as_ref().map_or(0, |c| c.len() as u64);
        if total > limit {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::TooLarge,
                format!("the files are over {limit} bytes, the push limit; write them in steps"),
            ));
        }
        changes.push(write::Change {
            path: file.path.clone(),
            content,
        });
    }
    Ok(changes)
}

/// Why git or svc would not take `path` as a file's path from the repo's root.
fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.len() > PATH_MAX {
        return Some("is over 4,096 bytes");
    }
    if path.starts_with('/') {
        return Some("starts with /: paths are from the repo's root");
    }
    if path.chars().any(char::is_control) {
        return Some("holds a control character");
    }
    for segment in path.split('/') {
        match segment {
            "" => return Some("has an empty segment (// or a trailing /)"),
            "." | ".." => return Some("has a . or .. segment"),
            s if s.eq_ignore_ascii_case(".git") => return Some("has a .git segment"),
            _ => {}
        }
    }
    None
}

/// The message with the agent's trailers: the caller's `Svc-*` lines dropped, then
/// `Svc-Agent` (the session's or the header's agent) and, for an agent session's
/// credential, `Svc-Worktree` (the session) and `Svc-Machine` (its credential), as the
/// session's commit-msg hook writes them.
fn message(text: &str, agent: Option<&str>, caller: &Caller) -> ApiResult<String> {
    let bad = |why: &str| ApiError::bad_request(ErrorCode::BadRequest, why.to_owned());
    if text.trim().is_empty() {
        return Err(bad("message is empty"));
    }
    if text.len() > MESSAGE_MAX {
        return Err(bad("message is over 64 KiB"));
    }
    if text.contains('\0') {
        return Err(bad("message holds a NUL character"));
    }
    let kept: Vec<&str> = text
        .lines()
        .filter(|line| {
            let key = line
                .split_once(':')
                .map(|(k, _)| k.trim().to_ascii_lowercase());
            !key.is_some_and(|k| AGENT_TRAILERS.contains(&k.as_str()))
        })
        .collect();
    let mut message = kept.join("\n").trim_end().to_owned();
    if message.trim().is_empty() {
        return Err(bad("message holds nothing but trailers"));
    }
    if let Some(agent) = agent {
        message.push_str("\n\nSvc-Agent: ");
        message.push_str(agent);
        if caller.scope.is_some() {
            let session = caller
                .credential_name
                .strip_prefix("cloud-")
                .unwrap_or(&caller.credential_name);
            message.push_str(&format!(
                "\nSvc-Worktree: {session}\nSvc-Machine: {}",
                caller.credential_name
            ));
        }
    }
    message.push('\n');
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::path_problem;

    #[test]
    fn paths_are_checked() {
        for good in ["a", "src/a.rs", ".github/x.yml", ".svc/svc.toml", "a b/c"] {
            assert_eq!(path_problem(good), None, "{good}");
        }
        for bad in [
            "",
            "/a",
            "a/",
            "a//b",
            "./a",
            "a/../b",
            "..",
            ".git/config",
            "x/.GIT/y",
            "a\nb",
        ] {
            assert!(path_problem(bad).is_some(), "{bad:?}");
        }
    }
}
