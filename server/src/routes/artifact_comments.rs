//! Comment threads on artifacts: add (a thread or a reply), get, edit or resolve, delete,
//! and the threads of one artifact or of a whole branch.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::artifact::{
    Anchor, ArtifactComment, ArtifactCommentUpdate, ArtifactThreadList, NewArtifactComment,
    ThreadState,
};

use crate::artifacts::comments::{
    REPLIES_MAX, THREADS_MAX, check_anchor, check_body, event, mentioned, threads, view,
};
use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Agent, Json, Path};
use crate::git::record::{Actor, append};
use crate::paths::{ArtifactCommentPath, ArtifactPath, BranchPath};
use crate::state::AppState;
use crate::store::artifacts::{self, CommentRow};
use crate::store::{monorepos, now_ms};

fn actor(caller: &Caller, agent: Option<String>) -> Actor {
    Actor {
        login: Some(caller.login.clone()),
        agent,
    }
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::bad_request(ErrorCode::BadRequest, message)
}

/// Starts a thread (on an `anchor`, a `quote` or the whole artifact) or replies in one
/// (`in_reply_to`). `@login` mentions of members are recorded. With an
/// `Idempotency-Key`, a retry answers the first comment (200, `Svc-Replayed: true`).
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}/comments", operation_id = "addArtifactComment", tag = "artifacts",
    params(ArtifactPath, ("Idempotency-Key" = Option<String>, Header, description = "Retries with this key answer the first comment")),
    request_body = NewArtifactComment,
    responses((status = 201, body = ArtifactComment), (status = 200, body = ArtifactComment, description = "a replay of an Idempotency-Key"),
        (status = 400, body = ApiErrorBody, description = "bad_request, too_many_mentions"),
        (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "too_many_threads, too_many_replies"),
        (status = 413, body = ApiErrorBody, description = "too_large: a body over 64 KiB"),
        (status = 422, body = ApiErrorBody, description = "idempotency_key_reused")))]
pub async fn add(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    headers: HeaderMap,
    Path(path): Path<ArtifactPath>,
    Json(body): Json<NewArtifactComment>,
) -> ApiResult<Response> {
    let key = crate::extract::idempotency_key(&headers)?;
    check_body(&body.body)?;
    let asked = mentioned(&body.body)?;
    let anchor = match (&body.anchor, &body.quote) {
        (Some(_), Some(_)) => return Err(bad("a thread takes an anchor or a quote, not both")),
        (Some(a), None) => {
            check_anchor(a)?;
            Some(a.clone())
        }
        (None, Some(q)) => {
            let quote = Anchor {
                block_id: "external".into(),
                start: 0,
                end: 0,
                exact: q.clone(),
                prefix: None,
                suffix: None,
            };
            check_anchor(&quote)?;
            Some(quote)
        }
        (None, None) => None,
    };
    if body.in_reply_to.is_some() && anchor.is_some() {
        return Err(bad("a reply takes neither an anchor nor a quote"));
    }
    let request = hex::encode(Sha256::digest(
        serde_json::to_string(&(
            &path.owner,
            &path.monorepo,
            &path.repo,
            &path.branch,
            &path.name,
            &body,
        ))
        .unwrap_or_default()
        .as_bytes(),
    ));
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let (access, repo, artifact) = path.artifact(tx.h(), &caller, Need::Write).await?;
    if let Some(key) = &key
        && let Some(first) = artifacts::comment_by_key(tx.h(), &caller.user_id, key).await?
    {
        if first.request.as_deref() != Some(request.as_str()) {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::IdempotencyKeyReused,
                "this Idempotency-Key was used with another request",
            ));
        }
        let mut response = Json(view(&first)).into_response();
        response
            .headers_mut()
            .insert("svc-replayed", HeaderValue::from_static("true"));
        return Ok(response);
    }
    crate::store::repos::lock(tx.h(), &repo.id).await?;
    let members = monorepos::members(tx.h(), &access.monorepo.id).await?;
    let mentions: Vec<&str> = asked
        .iter()
        .filter(|login| members.iter().any(|m| m.login.eq_ignore_ascii_case(login)))
        .map(String::as_str)
        .collect();
    let newest = artifacts::newest_n(tx.h(), &artifact.id).await?;
    let id = crate::token::new_id("ac_");
    let (thread, version, root) = match &body.in_reply_to {
        Some(of) => {
            let replied = artifacts::comment(tx.h(), of)
                .await?
                .filter(|c| c.artifact_id == artifact.id)
                .ok_or_else(|| ApiError::not_found(&format!("comment {of}")))?;
            let root = artifacts::comment(tx.h(), &replied.thread)
                .await?
                .ok_or_else(|| ApiError::not_found(&format!("comment {of}")))?;
            if root.reply_count >= REPLIES_MAX {
                return Err(ApiError::conflict(
                    ErrorCode::TooManyReplies,
                    format!("a thread has at most {REPLIES_MAX} replies"),
                ));
            }
            (
                root.id.clone(),
                body.version.unwrap_or(root.version),
                Some(root),
            )
        }
        None => {
            if artifacts::thread_count(tx.h(), &artifact.id).await? >= THREADS_MAX {
                return Err(ApiError::conflict(
                    ErrorCode::TooManyThreads,
                    format!("an artifact has at most {THREADS_MAX} threads"),
                ));
            }
            (id.clone(), body.version.unwrap_or(newest), None)
        }
    };
    if version < 1 || version > newest {
        return Err(ApiError::not_found(&format!(
            "version {version} of {}",
            artifact.name
        )));
    }
    let row = CommentRow {
        id: id.clone(),
        artifact_id: artifact.id.clone(),
        thread,
        version,
        anchor: anchor.map(|a| serde_json::to_string(&a).unwrap_or_default()),
        body: Some(body.body.clone()),
        author_id: caller.user_id.clone(),
        author: caller.login.clone(),
        mentions: mentions.join(" "),
        state: root
            .is_none()
            .then(|| ThreadState::Open.as_str().to_owned()),
        reply_count: 0,
        created_at: now,
        updated_at: now,
        body_version: 1,
        idempotency_key: key,
        request: Some(request),
    };
    artifacts::insert_comment(tx.h(), &row).await?;
    let who = actor(&caller, agent);
    let mut pending = vec![event(
        "artifact_comment.added",
        &row,
        &artifact,
        &repo.name,
        false,
        &who,
    )];
    if let Some(mut root) = root {
        root.reply_count += 1;
        artifacts::put_comment(tx.h(), &root).await?;
        pending.push(event(
            "artifact_comment.edited",
            &root,
            &artifact,
            &repo.name,
            false,
            &who,
        ));
    }
    append(tx.h(), &repo, &pending, now).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(view(&row))).into_response())
}

