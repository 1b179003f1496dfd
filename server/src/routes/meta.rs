//! The meta layer's routes (beyond the specification; see the OpenAPI document): the
//! live `.svc/` files with their SHA-256, content-addressed uploads, and saves that
//! commit to the meta repo's main by compare-and-swap against a base version.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use futures_util::StreamExt;
use serde_json::json;
use sha2::{Digest, Sha256};
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::meta::{
    BlobQuery, MetaFiles, MetaHistory, MetaHistoryEntry, MetaSavedRow, MissingBlobs, SaveRequest,
    SaveResult, StoredBlob,
};
use tokio::io::AsyncWriteExt;

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path, Query};
use crate::git::merge::{self, Person};
use crate::git::meta::{Change, Saved};
use crate::git::record::{self, Actor, Pending};
use crate::git::storage;
use crate::paths::{BlobPath, MonorepoPath};
use crate::state::AppState;
use crate::store::repos::RepoRow;
use crate::store::{events, time_of, users};

/// Largest shared meta file (Limits: "Shared meta files: up to 100 MB").
pub const FILE_MAX: u64 = 100_000_000;
/// Digests one `missing` call or paths one save may name.
const BATCH_MAX: usize = 10_000;
const PATH_MAX: usize = 1024;
const MACHINE_MAX: usize = 64;
/// History entries a page.
const HISTORY_PAGE: i64 = 50;
/// Times a save is redone when main moved under it (another process saved).
const ATTEMPTS: usize = 5;

/// The meta repo of `{owner}/{monorepo}`; a plain repo has none (404).
async fn meta_repo(
    state: &AppState,
    caller: &Caller,
    path: &MonorepoPath,
    need: Need,
) -> ApiResult<RepoRow> {
    let mut conn = state.store.read().await?;
    let (_, repo) = path.repo("meta").resolve(conn.h(), caller, need).await?;
    if !repo.is_meta {
        return Err(ApiError::not_found("meta layer"));
    }
    Ok(repo)
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn bad_sha256(s: &str) -> ApiError {
    ApiError::bad_request(
        ErrorCode::BadRequest,
        format!("{s:?} is not a SHA-256 in 64 lower-case hex digits"),
    )
}

/// A path relative to `.svc/`: no leading `/`, no empty, `.` or `..` part, no `.git`.
fn check_path(path: &str) -> ApiResult<()> {
    let ok = !path.is_empty()
        && path.len() <= PATH_MAX
        && !path.chars().any(|c| c.is_control() || c == '\\')
        && path
            .split('/')
            .all(|p| !matches!(p, "" | "." | "..") && !p.eq_ignore_ascii_case(".git"));
    if ok {
        Ok(())
    } else {
        Err(ApiError::bad_request(
            ErrorCode::BadPath,
            format!(
                "{path:?} must be a relative path inside .svc/ without '..', '.git' or a leading '/'"
            ),
        ))
    }
}

/// The live meta layer: every `.svc/` file on the meta repo's main with its SHA-256.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/meta/files", operation_id = "listMetaFiles", tag = "meta",
    params(MonorepoPath),
    responses((status = 200, body = MetaFiles), (status = 404, body = ApiErrorBody)))]
pub async fn files(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<MetaFiles>> {
    let repo = meta_repo(&state, &caller, &path, Need::Read).await?;
    let Some(version) = repo.default_head.clone() else {
        return Ok(Json(MetaFiles {
            version: None,
            files: Vec::new(),
        }));
    };
    let files = state
        .git(&repo, move |git| {
            let commit = git
                .commit_exists(&version)?
                .ok_or_else(|| ApiError::internal(format!("meta main {version} is missing")))?;
            Ok::<_, ApiError>(MetaFiles {
                version: Some(version),
                files: git.meta_files(commit)?,
            })
        })
        .await?;
    Ok(Json(files))
}

/// The contents (by SHA-256) the server lacks: upload those before saving.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/meta/blobs/missing", operation_id = "missingMetaBlobs", tag = "meta",
    params(MonorepoPath), request_body = BlobQuery,
    responses((status = 200, body = MissingBlobs), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn missing(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<BlobQuery>,
) -> ApiResult<Json<MissingBlobs>> {
    let repo = meta_repo(&state, &caller, &path, Need::Write).await?;
    if body.sha256.len() > BATCH_MAX {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("at most {BATCH_MAX} digests a call"),
        ));
    }
    if let Some(bad) = body.sha256.iter().find(|s| !is_sha256(s)) {
        return Err(bad_sha256(bad));
    }
    let missing = state
        .git(&repo, move |git| {
            let mut missing = Vec::new();
            for sha in body.sha256 {
                if git.meta_blob(&sha)?.is_none() && !missing.contains(&sha) {
                    missing.push(sha);
                }
            }
            Ok::<_, ApiError>(missing)
        })
        .await?;
    Ok(Json(MissingBlobs { missing }))
}

