//! Releases of a repo: create, publish (which locks the tag), notes, and files streamed
//! to disk with their SHA-256. Any member makes and publishes releases (anyone who may
//! merge); files download for members, or for anyone when the repo's releases are public.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::release::{
    CreateRelease, FILES_MAX, PAGE, Release, ReleaseFile, ReleaseList, ReleaseNotes, UpdateRelease,
};
use utoipa::IntoParams;

use crate::auth::{Caller, MaybeCaller};
use crate::authz::Need;
use crate::checks::{checks_of, require_green};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path, Query};
use crate::git::record::Actor;
use crate::paths::{ReleaseFilePath, ReleasePath, RepoPath};
use crate::releases::{self, files, notes};
use crate::state::AppState;
use crate::store::now_ms;
use crate::store::releases::{self as rows, FileRow, ReleaseRow};

/// `?cursor=`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// The `next_cursor` of the previous page.
    pub(crate) cursor: Option<String>,
    /// Releases per page, 1 to 30 (default 30).
    #[param(minimum = 1, maximum = 30)]
    pub(crate) limit: Option<i64>,
}

/// `?force=1`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ForceQuery {
    /// `1`: go past red, missing or unknown required checks.
    #[serde(default, deserialize_with = "crate::extract::flag")]
    #[param(value_type = Option<String>, pattern = "^(0|1|true|false)?$")]
    force: bool,
}

/// `?generate=1`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NotesQuery {
    /// `1`: write the notes from the merges since the last published release.
    #[serde(default, deserialize_with = "crate::extract::flag")]
    #[param(value_type = Option<String>, pattern = "^(0|1|true|false)?$")]
    generate: bool,
}

/// `?target=&tag=` for a release to be made.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ToBeQuery {
    /// A commit on main (full sha) or the default branch's name; default: main's head.
    target: Option<String>,
    /// The tag the release would have: its commit when git has it.
    tag: Option<String>,
}

fn actor(caller: &Caller, agent: Option<String>) -> Actor {
    Actor {
        login: Some(caller.login.clone()),
        agent,
    }
}

