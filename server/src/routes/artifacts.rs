//! Artifacts on a branch: upload (a new artifact or its next version), list, get with
//! every version, delete, and each version's files and rendered document, served under a
//! sandbox policy so an uploaded page can never act as the service.

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::artifact::{Artifact, ArtifactKind, ArtifactList};

use crate::artifacts::upload::{self, Upload};
use crate::artifacts::{blobs, document, event, view};
use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path};
use crate::git::record::{Actor, append};
use crate::paths::{ArtifactFilePath, ArtifactPath, ArtifactVersionPath, BranchPath};
use crate::state::AppState;
use crate::store::artifacts::{self, ArtifactRow, FileRow, VersionRow};
use crate::store::{branches, now_ms};

/// Artifacts one branch may hold.
const ARTIFACTS_MAX: i64 = 100;

/// What every file and document answer carries: no script, no fetch, no form, no
/// navigation of the service's origin.
fn too_many_artifacts() -> ApiError {
    ApiError::conflict(
        ErrorCode::TooManyArtifacts,
        format!("a branch holds at most {ARTIFACTS_MAX} artifacts: delete one first"),
    )
}

fn actor(caller: &Caller, agent: Option<String>) -> Actor {
    Actor {
        login: Some(caller.login.clone()),
        agent,
    }
}

/// addArtifact's multipart form: one `file` part, and one `image` part per image the
/// document uses.
// A schema only, never built: the handler reads the parts as they stream in (`upload`).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct ArtifactUpload {
    /// The document or image.
    #[schema(value_type = String, format = Binary)]
    file: (),
    #[schema(schema_with = binary_files)]
    image: Option<()>,
}

/// A list of files, as `ArtifactUpload.image` is.
fn binary_files() -> utoipa::openapi::Array {
    use utoipa::openapi::schema::{ArrayBuilder, KnownFormat, ObjectBuilder, SchemaFormat, Type};
    ArrayBuilder::new()
        .description(Some(
            "Each image the document uses, its file name its path from the document.",
        ))
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary))),
        )
        .build()
}

/// Uploads an artifact, or the next version of the one of that name (any member).
/// Multipart: one `file` field and one `image` field per image the document uses.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts", operation_id = "addArtifact", tag = "artifacts",
    params(BranchPath),
    request_body(content = inline(ArtifactUpload), content_type = "multipart/form-data", description = "`file`: the document (.md, .markdown, .html, .htm) or image (.png, .jpg, .jpeg, .gif, .webp, .svg), its file name the artifact's; `image`: each image the document uses, its file name its path from the document. 10 MiB in all, a document 1.5 MiB, 20 files."),
    responses((status = 201, body = Artifact, description = "the artifact with its versions"),
        (status = 400, body = ApiErrorBody, description = "bad_request (names, paths, types), too_many_files"),
        (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "too_many_artifacts: the branch has 100"),
        (status = 411, body = ApiErrorBody, description = "no Content-Length"),
        (status = 413, body = ApiErrorBody, description = "too_large")))]
