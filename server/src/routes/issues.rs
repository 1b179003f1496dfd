//! Issues: monorepo-wide, numbered from 1, with labels, assignees, links to branches,
//! comments, reactions and a timeline. Every change writes its timeline items and one
//! `issue.*` event in its transaction.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::issue::{
    CommentBody, CreateIssue, Issue, IssueComment, IssueList, IssueState, Reaction,
    ReactionContent, StateReason, Timeline, TimelineItem, UpdateIssue,
};

use crate::auth::Caller;
use crate::authz::{self, Need};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query, page_limit};
use crate::issues::{By, LIVE_BODY_MAX, NewItem, full, reactions_of, record, view_row, with_lists};
use crate::paths::{
    CommentReactionPath, IssueCommentPath, IssuePath, IssueReactionPath, MonorepoPath,
};
use crate::search::{self, Syntax};
use crate::state::AppState;
use crate::store::issues::{self, CommentRow, Filter, IssueRow, ItemRow, Sort};
use crate::store::{Db, H, labels, now_ms, repos, time_of, users};

const TITLE_MAX: usize = 256;
const BODY_MAX: usize = 65_536;
/// How long an `Idempotency-Key` answers the first issue.
const KEY_KEPT_MS: i64 = 24 * 3600 * 1000;

/// A title: up to 256 characters as sent (the schema's count), not blank, one line.
fn title(t: &str) -> ApiResult<String> {
    let too_long = t.chars().count() > TITLE_MAX;
    let t = t.trim();
    if t.is_empty() || too_long || t.chars().any(char::is_control) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("a title is 1 to {TITLE_MAX} characters on one line"),
        ));
    }
    Ok(t.to_owned())
}

fn body_size(b: &str) -> ApiResult<()> {
    if b.len() > BODY_MAX {
        return Err(ApiError::bad_request(
            ErrorCode::TooLarge,
            format!("a body is at most {BODY_MAX} bytes"),
        ));
    }
    Ok(())
}

fn comment_body(b: &str) -> ApiResult<()> {
    body_size(b)?;
    if b.trim().is_empty() {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "a comment needs a body",
        ));
    }
    Ok(())
}

pub(crate) fn item_view(r: &ItemRow, reactions: &[(i64, String, i64, bool)]) -> TimelineItem {
    let details: Map<String, Value> = serde_json::from_str(&r.details).unwrap_or_default();
    TimelineItem {
        id: r.id,
        kind: r.kind.clone(),
        actor: r.actor.clone(),
        created_at: time_of(r.created_at),
        body: r.body.clone(),
        updated_at: r.updated_at.map(time_of),
        reactions: r.comment_id.map(|c| reactions_of(reactions, c)),
        details,
    }
}

/// The repo named `name` must be one of the monorepo's.
async fn check_repo(h: H<'_>, monorepo_id: &str, name: &str) -> ApiResult<String> {
    let name = name.to_ascii_lowercase();
    match repos::by_name(h, monorepo_id, &name).await? {
        Some(r) if !r.is_meta => Ok(r.name),
        _ => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::BadRequest,
            format!("the monorepo has no repo named {name}"),
        )),
    }
}

/// An assignee must be someone who can open the monorepo.
async fn check_assignee(mut h: H<'_>, monorepo_id: &str, login: &str) -> ApiResult<String> {
    let login = login.to_ascii_lowercase();
    let user = users::by_login(h.reborrow(), &login).await?;
    match user {
        Some(u) if authz::role_of(h, monorepo_id, &u.id).await?.is_some() => Ok(login),
        _ => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::BadRequest,
            format!("{login} is not a member of this monorepo"),
        )),
    }
}