/// Releases newest first (a draft by creation, a published one by publish time), 30 a
/// page (`limit` asks for fewer).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases", operation_id = "listReleases", tag = "releases",
    params(RepoPath, ListQuery),
    responses((status = 200, body = ReleaseList), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
    Query(q): Query<ListQuery>,
) -> ApiResult<Json<ReleaseList>> {
    let after = match q.cursor.as_deref() {
        None => None,
        Some(c) => {
            let (at, id) = c.split_once(':').ok_or_else(ApiError::bad_cursor)?;
            Some((
                at.parse::<i64>().map_err(|_| ApiError::bad_cursor())?,
                id.parse::<i64>().map_err(|_| ApiError::bad_cursor())?,
            ))
        }
    };
    let limit = crate::extract::page_limit(q.limit, PAGE as i64, PAGE as i64)? as usize;
    let mut conn = state.store.read().await?;
    let (access, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let mut page = rows::page(conn.h(), &repo.id, after, limit as i64 + 1).await?;
    let more = page.len() > limit;
    page.truncate(limit);
    let next_cursor = more
        .then(|| page.last().map(|r| format!("{}:{}", r.sort_at, r.id)))
        .flatten();
    let items = releases::views(conn.h(), &state.config, &access.monorepo, &repo, &page).await?;
    Ok(Json(ReleaseList { items, next_cursor }))
}

/// Makes a release. Its commit is the tag's when git has the tag, else `target` on main,
/// else main's head. Unless `draft`, it is published at once and its tag made, after the
/// required checks pass (412 with `checks` before anything is made; `force=1` goes past).
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases", operation_id = "createRelease", tag = "releases",
    params(RepoPath, ForceQuery), request_body = CreateRelease,
    responses((status = 201, body = Release), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "release_exists, tag_exists"),
        (status = 412, body = ApiErrorBody, description = "checks_not_green (with `checks`)"),
        (status = 422, body = ApiErrorBody, description = "not_on_main, empty_repo"),
        (status = 503, body = ApiErrorBody, description = "checks_unknown (with `checks`)")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<RepoPath>,
    Query(q): Query<ForceQuery>,
    Json(body): Json<CreateRelease>,
) -> ApiResult<(StatusCode, Json<Release>)> {
    let tag = body.tag.trim().to_owned();
    releases::check_tag(&tag)?;
    releases::check_text(body.title.as_deref(), body.notes.as_deref())?;
    let (access, repo) = {
        let mut conn = state.store.read().await?;
        let (access, repo) = path.resolve(conn.h(), &caller, Need::Write).await?;
        if rows::by_tag(conn.h(), &repo.id, &tag).await?.is_some() {
            return Err(release_exists(&tag));
        }
        (access, repo)
    };
    let sha = releases::commit_for(&state, &repo, &tag, body.target.as_deref()).await?;
    if !body.draft && !q.force {
        let mut conn = state.store.read().await?;
        let checks = checks_of(conn.h(), &state, &access, &repo, std::slice::from_ref(&sha))
            .await?
            .pop()
            .ok_or_else(|| ApiError::internal("no checks"))?;
        require_green(checks, "publish")?;
    }
    let mut text = body.notes.unwrap_or_default();
    if body.generate_notes {
        let mut conn = state.store.read().await?;
        let previous = notes::previous(conn.h(), &repo, None).await?;
        let generated = notes::generate(conn.h(), &state, &repo, &sha, previous.as_ref()).await?;
        text = if text.trim().is_empty() {
            generated
        } else {
            format!("{}\n\n{generated}", text.trim_end())
        };
    }
    if !body.draft {
        releases::make_tag(&state, &repo, &tag, &sha).await?;
    }
    let now = now_ms();
    let row = ReleaseRow {
        id: 0,
        repo_id: repo.id.clone(),
        tag: tag.clone(),
        title: body.title.filter(|t| !t.trim().is_empty()),
        notes: text,
        sha,
        author: caller.login.clone(),
        draft: body.draft,
        created_at: now,
        published_at: (!body.draft).then_some(now),
        sort_at: now,
    };
    let actor = actor(&caller, agent);
    let (config, monorepo) = (&state.config, &access.monorepo);
    let release = releases::with_tags(
        &state.store,
        &config.data_dir,
        &repo.id,
        &actor,
        async |mut h, repo| {
            let made = match rows::insert(h.reborrow(), &row).await {
                Ok(made) => made,
                Err(e) if e.is_unique_violation() => return Err(release_exists(&row.tag)),
                Err(e) => return Err(e.into()),
            };
            let release = releases::view(config, monorepo, repo, &made, &[]);
            let event = releases::event("release.created", &repo.name, &release, &actor);
            Ok((release, vec![event]))
        },
    )
    .await?;
    Ok((StatusCode::CREATED, Json(release)))
}

fn release_exists(tag: &str) -> ApiError {
    ApiError::conflict(
        ErrorCode::ReleaseExists,
        format!("the tag {tag} has a release already"),
    )
}