/// Uploads one content, named by its SHA-256; the raw bytes are the body (at most
/// 100,000,000, with `Content-Length`).
#[utoipa::path(put, path = "/v1/monorepos/{owner}/{monorepo}/meta/blobs/{sha256}", operation_id = "putMetaBlob", tag = "meta",
    params(BlobPath),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 200, body = StoredBlob), (status = 411, description = "no Content-Length"),
        (status = 413, body = ApiErrorBody, description = "too_large"),
        (status = 422, body = ApiErrorBody, description = "sha256_mismatch")))]
pub async fn put_blob(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<BlobPath>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Json<StoredBlob>> {
    let repo = meta_repo(&state, &caller, &path.monorepo(), Need::Write).await?;
    let sha256 = path.sha256;
    if !is_sha256(&sha256) {
        return Err(bad_sha256(&sha256));
    }
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::LENGTH_REQUIRED,
                ErrorCode::LengthRequired,
                "an upload needs Content-Length",
            )
        })?;
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::TooLarge,
            format!("a shared meta file is at most {FILE_MAX} bytes"),
        )
    };
    if length > FILE_MAX {
        return Err(too_large());
    }
    let dir = storage::repo_dir(&state.config.data_dir, &repo.id);
    let tmp_dir = dir.join("svc-meta").join("tmp");
    tokio::fs::create_dir_all(&tmp_dir)
        .await
        .map_err(ApiError::internal)?;
    let tmp = TempFile(tmp_dir.join(format!("upload-{}", hex::encode(random_bytes()?))));
    let mut file = tokio::fs::File::create(&tmp.0)
        .await
        .map_err(ApiError::internal)?;
    let mut hasher = Sha256::new();
    let mut size: u64 = 0;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::bad_request(ErrorCode::BadRequest, format!("the upload broke off: {e}"))
        })?;
        size += chunk.len() as u64;
        if size > length || size > FILE_MAX {
            return Err(too_large());
        }
        hasher.update(&chunk);
        file.write_all(&chunk).await.map_err(ApiError::internal)?;
    }
    file.flush().await.map_err(ApiError::internal)?;
    drop(file);
    let digest = hex::encode(hasher.finalize());
    if digest != sha256 {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::Sha256Mismatch,
            format!("the content's SHA-256 is {digest}, not {sha256}"),
        ));
    }
    let blob = {
        let (path, sha256) = (tmp.0.clone(), sha256.clone());
        state
            .git(&repo, move |git| git.store_meta_blob(&path, size, &sha256))
            .await?
    };
    Ok(Json(StoredBlob {
        sha256,
        blob: blob.to_string(),
        size,
    }))
}

fn random_bytes() -> ApiResult<[u8; 12]> {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes).map_err(ApiError::internal)?;
    Ok(bytes)
}

/// An upload's temp file, removed however the upload ends.
struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Saves changed `.svc/` paths as one commit on the meta repo's main. When main moved
/// since `base`, paths main left alone are still saved, but a path main changed too
/// answers 409 `edited` (with `paths` and `current`) and nothing is written.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/meta/saves", operation_id = "saveMeta", tag = "meta",
    params(MonorepoPath), request_body = SaveRequest,
    responses((status = 200, body = SaveResult), (status = 400, body = ApiErrorBody),
        (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "edited (with `paths` and `current`)"),
        (status = 422, body = ApiErrorBody, description = "missing_blob (with `paths`): upload first")))]