async fn label_id(h: H<'_>, monorepo_id: &str, name: &str) -> ApiResult<(i64, String)> {
    labels::id_of(h, monorepo_id, name).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::BadRequest,
            format!("no label named {name}"),
        )
    })
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    /// `open` (default), `closed` or `all`.
    pub(crate) state: Option<String>,
    /// Words that must all appear in the title or body, the last as a prefix (at most 10).
    pub(crate) q: Option<String>,
    /// Label names, comma-separated: issues with all of them.
    pub(crate) labels: Option<String>,
    /// An assignee's login.
    pub(crate) assignee: Option<String>,
    /// A repo's name.
    pub(crate) project: Option<String>,
    /// `newest` (default), `oldest`, `updated` or `comments`.
    pub(crate) sort: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1)]
    pub(crate) cursor: Option<String>,
    /// Issues a page, at most 100 (default 30).
    #[param(minimum = 1, maximum = 100)]
    pub(crate) limit: Option<i64>,
}

/// A page of issues with the open and closed counts for the same filters; keyset paging
/// that keeps the chosen sort.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/issues", operation_id = "listIssues", tag = "issues",
    params(MonorepoPath, ListQuery),
    responses((status = 200, body = IssueList), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Query(q): Query<ListQuery>,
) -> ApiResult<Json<IssueList>> {
    let limit = page_limit(q.limit, 30, 100)?;
    let wanted = match q.state.as_deref().unwrap_or("open") {
        "all" => None,
        s => Some(
            IssueState::parse(s)
                .ok_or_else(|| {
                    ApiError::bad_request(ErrorCode::BadRequest, "state is open, closed or all")
                })?
                .as_str(),
        ),
    };
    let sort = Sort::parse(q.sort.as_deref().unwrap_or("newest")).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::BadRequest,
            "sort is newest, oldest, updated or comments",
        )
    })?;
    let after = match q.cursor.as_deref() {
        None => None,
        Some(c) => {
            let (key, number) = c.split_once(':').ok_or_else(ApiError::bad_cursor)?;
            Some((
                key.parse::<i64>().map_err(|_| ApiError::bad_cursor())?,
                number.parse::<i64>().map_err(|_| ApiError::bad_cursor())?,
            ))
        }
    };
    let mut conn = state.store.read().await?;
    let syntax = match conn.h().db {
        Db::Sqlite(_) => Syntax::Fts5,
        Db::Postgres(_) => Syntax::TsQuery,
    };
    let filter = Filter {
        labels: q
            .labels
            .as_deref()
            .map(|l| {
                l.split(',')
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        assignee: q.assignee.clone(),
        project: q.project.as_deref().map(str::to_ascii_lowercase),
        search: match q.q.as_deref() {
            Some(text) => search::query(text, syntax)?,
            None => None,
        },
    };
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let id = &access.monorepo.id;
    let mut rows = issues::page(conn.h(), id, wanted, &filter, sort, after, limit + 1).await?;
    let more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let next_cursor = more
        .then(|| rows.last().map(|r| format!("{}:{}", sort.key(r), r.number)))
        .flatten();
    let (open_count, closed_count) = issues::counts(conn.h(), id, &filter).await?;
    let items = with_lists(conn.h(), rows).await?;
    Ok(Json(IssueList {
        items: items.iter().map(view_row).collect(),
        next_cursor,
        open_count,
        closed_count,
    }))
}

/// The request an `Idempotency-Key` was first used with, to tell a retry from a reuse.
fn fingerprint(monorepo_id: &str, body: &CreateIssue) -> String {
    let text = serde_json::to_string(&(monorepo_id, body)).unwrap_or_default();
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Opens an issue. With an `Idempotency-Key`, a retry by the same person answers the
/// first issue (200, `Svc-Replayed: true`) for 24 hours; the same key with another
/// request is 422.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/issues", operation_id = "createIssue", tag = "issues",
    params(MonorepoPath, ("Idempotency-Key" = Option<String>, Header, description = "Retries with this key answer the first issue")),
    request_body = CreateIssue,
    responses((status = 201, body = Issue), (status = 200, body = Issue, description = "a replay of an Idempotency-Key"),
        (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 422, body = ApiErrorBody, description = "unknown label, assignee or repo; idempotency_key_reused")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<CreateIssue>,
) -> ApiResult<Response> {
    let key = crate::extract::idempotency_key(&headers)?;
    let the_title = title(&body.title)?;
    let the_body = body.body.clone().unwrap_or_default();
    body_size(&the_body)?;
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Write).await?;
    let id = access.monorepo.id.clone();
    let request = fingerprint(&id, &body);
    if let Some(key) = &key
        && let Some((first, monorepo_id, number)) =
            issues::idempotent(tx.h(), &caller.user_id, key, now - KEY_KEPT_MS).await?
    {
        if first != request {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::IdempotencyKeyReused,
                "this Idempotency-Key was used with another request",
            ));
        }
        let row = issues::by_number(tx.h(), &monorepo_id, number)
            .await?
            .ok_or_else(|| ApiError::not_found(&format!("issue #{number}")))?;
        let issue = full(tx.h(), row, &caller.login).await?;
        let mut response = Json(issue).into_response();
        response
            .headers_mut()
            .insert("svc-replayed", HeaderValue::from_static("true"));
        return Ok(response);
    }
    let project = match &body.project {
        Some(p) => Some(check_repo(tx.h(), &id, p).await?),
        None => None,
    };
    let mut label_ids = Vec::new();
    for name in &body.labels {
        label_ids.push(label_id(tx.h(), &id, name).await?.0);
    }
    let mut assignees = Vec::new();
    for login in &body.assignees {
        assignees.push(check_assignee(tx.h(), &id, login).await?);
    }
    let mut links = Vec::new();
    for link in &body.link {
        links.push((
            check_repo(tx.h(), &id, &link.repo).await?,
            link.branch.clone(),
        ));
    }
    let number = issues::next_number(tx.h(), &id).await?;
    let mut row = IssueRow {
        id: 0,
        monorepo_id: id.clone(),
        number,
        title: the_title,
        body: the_body,
        body_version: 1,
        state: "open".into(),
        state_reason: None,
        author: caller.login.clone(),
        project,
        comments: 0,
        created_at: now,
        updated_at: now,
        closed_at: None,
    };
    row.id = issues::insert(tx.h(), &row).await?;
    issues::index(
        tx.h(),
        row.id,
        &search::fold(&row.title),
        &search::fold(&row.body),
    )
    .await?;
    for label in label_ids {
        issues::add_label(tx.h(), row.id, label).await?;
    }
    for login in &assignees {
        issues::add_assignee(tx.h(), row.id, login).await?;
    }
    for (repo, branch) in &links {
        issues::add_link(tx.h(), row.id, repo, branch).await?;
    }
    if let Some(key) = &key {
        issues::remember_key(
            tx.h(),
            &caller.user_id,
            key,
            &request,
            &id,
            number,
            (now, now - KEY_KEPT_MS),
        )
        .await?;
    }
    let issue = full(tx.h(), row, &caller.login).await?;
    record(
        tx.h(),
        &id,
        &issue,
        "issue.opened",
        Vec::new(),
        By::caller(&caller),
        json!({"body": issue.body}),
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(issue)).into_response())
}