/// One release with its commit's checks (`latest`: the newest published one).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}", operation_id = "getRelease", tag = "releases",
    params(ReleasePath),
    responses((status = 200, body = Release), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ReleasePath>,
) -> ApiResult<Json<Release>> {
    let mut conn = state.store.read().await?;
    let (access, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let row = releases::find(conn.h(), &repo, &path.tag).await?;
    let mut release =
        releases::view_one(conn.h(), &state.config, &access.monorepo, &repo, &row).await?;
    release.checks = checks_of(
        conn.h(),
        &state,
        &access,
        &repo,
        std::slice::from_ref(&row.sha),
    )
    .await?
    .pop();
    Ok(Json(release))
}

/// Edits the title or notes: omitted fields kept, a null title cleared.
#[utoipa::path(patch, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}", operation_id = "updateRelease", tag = "releases",
    params(ReleasePath), request_body = UpdateRelease,
    responses((status = 200, body = Release), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<ReleasePath>,
    Json(body): Json<UpdateRelease>,
) -> ApiResult<Json<Release>> {
    let title = body.title.clone().flatten();
    releases::check_text(title.as_deref(), body.notes.as_deref())?;
    let mut tx = state.store.begin().await?;
    let (access, repo) = path.resolve(tx.h(), &caller, Need::Write).await?;
    let mut row = releases::find(tx.h(), &repo, &path.tag).await?;
    if let Some(title) = body.title {
        row.title = title.filter(|t| !t.trim().is_empty());
    }
    if let Some(notes) = body.notes {
        row.notes = notes;
    }
    rows::update(tx.h(), row.id, row.title.as_deref(), &row.notes).await?;
    let release = releases::view_one(tx.h(), &state.config, &access.monorepo, &repo, &row).await?;
    let event = releases::event(
        "release.updated",
        &repo.name,
        &release,
        &actor(&caller, agent),
    );
    crate::git::record::append(tx.h(), &repo, &[event], now_ms()).await?;
    tx.commit().await?;
    Ok(Json(release))
}

/// Deletes a release and its files; its tag stays (and is no longer locked).
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}", operation_id = "deleteRelease", tag = "releases",
    params(ReleasePath),
    responses((status = 204, description = "deleted"), (status = 404, body = ApiErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<ReleasePath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let (access, repo) = path.resolve(tx.h(), &caller, Need::Write).await?;
    let row = releases::find(tx.h(), &repo, &path.tag).await?;
    let release = releases::view_one(tx.h(), &state.config, &access.monorepo, &repo, &row).await?;
    let blobs: Vec<String> = rows::files(tx.h(), &[row.id])
        .await?
        .into_iter()
        .map(|f| f.blob)
        .collect();
    rows::delete(tx.h(), row.id).await?;
    let event = releases::event(
        "release.deleted",
        &repo.name,
        &release,
        &actor(&caller, agent),
    );
    crate::git::record::append(tx.h(), &repo, &[event], now_ms()).await?;
    tx.commit().await?;
    files::remove_blobs(&state.config.data_dir, &blobs).await;
    Ok(StatusCode::NO_CONTENT)
}

/// Publishes a draft: 412 with `checks` when the required checks are red or missing,
/// unless `force=1`. The tag is made at the release commit when git lacks it (409
/// `tag_exists` when it names another commit); from then on git cannot move or delete
/// it. Publishing a published release answers it unchanged.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/publish", operation_id = "publishRelease", tag = "releases",
    params(ReleasePath, ForceQuery),
    responses((status = 200, body = Release), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "tag_exists"),
        (status = 412, body = ApiErrorBody, description = "checks_not_green (with `checks`)"),
        (status = 503, body = ApiErrorBody, description = "checks_unknown (with `checks`)")))]
pub async fn publish(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<ReleasePath>,
    Query(q): Query<ForceQuery>,
) -> ApiResult<Json<Release>> {
    let (access, repo, row) = {
        let mut conn = state.store.read().await?;
        let (access, repo) = path.resolve(conn.h(), &caller, Need::Write).await?;
        let row = releases::find(conn.h(), &repo, &path.tag).await?;
        if !row.draft {
            let release =
                releases::view_one(conn.h(), &state.config, &access.monorepo, &repo, &row).await?;
            return Ok(Json(release));
        }
        if !q.force {
            let checks = checks_of(
                conn.h(),
                &state,
                &access,
                &repo,
                std::slice::from_ref(&row.sha),
            )
            .await?
            .pop()
            .ok_or_else(|| ApiError::internal("no checks"))?;
            require_green(checks, "publish")?;
        }
        (access, repo, row)
    };
    releases::make_tag(&state, &repo, &row.tag, &row.sha).await?;
    let actor = actor(&caller, agent);
    let (config, monorepo) = (&state.config, &access.monorepo);
    let release = releases::with_tags(
        &state.store,
        &config.data_dir,
        &repo.id,
        &actor,
        async |mut h, repo| {
            let Some(mut row) = rows::by_tag(h.reborrow(), &repo.id, &row.tag).await? else {
                return Err(ApiError::not_found(&format!("release {}", row.tag)));
            };
            let kind = if row.draft {
                let now = now_ms();
                rows::publish(h.reborrow(), row.id, now).await?;
                row.draft = false;
                row.published_at = Some(now);
                row.sort_at = now;
                Some("release.published")
            } else {
                None
            };
            let release = releases::view_one(h, config, monorepo, repo, &row).await?;
            let events = kind
                .map(|k| releases::event(k, &repo.name, &release, &actor))
                .into_iter()
                .collect();
            Ok((release, events))
        },
    )
    .await?;
    Ok(Json(release))
}

/// A release's notes; `generate=1` writes them from the merges since the last published
/// release. `{tag}` may also be a tag with no release (notes up to its commit).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/notes", operation_id = "getReleaseNotes", tag = "releases",
    params(ReleasePath, NotesQuery),
    responses((status = 200, body = ReleaseNotes), (status = 404, body = ApiErrorBody)))]