pub async fn save(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<SaveRequest>,
) -> ApiResult<Json<SaveResult>> {
    let repo = meta_repo(&state, &caller, &path, Need::Write).await?;
    if body.changes.len() > BATCH_MAX {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("at most {BATCH_MAX} paths a save"),
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for change in &body.changes {
        check_path(&change.path)?;
        if !seen.insert(change.path.as_str()) {
            return Err(ApiError::bad_request(
                ErrorCode::BadRequest,
                format!("{} is named twice", change.path),
            ));
        }
        if let Some(sha) = change.sha256.as_deref().filter(|s| !is_sha256(s)) {
            return Err(bad_sha256(sha));
        }
    }
    let machine = body
        .machine
        .clone()
        .map(|m| m.trim().to_owned())
        .unwrap_or_else(|| caller.credential_name.clone());
    if machine.is_empty()
        || machine.chars().count() > MACHINE_MAX
        || machine.chars().any(char::is_control)
    {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("machine must be 1 to {MACHINE_MAX} printable characters"),
        ));
    }
    let user = {
        let mut conn = state.store.read().await?;
        users::by_id(conn.h(), &caller.user_id)
            .await?
            .ok_or_else(|| ApiError::unauthorized("unknown user"))?
    };
    let author = Person::author(&user);
    let committer = Person::service(&state.config);
    let mut message = format!(
        "Save .svc/ from {machine}\n\n{}\n\nSvc-Machine: {machine}\n",
        body.changes
            .iter()
            .map(|c| c.path.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    if let Some(agent) = &agent {
        message.push_str(&format!("Svc-Agent: {agent}\n"));
    }
    let _one_at_once = state.merge_lock(&repo.id).await?;
    for _ in 0..ATTEMPTS {
        let made = {
            let (base, wanted) = (body.base.clone(), body.changes.clone());
            let (author, committer, message) = (author.clone(), committer.clone(), message.clone());
            state
                .git(&repo, move |git| {
                    let main = git
                        .branch_heads()?
                        .into_iter()
                        .find(|(n, _)| n == "main")
                        .map(|(_, id)| id);
                    let base = match base.as_deref() {
                        None => None,
                        Some(b) => Some(git.commit_exists(b)?.ok_or_else(|| {
                            ApiError::bad_request(
                                ErrorCode::BadBase,
                                format!("base {b} is not a version of this meta layer"),
                            )
                        })?),
                    };
                    let mut changes = Vec::new();
                    let mut unknown = Vec::new();
                    for c in wanted {
                        let blob = match c.sha256.as_deref() {
                            None => None,
                            Some(sha) => match git.meta_blob(sha)? {
                                Some(id) => Some(id),
                                None => {
                                    unknown.push(c.path.clone());
                                    None
                                }
                            },
                        };
                        changes.push(Change { path: c.path, blob });
                    }
                    if !unknown.is_empty() {
                        return Err(ApiError::new(
                            StatusCode::UNPROCESSABLE_ENTITY,
                            ErrorCode::MissingBlob,
                            format!("upload the content of {} first", unknown.join(", ")),
                        )
                        .with_paths(unknown));
                    }
                    let saved =
                        git.meta_save(main, base, &changes, &author, &committer, &message)?;
                    let sizes = match &saved {
                        Saved::Commit { changes, .. } => changes
                            .iter()
                            .map(|c| c.blob.map(|b| git.meta_size(b)).transpose())
                            .collect::<Result<Vec<_>, _>>()?,
                        _ => Vec::new(),
                    };
                    Ok((main, saved, sizes))
                })
                .await?
        };
        let (main, saved, sizes) = made;
        let (id, changes, first) = match saved {
            Saved::Edited(paths) => {
                return Err(ApiError::conflict(
                    ErrorCode::Edited,
                    format!(
                        "changed on the server since your last sync: {}",
                        paths.join(", ")
                    ),
                )
                .with_paths(paths)
                .with_current(main.map(|m| m.to_string())));
            }
            Saved::Unchanged => {
                return Ok(Json(SaveResult {
                    version: main.map(|m| m.to_string()),
                    saved: Vec::new(),
                }));
            }
            Saved::Commit { id, changes, first } => (id, changes, first),
        };
        let moved = state
            .git(&repo, move |git| {
                Ok::<_, ApiError>(match main {
                    Some(old) => git.update_ref("refs/heads/main", old, id),
                    None => git.create_ref("refs/heads/main", id),
                })
            })
            .await?;
        match moved {
            Ok(()) => {}
            Err(merge::Error::RefMoved(_) | merge::Error::RefExists(_)) => continue,
            Err(e) => return Err(e.into()),
        }
        let by_path: std::collections::HashMap<&str, Option<&str>> = body
            .changes
            .iter()
            .map(|c| (c.path.as_str(), c.sha256.as_deref()))
            .collect();
        let events: Vec<Pending> = if first {
            Vec::new()
        } else {
            changes
                .iter()
                .zip(&sizes)
                .map(|(c, size)| {
                    let row = MetaSavedRow {
                        path: c.path.clone(),
                        sha256: by_path
                            .get(c.path.as_str())
                            .copied()
                            .flatten()
                            .map(str::to_owned),
                        size: *size,
                        version: id.to_string(),
                        machine: Some(machine.clone()),
                        actor: caller.login.clone(),
                    };
                    let body = json!({"row": row, "actor": caller.login, "agent": agent});
                    ("meta.saved", "meta_files", c.path.clone(), "upsert", body)
                })
                .collect()
        };
        let actor = Actor {
            login: Some(caller.login.clone()),
            agent: agent.clone(),
        };
        record::record_and(
            &state.store,
            &state.config.data_dir,
            &repo.id,
            &actor,
            events,
        )
        .await
        .map_err(ApiError::internal)?;
        return Ok(Json(SaveResult {
            version: Some(id.to_string()),
            saved: changes.into_iter().map(|c| c.path).collect(),
        }));
    }
    Err(ApiError::conflict(
        ErrorCode::MainMoved,
        "the meta layer kept moving while saving; try again",
    ))
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
pub struct HistoryQuery {
    /// One path (relative to `.svc/`); every path by default.
    path: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1)]
    cursor: Option<String>,
}