/// One issue with its body, links, participants and reactions.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}", operation_id = "getIssue", tag = "issues",
    params(IssuePath),
    responses((status = 200, body = Issue), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssuePath>,
) -> ApiResult<Json<Issue>> {
    let mut conn = state.store.read().await?;
    let (_, row) = path.load(conn.h(), &caller, Need::Read).await?;
    Ok(Json(full(conn.h(), row, &caller.login).await?))
}

/// Any of the fields in one call: each change its own timeline item, the call one event;
/// nothing changes (no item, no event) when nothing differs.
#[utoipa::path(patch, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}", operation_id = "updateIssue", tag = "issues",
    params(IssuePath), request_body = UpdateIssue,
    responses((status = 200, body = Issue), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "edited: the body moved since base_version (with current)"),
        (status = 422, body = ApiErrorBody, description = "unknown label, assignee or repo")))]
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssuePath>,
    Json(body): Json<UpdateIssue>,
) -> ApiResult<Json<Issue>> {
    let new_title = body.title.as_deref().map(title).transpose()?;
    if let Some(b) = &body.body {
        body_size(b)?;
    }
    let mut tx = state.store.begin().await?;
    let (access, mut row) = path.load(tx.h(), &caller, Need::Write).await?;
    let id = access.monorepo.id.clone();
    let mut items = Vec::new();
    let mut item = |kind: &'static str, details: Value| {
        items.push(NewItem {
            kind,
            comment_id: None,
            details,
        });
    };
    if let Some(t) = new_title
        && t != row.title
    {
        item("renamed", json!({"from": row.title, "to": t}));
        row.title = t;
    }
    if let Some(b) = body.body
        && b != row.body
    {
        if body.base_version.is_some_and(|v| v != row.body_version) {
            return Err(ApiError::conflict(
                ErrorCode::Edited,
                format!(
                    "the body was edited since version {} (it is at version {}): merge your change into current and send it again",
                    body.base_version.unwrap_or_default(),
                    row.body_version
                ),
            )
            .with_current(Some(row.body)));
        }
        row.body = b;
        row.body_version += 1;
        item("edited", json!({"body_version": row.body_version}));
    }
    if let Some(wanted) = body.state
        && wanted.as_str() != row.state
    {
        match wanted {
            IssueState::Closed => {
                let reason = body.state_reason.unwrap_or(StateReason::Completed);
                row.state_reason = Some(reason.as_str().to_owned());
                row.closed_at = Some(now_ms());
                item("closed", json!({"state_reason": reason}));
            }
            IssueState::Open => {
                row.state_reason = None;
                row.closed_at = None;
                item("reopened", json!({}));
            }
        }
        row.state = wanted.as_str().to_owned();
    }
    if let Some(project) = body.project {
        let project = match project {
            Some(p) => Some(check_repo(tx.h(), &id, &p).await?),
            None => None,
        };
        if project != row.project {
            item(
                "project_changed",
                json!({"from": row.project, "to": project}),
            );
            row.project = project;
        }
    }
    if let Some(change) = body.labels {
        for name in &change.add {
            let (label, name) = label_id(tx.h(), &id, name).await?;
            if issues::add_label(tx.h(), row.id, label).await? {
                item("labeled", json!({"label": name}));
            }
        }
        for name in &change.remove {
            let (label, name) = label_id(tx.h(), &id, name).await?;
            if issues::remove_label(tx.h(), row.id, label).await? {
                item("unlabeled", json!({"label": name}));
            }
        }
    }
    if let Some(change) = body.assignees {
        for login in &change.add {
            let login = check_assignee(tx.h(), &id, login).await?;
            if issues::add_assignee(tx.h(), row.id, &login).await? {
                item("assigned", json!({"assignee": login}));
            }
        }
        for login in &change.remove {
            let login = login.to_ascii_lowercase();
            if issues::remove_assignee(tx.h(), row.id, &login).await? {
                item("unassigned", json!({"assignee": login}));
            }
        }
    }
    if let Some(change) = body.links {
        for link in &change.add {
            let repo = check_repo(tx.h(), &id, &link.repo).await?;
            if issues::add_link(tx.h(), row.id, &repo, &link.branch).await? {
                item("linked", json!({"repo": repo, "branch": link.branch}));
            }
        }
        for link in &change.remove {
            let repo = link.repo.to_ascii_lowercase();
            if issues::remove_link(tx.h(), row.id, &repo, &link.branch).await? {
                item("unlinked", json!({"repo": repo, "branch": link.branch}));
            }
        }
    }
    if items.is_empty() {
        // Nothing differs: nothing is written, no event.
        return Ok(Json(full(tx.h(), row, &caller.login).await?));
    }
    row.updated_at = now_ms();
    issues::save(tx.h(), &row).await?;
    if items.iter().any(|i| matches!(i.kind, "renamed" | "edited")) {
        issues::index(
            tx.h(),
            row.id,
            &search::fold(&row.title),
            &search::fold(&row.body),
        )
        .await?;
    }
    let kind = if items.iter().any(|i| i.kind == "closed") {
        "issue.closed"
    } else if items.iter().any(|i| i.kind == "reopened") {
        "issue.reopened"
    } else {
        "issue.updated"
    };
    let issue = full(tx.h(), row, &caller.login).await?;
    record(
        tx.h(),
        &id,
        &issue,
        kind,
        items,
        By::caller(&caller),
        json!({}),
    )
    .await?;
    tx.commit().await?;
    Ok(Json(issue))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct TimelineQuery {
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1)]
    cursor: Option<String>,
    /// The newest N items, oldest first (1 to 250).
    #[param(minimum = 1, maximum = 250)]
    last: Option<i64>,
    /// Items a page, at most 250 (default 100).
    #[param(minimum = 1, maximum = 250)]
    limit: Option<i64>,
}