pub async fn add(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<BranchPath>,
    request: Request,
) -> ApiResult<(StatusCode, Json<Artifact>)> {
    let repo = {
        let mut conn = state.store.read().await?;
        let (_, repo) = path.resolve(conn.h(), &caller, Need::Write).await?;
        let live = path.branch == repo.default_branch
            || branches::get(conn.h(), &repo.id, &path.branch)
                .await?
                .is_some_and(|b| b.state != "deleted");
        if !live {
            return Err(crate::paths::branch_not_found(conn.h(), &repo, &path.branch).await?);
        }
        repo
    };
    let upload: Upload = upload::read(request).await?;
    let name = upload.name().to_owned();
    let known = {
        let mut conn = state.store.read().await?;
        let known = artifacts::by_name(conn.h(), &repo.id, &path.branch, &name).await?;
        // Refused before any bytes are written (and again in the transaction).
        if known.is_none()
            && artifacts::count_on_branch(conn.h(), &repo.id, &path.branch).await? >= ARTIFACTS_MAX
        {
            return Err(too_many_artifacts());
        }
        known
    };
    let now = now_ms();
    let mut id = known
        .as_ref()
        .map_or_else(|| crate::token::new_id("art_"), |k| k.id.clone());
    for f in &upload.files {
        blobs::put(&state.config.data_dir, &id, &f.sha256, &f.bytes).await?;
    }
    let mut tx = state.store.begin().await?;
    crate::store::repos::lock(tx.h(), &repo.id).await?;
    let current = artifacts::by_name(tx.h(), &repo.id, &path.branch, &name).await?;
    let mut orphan = None;
    let (row, kind) = match current {
        Some(row) => {
            if row.kind != upload.kind.as_str() {
                return Err(ApiError::bad_request(
                    ErrorCode::BadRequest,
                    format!("{name} is a {}; a version cannot change its kind", row.kind),
                ));
            }
            if row.id != id {
                // Another upload made the artifact meanwhile: this one is its next version.
                for f in &upload.files {
                    blobs::put(&state.config.data_dir, &row.id, &f.sha256, &f.bytes).await?;
                }
                orphan = Some(std::mem::replace(&mut id, row.id.clone()));
            }
            artifacts::touch(tx.h(), &id, now).await?;
            (
                ArtifactRow {
                    updated_at: now,
                    ..row
                },
                "artifact.versioned",
            )
        }
        None => {
            if artifacts::count_on_branch(tx.h(), &repo.id, &path.branch).await? >= ARTIFACTS_MAX {
                return Err(too_many_artifacts());
            }
            let row = ArtifactRow {
                id: id.clone(),
                repo_id: repo.id.clone(),
                branch: path.branch.clone(),
                name: name.clone(),
                kind: upload.kind.as_str().into(),
                created_at: now,
                updated_at: now,
            };
            artifacts::insert(tx.h(), &row).await?;
            (row, "artifact.added")
        }
    };
    let n = artifacts::newest_n(tx.h(), &id).await? + 1;
    artifacts::insert_version(
        tx.h(),
        &VersionRow {
            artifact_id: id.clone(),
            n,
            created_at: now,
            created_by: caller.login.clone(),
            sha256: upload.files[0].sha256.clone(),
            size: upload.size(),
        },
    )
    .await?;
    for (position, f) in upload.files.iter().enumerate() {
        artifacts::insert_file(
            tx.h(),
            &FileRow {
                artifact_id: id.clone(),
                n,
                position: position as i64,
                path: f.path.clone(),
                sha256: f.sha256.clone(),
                size: f.bytes.len() as i64,
                content_type: f.content_type.into(),
            },
        )
        .await?;
    }
    let (versions, files) = artifacts::versions(tx.h(), &id).await?;
    let artifact = view(&row, &repo.name, &versions, &files);
    let newest = view(
        &row,
        &repo.name,
        &versions[versions.len().saturating_sub(1)..],
        &files,
    );
    append(
        tx.h(),
        &repo,
        &[event(kind, &newest, &actor(&caller, agent))],
        now,
    )
    .await?;
    tx.commit().await?;
    if let Some(orphan) = orphan {
        blobs::remove(&state.config.data_dir, &orphan).await;
    }
    Ok((StatusCode::CREATED, Json(artifact)))
}