pub async fn get_notes(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ReleasePath>,
    Query(q): Query<NotesQuery>,
) -> ApiResult<Json<ReleaseNotes>> {
    let mut conn = state.store.read().await?;
    let (_, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let release = match releases::find(conn.h(), &repo, &path.tag).await {
        Ok(row) => Some(row),
        Err(e) if e.status == StatusCode::NOT_FOUND => None,
        Err(e) => return Err(e),
    };
    let sha = match &release {
        Some(r) => r.sha.clone(),
        None => {
            let dir = crate::git::storage::repo_dir(&state.config.data_dir, &repo.id);
            let tags = crate::git::tags::in_git(&dir)
                .await
                .map_err(ApiError::internal)?;
            tags.get(&path.tag)
                .cloned()
                .ok_or_else(|| ApiError::not_found(&format!("release or tag {}", path.tag)))?
        }
    };
    let previous = notes::previous(conn.h(), &repo, release.as_ref()).await?;
    let text = match (&release, q.generate) {
        (Some(r), false) => r.notes.clone(),
        _ => notes::generate(conn.h(), &state, &repo, &sha, previous.as_ref()).await?,
    };
    Ok(Json(ReleaseNotes {
        tag: Some(release.map_or(path.tag.clone(), |r| r.tag)),
        commit: Some(sha),
        previous: previous.map(|p| p.tag),
        notes: text,
    }))
}

/// Notes for a release to be made: from the merges since the last published release up
/// to `target` (a commit on main, or main), or the commit of `tag` when git has it.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/release-notes", operation_id = "getNextReleaseNotes", tag = "releases",
    params(RepoPath, ToBeQuery),
    responses((status = 200, body = ReleaseNotes), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 422, body = ApiErrorBody, description = "not_on_main, empty_repo")))]
pub async fn notes_to_be(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<RepoPath>,
    Query(q): Query<ToBeQuery>,
) -> ApiResult<Json<ReleaseNotes>> {
    let repo = {
        let mut conn = state.store.read().await?;
        path.resolve(conn.h(), &caller, Need::Read).await?.1
    };
    let tag = q.tag.as_deref().unwrap_or_default();
    let sha = releases::commit_for(&state, &repo, tag, q.target.as_deref()).await?;
    let mut conn = state.store.read().await?;
    let previous = notes::previous(conn.h(), &repo, None).await?;
    let text = notes::generate(conn.h(), &state, &repo, &sha, previous.as_ref()).await?;
    Ok(Json(ReleaseNotes {
        tag: q.tag,
        commit: Some(sha),
        previous: previous.map(|p| p.tag),
        notes: text,
    }))
}

/// Uploads a file: the raw body, with `Content-Length` (411 without), at most
/// 100,000,000 bytes (413 as soon as the header says so), streamed to disk with its
/// SHA-256 computed on the way. `X-Svc-Sha256` has a mismatch refused (422) and nothing
/// kept. A name sent again replaces the file in one step (200); a new one is 201, the
/// 21st 409 `too_many_files`.
#[utoipa::path(put, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/files/{name}", operation_id = "uploadReleaseFile", tag = "releases",
    params(ReleaseFilePath,
        ("X-Svc-Sha256" = Option<String>, Header, description = "the bytes' SHA-256, 64 hex digits: a mismatch is refused")),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 200, body = ReleaseFile, description = "replaced"), (status = 201, body = ReleaseFile, description = "added"),
        (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "too_many_files"),
        (status = 411, body = ApiErrorBody, description = "no Content-Length"),
        (status = 413, body = ApiErrorBody, description = "too_large"),
        (status = 422, body = ApiErrorBody, description = "sha256_mismatch")))]