/// Comments and events, oldest first; `total` counts every item.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/timeline", operation_id = "issueTimeline", tag = "issues",
    params(IssuePath, TimelineQuery),
    responses((status = 200, body = Timeline), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn timeline(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssuePath>,
    Query(q): Query<TimelineQuery>,
) -> ApiResult<Json<Timeline>> {
    let after: i64 = match q.cursor.as_deref() {
        None => 0,
        Some(c) => c.parse().map_err(|_| ApiError::bad_cursor())?,
    };
    let newest = q.last.is_some();
    let limit = match q.last {
        Some(n) => page_limit(Some(n), 100, 250)?,
        None => page_limit(q.limit, 100, 250)?,
    };
    let mut conn = state.store.read().await?;
    let (_, row) = path.load(conn.h(), &caller, Need::Read).await?;
    let mut rows = issues::items(conn.h(), row.id, after, limit + 1, newest).await?;
    let more = !newest && rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    if newest {
        let extra = rows
            .len()
            .saturating_sub(usize::try_from(limit).unwrap_or(usize::MAX));
        rows.drain(..extra);
    } else {
        rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    let total = issues::item_count(conn.h(), row.id).await?;
    let reactions = issues::reactions(conn.h(), row.id, &caller.login).await?;
    Ok(Json(Timeline {
        next_cursor: more
            .then(|| rows.last().map(|r| r.id.to_string()))
            .flatten(),
        items: rows.iter().map(|r| item_view(r, &reactions)).collect(),
        total,
    }))
}

fn comment_view(c: &CommentRow, reactions: &[(i64, String, i64, bool)]) -> IssueComment {
    IssueComment {
        id: c.id,
        author: c.author.clone(),
        body: c.body.clone(),
        reactions: reactions_of(reactions, c.id),
        created_at: time_of(c.created_at),
        updated_at: time_of(c.updated_at),
    }
}

/// Comments on an issue (any member).
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments", operation_id = "addIssueComment", tag = "issues",
    params(IssuePath), request_body = CommentBody,
    responses((status = 201, body = IssueComment), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn add_comment(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssuePath>,
    Json(body): Json<CommentBody>,
) -> ApiResult<(StatusCode, Json<IssueComment>)> {
    comment_body(&body.body)?;
    let mut tx = state.store.begin().await?;
    let (access, mut row) = path.load(tx.h(), &caller, Need::Write).await?;
    let now = now_ms();
    let mut comment = CommentRow {
        id: 0,
        issue_id: row.id,
        author: caller.login.clone(),
        body: body.body,
        created_at: now,
        updated_at: now,
    };
    comment.id = issues::insert_comment(tx.h(), &comment).await?;
    row.comments += 1;
    row.updated_at = now;
    issues::save(tx.h(), &row).await?;
    let view = comment_view(&comment, &[]);
    let issue = full(tx.h(), row, &caller.login).await?;
    let item = NewItem {
        kind: "comment",
        comment_id: Some(comment.id),
        details: json!({}),
    };
    let live = json!({"id": view.id, "author": view.author,
        "body": (view.body.len() <= LIVE_BODY_MAX).then_some(&view.body)});
    record(
        tx.h(),
        &access.monorepo.id,
        &issue,
        "issue.commented",
        vec![item],
        By::caller(&caller),
        json!({"comment": live}),
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(view)))
}

/// One comment.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}", operation_id = "getIssueComment", tag = "issues",
    params(IssueCommentPath),
    responses((status = 200, body = IssueComment), (status = 404, body = ApiErrorBody)))]