/// The branch's artifacts, newest first, each with its newest version.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts", operation_id = "listArtifacts", tag = "artifacts",
    params(BranchPath),
    responses((status = 200, body = ArtifactList), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<BranchPath>,
) -> ApiResult<Json<ArtifactList>> {
    let mut conn = state.store.read().await?;
    let (_, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let rows = artifacts::on_branch(conn.h(), &repo.id, &path.branch).await?;
    let (versions, files) = artifacts::newest_on_branch(conn.h(), &repo.id, &path.branch).await?;
    Ok(Json(ArtifactList {
        items: rows
            .iter()
            .map(|a| view(a, &repo.name, &versions, &files))
            .collect(),
    }))
}

/// One artifact with every version, oldest first.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}", operation_id = "getArtifact", tag = "artifacts",
    params(ArtifactPath),
    responses((status = 200, body = Artifact), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ArtifactPath>,
) -> ApiResult<Json<Artifact>> {
    let mut conn = state.store.read().await?;
    let (_, repo, row) = path.artifact(conn.h(), &caller, Need::Read).await?;
    let (versions, files) = artifacts::versions(conn.h(), &row.id).await?;
    Ok(Json(view(&row, &repo.name, &versions, &files)))
}

/// Deletes an artifact (any member): every version, its bytes and its comments.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}", operation_id = "deleteArtifact", tag = "artifacts",
    params(ArtifactPath),
    responses((status = 204, description = "deleted"), (status = 404, body = ApiErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<ArtifactPath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let (_, repo, row) = path.artifact(tx.h(), &caller, Need::Write).await?;
    artifacts::delete(tx.h(), &row.id).await?;
    let gone = view(&row, &repo.name, &[], &[]);
    let now = now_ms();
    append(
        tx.h(),
        &repo,
        &[event("artifact.deleted", &gone, &actor(&caller, agent))],
        now,
    )
    .await?;
    tx.commit().await?;
    blobs::remove(&state.config.data_dir, &row.id).await;
    Ok(StatusCode::NO_CONTENT)
}

/// A file's bytes as an answer under the sandbox policy.
fn sandboxed(content_type: &str, sha256: &str, bytes: Vec<u8>) -> Response {
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    let value = |s: &str| HeaderValue::from_str(s).unwrap_or(HeaderValue::from_static("invalid"));
    headers.insert(header::CONTENT_TYPE, value(content_type));
    crate::served::protect(headers);
    headers.insert("x-svc-sha256", value(sha256));
    // A version never changes; its bytes may be kept.
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=31536000, immutable"),
    );
    response
}

/// One file of a version: its type from its extension, under
/// `Content-Security-Policy: sandbox; default-src 'none'; frame-ancestors 'none'` and
/// `X-Content-Type-Options: nosniff`, with `X-Svc-Sha256`.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}/versions/{n}/files/{file}", operation_id = "getArtifactFile", tag = "artifacts",
    params(ArtifactFilePath),
    responses((status = 200, description = "the file's bytes",
            headers(("Content-Security-Policy" = String, description = "sandbox; default-src 'none'; frame-ancestors 'none'"),
                ("X-Svc-Sha256" = String, description = "the bytes' SHA-256"))),
        (status = 404, body = ApiErrorBody)))]
pub async fn file(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ArtifactFilePath>,
) -> ApiResult<Response> {
    let found = {
        let mut conn = state.store.read().await?;
        let (_, _, row) = path.version().artifact(conn.h(), &caller).await?;
        artifacts::file(conn.h(), &row.id, path.n, &path.file).await?
    }
    .ok_or_else(|| ApiError::not_found(&format!("file {} of version {}", path.file, path.n)))?;
    let bytes = blobs::read(&state.config.data_dir, &found.artifact_id, &found.sha256).await?;
    Ok(sandboxed(&found.content_type, &found.sha256, bytes))
}

/// A version's document with each image it names from its own files as a `data:`
/// address (Markdown rendered to HTML: CommonMark with tables), under the same sandbox
/// policy; an image artifact answers its image.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}/versions/{n}/document", operation_id = "getArtifactDocument", tag = "artifacts",
    params(ArtifactVersionPath),
    responses((status = 200, description = "the document as HTML, or the image", content_type = "text/html",
            headers(("Content-Security-Policy" = String, description = "sandbox; default-src 'none'; frame-ancestors 'none'"))),
        (status = 404, body = ApiErrorBody)))]
pub async fn document(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ArtifactVersionPath>,
) -> ApiResult<Response> {
    let (row, files) = {
        let mut conn = state.store.read().await?;
        let (_, _, row) = path.artifact(conn.h(), &caller).await?;
        let (_, files) = artifacts::versions(conn.h(), &row.id).await?;
        (row, files)
    };
    let files: Vec<FileRow> = files.into_iter().filter(|f| f.n == path.n).collect();
    let Some(main) = files.first() else {
        return Err(ApiError::not_found(&format!(
            "version {} of {}",
            path.n, row.name
        )));
    };
    let dir = &state.config.data_dir;
    let main_bytes = blobs::read(dir, &row.id, &main.sha256).await?;
    if row.kind == ArtifactKind::Image.as_str() {
        return Ok(sandboxed(&main.content_type, &main.sha256, main_bytes));
    }
    let mut images = Vec::with_capacity(files.len() - 1);
    for f in &files[1..] {
        images.push((f, blobs::read(dir, &row.id, &f.sha256).await?));
    }
    let named: Vec<(&str, &str, &[u8])> = images
        .iter()
        .map(|(f, b)| (f.path.as_str(), f.content_type.as_str(), b.as_slice()))
        .collect();
    let html = document::render(&row.name, &main_bytes, &named);
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(html.as_bytes()));
    Ok(sandboxed(
        "text/html; charset=utf-8",
        &digest,
        html.into_bytes(),
    ))
}