/// One comment, whole.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/artifact-comments/{id}", operation_id = "getArtifactComment", tag = "artifacts",
    params(ArtifactCommentPath),
    responses((status = 200, body = ArtifactComment), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ArtifactCommentPath>,
) -> ApiResult<Json<ArtifactComment>> {
    let mut conn = state.store.read().await?;
    let (_, _, comment, _) = path.comment(conn.h(), &caller, Need::Read).await?;
    Ok(Json(view(&comment)))
}

/// Edits your own comment's body (`base_version` stale: 409 `edited` with `current`), or
/// sets a thread's state (any member; answers the thread's root).
#[utoipa::path(patch, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/artifact-comments/{id}", operation_id = "updateArtifactComment", tag = "artifacts",
    params(ArtifactCommentPath), request_body = ArtifactCommentUpdate,
    responses((status = 200, body = ArtifactComment, description = "the comment, or the thread's root for a state"),
        (status = 400, body = ApiErrorBody, description = "bad_request, too_many_mentions"),
        (status = 403, body = ApiErrorBody, description = "not_author"),
        (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "edited: base_version is stale (carries current)"),
        (status = 413, body = ApiErrorBody, description = "too_large")))]
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<ArtifactCommentPath>,
    Json(body): Json<ArtifactCommentUpdate>,
) -> ApiResult<Json<ArtifactComment>> {
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let (access, repo, comment, artifact) = path.comment(tx.h(), &caller, Need::Write).await?;
    let who = actor(&caller, agent);
    let changed = match (body.body, body.state) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(bad("send a body or a state"));
        }
        (None, Some(state)) => {
            let mut root = if comment.thread == comment.id {
                comment
            } else {
                artifacts::comment(tx.h(), &comment.thread)
                    .await?
                    .ok_or_else(|| ApiError::not_found("the thread's root"))?
            };
            if root.state.as_deref() != Some(state.as_str()) {
                root.state = Some(state.as_str().into());
                root.updated_at = now;
                artifacts::put_comment(tx.h(), &root).await?;
                let kind = match state {
                    ThreadState::Resolved => "artifact_comment.resolved",
                    ThreadState::Open => "artifact_comment.reopened",
                };
                let e = event(kind, &root, &artifact, &repo.name, false, &who);
                append(tx.h(), &repo, &[e], now).await?;
            }
            root
        }
        (Some(text), None) => {
            let mut comment = comment;
            if comment.author_id != caller.user_id {
                return Err(ApiError::forbidden(
                    ErrorCode::NotAuthor,
                    "only its author edits a comment",
                ));
            }
            if comment.body.is_none() {
                return Err(ApiError::not_found("a deleted comment"));
            }
            if body.base_version.is_some_and(|v| v != comment.body_version) {
                return Err(ApiError::conflict(
                    ErrorCode::Edited,
                    format!(
                        "the comment was edited meanwhile (now version {})",
                        comment.body_version
                    ),
                )
                .with_current(comment.body.clone()));
            }
            check_body(&text)?;
            let members = monorepos::members(tx.h(), &access.monorepo.id).await?;
            let mentions: Vec<String> = mentioned(&text)?
                .into_iter()
                .filter(|login| members.iter().any(|m| m.login.eq_ignore_ascii_case(login)))
                .collect();
            comment.body = Some(text);
            comment.mentions = mentions.join(" ");
            comment.body_version += 1;
            comment.updated_at = now;
            artifacts::put_comment(tx.h(), &comment).await?;
            let e = event(
                "artifact_comment.edited",
                &comment,
                &artifact,
                &repo.name,
                false,
                &who,
            );
            append(tx.h(), &repo, &[e], now).await?;
            comment
        }
    };
    tx.commit().await?;
    Ok(Json(view(&changed)))
}