pub async fn get_comment(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssueCommentPath>,
) -> ApiResult<Json<IssueComment>> {
    let mut conn = state.store.read().await?;
    let (_, issue, comment) = path.load(conn.h(), &caller, Need::Read).await?;
    let reactions = issues::reactions(conn.h(), issue.id, &caller.login).await?;
    Ok(Json(comment_view(&comment, &reactions)))
}

/// Edits a comment (its author only).
#[utoipa::path(patch, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}", operation_id = "updateIssueComment", tag = "issues",
    params(IssueCommentPath), request_body = CommentBody,
    responses((status = 200, body = IssueComment), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "not the comment's author"), (status = 404, body = ApiErrorBody)))]
pub async fn update_comment(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssueCommentPath>,
    Json(body): Json<CommentBody>,
) -> ApiResult<Json<IssueComment>> {
    comment_body(&body.body)?;
    let mut tx = state.store.begin().await?;
    let (access, issue, mut comment) = path.load(tx.h(), &caller, Need::Write).await?;
    if comment.author != caller.login {
        return Err(ApiError::forbidden(
            ErrorCode::Forbidden,
            "only its author may edit a comment",
        ));
    }
    if comment.body == body.body {
        let reactions = issues::reactions(tx.h(), issue.id, &caller.login).await?;
        return Ok(Json(comment_view(&comment, &reactions)));
    }
    comment.body = body.body;
    comment.updated_at = now_ms();
    issues::update_comment(tx.h(), comment.id, &comment.body, comment.updated_at).await?;
    let reactions = issues::reactions(tx.h(), issue.id, &caller.login).await?;
    let view = comment_view(&comment, &reactions);
    let live = json!({"id": view.id, "author": view.author,
        "body": (view.body.len() <= LIVE_BODY_MAX).then_some(&view.body)});
    let full_issue = full(tx.h(), issue, &caller.login).await?;
    record(
        tx.h(),
        &access.monorepo.id,
        &full_issue,
        "issue.updated",
        Vec::new(),
        By::caller(&caller),
        json!({"comment": live}),
    )
    .await?;
    tx.commit().await?;
    Ok(Json(view))
}