pub async fn upload(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<ReleaseFilePath>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<(StatusCode, Json<ReleaseFile>)> {
    releases::check_file_name(&path.name)?;
    let expected = files::expected_sha256(&headers)?;
    let length = files::declared_length(&headers)?;
    let (access, repo, release) = {
        let mut conn = state.store.read().await?;
        let (access, repo) = path.resolve(conn.h(), &caller, Need::Write).await?;
        let release = releases::find(conn.h(), &repo, &path.tag).await?;
        let present = rows::files(conn.h(), &[release.id]).await?;
        if present.len() >= FILES_MAX && !present.iter().any(|f| f.name == path.name) {
            return Err(too_many_files());
        }
        (access, repo, release)
    };
    let data_dir = &state.config.data_dir;
    let got = files::receive(data_dir, &repo.id, body, length, expected.as_deref()).await?;
    let new_blob = got.blob.clone();
    crate::crash::point("release.received");
    let kept = async {
        let mut tx = state.store.begin().await?;
        if !rows::lock(tx.h(), release.id).await? {
            return Err(ApiError::not_found(&format!("release {}", release.tag)));
        }
        let present = rows::files(tx.h(), &[release.id]).await?;
        let old = present.iter().find(|f| f.name == path.name).cloned();
        if old.is_none() && present.len() >= FILES_MAX {
            return Err(too_many_files());
        }
        let row = FileRow {
            release_id: release.id,
            name: path.name.clone(),
            size: i64::try_from(got.size).map_err(ApiError::internal)?,
            sha256: got.sha256.clone(),
            blob: got.blob.clone(),
            uploaded_at: now_ms(),
        };
        rows::put_file(tx.h(), &row).await?;
        let view =
            releases::view_one(tx.h(), &state.config, &access.monorepo, &repo, &release).await?;
        let event = releases::event("release.updated", &repo.name, &view, &actor(&caller, agent));
        crate::git::record::append(tx.h(), &repo, &[event], now_ms()).await?;
        tx.commit().await?;
        let file = releases::file_view(&state.config, &access.monorepo, &repo, &release.tag, &row);
        Ok::<_, ApiError>((old, file))
    }
    .await;
    match kept {
        Ok((old, file)) => {
            let status = match old {
                Some(old) => {
                    files::remove_blobs(data_dir, &[old.blob]).await;
                    StatusCode::OK
                }
                None => StatusCode::CREATED,
            };
            Ok((status, Json(file)))
        }
        Err(e) => {
            files::remove_blobs(data_dir, &[new_blob]).await;
            Err(e)
        }
    }
}

fn too_many_files() -> ApiError {
    ApiError::conflict(
        ErrorCode::TooManyFiles,
        format!("a release has at most {FILES_MAX} files: delete one first"),
    )
}

/// Downloads a file (`{tag}` may be `latest`): members, or anyone, with no credential,
/// when the repo's releases are public. `Content-Disposition: attachment`,
/// `X-Svc-Sha256`, `ETag`; `Range` answers 206 for resuming.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/files/{name}", operation_id = "downloadReleaseFile", tag = "releases",
    params(ReleaseFilePath),
    security((), ("bearer" = []), ("session" = [])),
    responses((status = 200, description = "the file's bytes", content_type = "application/octet-stream"),
        (status = 206, description = "the range asked for"),
        (status = 304, description = "If-None-Match matched"),
        (status = 404, body = ApiErrorBody),
        (status = 416, description = "the range is outside the file")))]
pub async fn download(
    State(state): State<AppState>,
    MaybeCaller(caller): MaybeCaller,
    Path(path): Path<ReleaseFilePath>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let file = {
        let mut conn = state.store.read().await?;
        let (_, repo) = path.resolve_download(conn.h(), caller.as_ref()).await?;
        let release = releases::find(conn.h(), &repo, &path.tag).await?;
        rows::file(conn.h(), release.id, &path.name)
            .await?
            .ok_or_else(|| ApiError::not_found(&format!("file {}", path.name)))?
    };
    files::serve(&state.config.data_dir, &file, &headers).await
}

/// Deletes a file.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/files/{name}", operation_id = "deleteReleaseFile", tag = "releases",
    params(ReleaseFilePath),
    responses((status = 204, description = "deleted"), (status = 404, body = ApiErrorBody)))]
pub async fn delete_file(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<ReleaseFilePath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let (access, repo) = path.resolve(tx.h(), &caller, Need::Write).await?;
    let release = releases::find(tx.h(), &repo, &path.tag).await?;
    let file = rows::file(tx.h(), release.id, &path.name)
        .await?
        .ok_or_else(|| ApiError::not_found(&format!("file {}", path.name)))?;
    rows::delete_file(tx.h(), release.id, &path.name).await?;
    let view = releases::view_one(tx.h(), &state.config, &access.monorepo, &repo, &release).await?;
    let event = releases::event("release.updated", &repo.name, &view, &actor(&caller, agent));
    crate::git::record::append(tx.h(), &repo, &[event], now_ms()).await?;
    tx.commit().await?;
    files::remove_blobs(&state.config.data_dir, &[file.blob]).await;
    Ok(StatusCode::NO_CONTENT)
}