/// The meta layer's history: `meta.saved` entries, newest first, 50 a page.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/meta/history", operation_id = "getMetaHistory", tag = "meta",
    params(MonorepoPath, HistoryQuery),
    responses((status = 200, body = MetaHistory), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn history(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Query(q): Query<HistoryQuery>,
) -> ApiResult<Json<MetaHistory>> {
    let repo = meta_repo(&state, &caller, &path, Need::Read).await?;
    let before = match q.cursor.as_deref() {
        None => i64::MAX,
        Some(c) => c.parse::<i64>().map_err(|_| {
            ApiError::bad_request(ErrorCode::BadCursor, "cursor is not one this route gave")
        })?,
    };
    let path = q.path.unwrap_or_default();
    let rows = {
        let mut conn = state.store.read().await?;
        events::meta_history(conn.h(), &repo.monorepo_id, &path, before, HISTORY_PAGE + 1).await?
    };
    let more = rows.len() as i64 > HISTORY_PAGE;
    let mut items = Vec::new();
    for e in rows.into_iter().take(HISTORY_PAGE as usize) {
        let body: serde_json::Value = serde_json::from_str(&e.body).map_err(ApiError::internal)?;
        let row: MetaSavedRow =
            serde_json::from_value(body["row"].clone()).map_err(ApiError::internal)?;
        items.push(MetaHistoryEntry {
            seq: e.seq,
            at: time_of(e.at),
            row,
        });
    }
    let next_cursor = more
        .then(|| items.last().map(|i| i.seq.to_string()))
        .flatten();
    Ok(Json(MetaHistory { items, next_cursor }))
}