/// Deletes a comment (its author or any owner); it leaves the timeline.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}", operation_id = "deleteIssueComment", tag = "issues",
    params(IssueCommentPath),
    responses((status = 204), (status = 403, body = ApiErrorBody, description = "neither its author nor an owner"),
        (status = 404, body = ApiErrorBody)))]
pub async fn delete_comment(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssueCommentPath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let (access, mut issue, comment) = path.load(tx.h(), &caller, Need::Write).await?;
    // An agent session acting for an owner does not do what only owners do.
    let owner = access.role == svc_protocol::monorepo::Role::Owner && caller.scope.is_none();
    if comment.author != caller.login && !owner {
        return Err(ApiError::forbidden(
            ErrorCode::Forbidden,
            "only its author or an owner may delete a comment",
        ));
    }
    let removed: Vec<i64> = issues::items(tx.h(), issue.id, 0, i64::MAX, false)
        .await?
        .into_iter()
        .filter(|i| i.comment_id == Some(comment.id))
        .map(|i| i.id)
        .collect();
    issues::delete_comment(tx.h(), issue.id, comment.id).await?;
    issue.comments = (issue.comments - 1).max(0);
    issue.updated_at = now_ms();
    issues::save(tx.h(), &issue).await?;
    let full_issue = full(tx.h(), issue, &caller.login).await?;
    record(
        tx.h(),
        &access.monorepo.id,
        &full_issue,
        "issue.updated",
        Vec::new(),
        By::caller(&caller),
        json!({"removed": removed}),
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

fn content(s: &str) -> ApiResult<ReactionContent> {
    ReactionContent::parse(s).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::BadRequest,
            "a reaction is +1, -1, laugh, hooray, confused, heart, rocket or eyes",
        )
    })
}