/// Deletes your own comment. A root with replies keeps its place with a null body and
/// goes with its last reply.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/artifact-comments/{id}", operation_id = "deleteArtifactComment", tag = "artifacts",
    params(ArtifactCommentPath),
    responses((status = 204, description = "deleted"),
        (status = 403, body = ApiErrorBody, description = "not_author"),
        (status = 404, body = ApiErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Agent(agent): Agent,
    Path(path): Path<ArtifactCommentPath>,
) -> ApiResult<StatusCode> {
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let (_, repo, comment, artifact) = path.comment(tx.h(), &caller, Need::Write).await?;
    if comment.author_id != caller.user_id {
        return Err(ApiError::forbidden(
            ErrorCode::NotAuthor,
            "only its author deletes a comment",
        ));
    }
    if comment.body.is_none() {
        return Err(ApiError::not_found(&format!(
            "artifact comment {}",
            comment.id
        )));
    }
    let who = actor(&caller, agent);
    let kind = "artifact_comment.deleted";
    let mut pending = Vec::new();
    if comment.thread == comment.id && comment.reply_count > 0 {
        let kept = CommentRow {
            body: None,
            mentions: String::new(),
            updated_at: now,
            ..comment
        };
        artifacts::put_comment(tx.h(), &kept).await?;
        pending.push(event(kind, &kept, &artifact, &repo.name, false, &who));
    } else {
        artifacts::delete_comment(tx.h(), &comment.id).await?;
        pending.push(event(kind, &comment, &artifact, &repo.name, true, &who));
        if comment.thread != comment.id
            && let Some(mut root) = artifacts::comment(tx.h(), &comment.thread).await?
        {
            root.reply_count -= 1;
            if root.body.is_none() && root.reply_count == 0 {
                artifacts::delete_comment(tx.h(), &root.id).await?;
                pending.push(event(kind, &root, &artifact, &repo.name, true, &who));
            } else {
                artifacts::put_comment(tx.h(), &root).await?;
                pending.push(event(
                    "artifact_comment.edited",
                    &root,
                    &artifact,
                    &repo.name,
                    false,
                    &who,
                ));
            }
        }
    }
    append(tx.h(), &repo, &pending, now).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The threads on every version of one artifact: roots oldest first, each with its
/// replies.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}/threads", operation_id = "listArtifactThreads", tag = "artifacts",
    params(ArtifactPath),
    responses((status = 200, body = ArtifactThreadList), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<ArtifactPath>,
) -> ApiResult<Json<ArtifactThreadList>> {
    let mut conn = state.store.read().await?;
    let (_, repo, artifact) = path.artifact(conn.h(), &caller, Need::Read).await?;
    let rows = artifacts::comments(conn.h(), &repo.id, &path.branch, Some(&artifact.id)).await?;
    Ok(Json(ArtifactThreadList {
        items: threads(&rows, std::slice::from_ref(&artifact)),
    }))
}

/// The threads on every artifact of the branch: roots oldest first, each with its
/// replies and its artifact's name.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifact-threads", operation_id = "listBranchArtifactThreads", tag = "artifacts",
    params(BranchPath),
    responses((status = 200, body = ArtifactThreadList), (status = 404, body = ApiErrorBody)))]
pub async fn branch(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<BranchPath>,
) -> ApiResult<Json<ArtifactThreadList>> {
    let mut conn = state.store.read().await?;
    let (_, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
    let rows = artifacts::comments(conn.h(), &repo.id, &path.branch, None).await?;
    let on_branch = artifacts::on_branch(conn.h(), &repo.id, &path.branch).await?;
    Ok(Json(ArtifactThreadList {
        items: threads(&rows, &on_branch),
    }))
}