/// Gives or takes back a reaction on the issue (comment 0) or a comment, and answers the
/// target's reactions.
async fn react(
    state: &AppState,
    caller: &Caller,
    path: &IssuePath,
    comment_id: i64,
    content: ReactionContent,
    give: bool,
) -> ApiResult<Json<Vec<Reaction>>> {
    let mut tx = state.store.begin().await?;
    let (access, issue) = path.load(tx.h(), caller, Need::Write).await?;
    if comment_id != 0
        && issues::comment(tx.h(), issue.id, comment_id)
            .await?
            .is_none()
    {
        return Err(ApiError::not_found("comment"));
    }
    let changed = issues::react(
        tx.h(),
        issue.id,
        comment_id,
        &caller.login,
        content.as_str(),
        give,
    )
    .await?;
    let all = issues::reactions(tx.h(), issue.id, &caller.login).await?;
    let reactions = reactions_of(&all, comment_id);
    if changed {
        let target = if comment_id == 0 {
            json!({"reactions": reactions})
        } else {
            json!({"reactions": reactions, "comment": {"id": comment_id}})
        };
        let full_issue = full(tx.h(), issue, &caller.login).await?;
        record(
            tx.h(),
            &access.monorepo.id,
            &full_issue,
            "issue.updated",
            Vec::new(),
            By::caller(caller),
            target,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(Json(reactions))
}

/// Reacts to the issue (one reaction per person and content).
#[utoipa::path(put, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/reactions/{content}", operation_id = "addIssueReaction", tag = "issues",
    params(IssueReactionPath),
    responses((status = 200, body = Vec<Reaction>), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn add_reaction(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssueReactionPath>,
) -> ApiResult<Json<Vec<Reaction>>> {
    react(
        &state,
        &caller,
        &path.issue(),
        0,
        content(&path.content)?,
        true,
    )
    .await
}

/// Takes back one's reaction to the issue.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/reactions/{content}", operation_id = "removeIssueReaction", tag = "issues",
    params(IssueReactionPath),
    responses((status = 200, body = Vec<Reaction>), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn remove_reaction(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssueReactionPath>,
) -> ApiResult<Json<Vec<Reaction>>> {
    react(
        &state,
        &caller,
        &path.issue(),
        0,
        content(&path.content)?,
        false,
    )
    .await
}

/// Reacts to a comment.
#[utoipa::path(put, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}/reactions/{content}", operation_id = "addCommentReaction", tag = "issues",
    params(CommentReactionPath),
    responses((status = 200, body = Vec<Reaction>), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn add_comment_reaction(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CommentReactionPath>,
) -> ApiResult<Json<Vec<Reaction>>> {
    let content = content(&path.content)?;
    react(&state, &caller, &path.issue(), path.id, content, true).await
}

/// Takes back one's reaction to a comment.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}/reactions/{content}", operation_id = "removeCommentReaction", tag = "issues",
    params(CommentReactionPath),
    responses((status = 200, body = Vec<Reaction>), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn remove_comment_reaction(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<CommentReactionPath>,
) -> ApiResult<Json<Vec<Reaction>>> {
    let content = content(&path.content)?;
    react(&state, &caller, &path.issue(), path.id, content, false).await
}
