//! Labels: monorepo-wide, managed by owners; a rename moves the label on every issue.

use axum::extract::State;
use axum::http::StatusCode;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::issue::{CreateLabel, Label, LabelColor, LabelList, UpdateLabel};

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::paths::{LabelPath, MonorepoPath};
use crate::state::AppState;
use crate::store::labels::{self, LabelRow};
use crate::store::{H, events, now_ms};

/// Labels a monorepo may have.
const MAX_LABELS: i64 = 500;
const NAME_MAX: usize = 50;
const DESCRIPTION_MAX: usize = 200;

fn view(r: &LabelRow) -> Label {
    Label {
        name: r.name.clone(),
        color: LabelColor::parse(&r.color).unwrap_or(LabelColor::Gray),
        description: r.description.clone(),
        open_issues: r.open_issues,
    }
}

/// A label name: 1 to 50 characters, not blank, no commas (label lists are
/// comma-separated), no control characters.
fn check_name(name: &str) -> ApiResult<String> {
    let too_long = name.chars().count() > NAME_MAX;
    let name = name.trim();
    if name.is_empty() || too_long || name.contains(',') || name.chars().any(char::is_control) {
        return Err(ApiError::bad_request(
            ErrorCode::BadName,
            format!("a label name is 1 to {NAME_MAX} characters, without commas"),
        ));
    }
    Ok(name.to_owned())
}

fn check_description(description: Option<&str>) -> ApiResult<()> {
    if description.is_some_and(|d| d.chars().count() > DESCRIPTION_MAX) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("a label description is at most {DESCRIPTION_MAX} characters"),
        ));
    }
    Ok(())
}

fn exists(name: &str) -> ApiError {
    ApiError::conflict(
        ErrorCode::LabelExists,
        format!("a label named {name} exists already"),
    )
}

/// `label.updated` (and deletions), written with the change.
async fn event(
    h: H<'_>,
    monorepo_id: &str,
    key: &str,
    op: &str,
    body: serde_json::Value,
) -> ApiResult<()> {
    let event = events::NewEvent {
        monorepo_id,
        kind: "label.updated",
        repo: None,
        also_repos: None,
        collection: "labels",
        key,
        op,
        body: body.to_string(),
        at: now_ms(),
    };
    events::append(h, &event).await?;
    Ok(())
}

/// The monorepo's labels by name, each with its open issues (at most 500).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/labels", operation_id = "listLabels", tag = "issues",
    params(MonorepoPath),
    responses((status = 200, body = LabelList), (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<LabelList>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let rows = labels::all(conn.h(), &access.monorepo.id).await?;
    Ok(Json(LabelList {
        items: rows.iter().map(view).collect(),
    }))
}

/// Makes a label (owners); the 501st is 409 `too_many_labels`.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/labels", operation_id = "createLabel", tag = "issues",
    params(MonorepoPath), request_body = CreateLabel,
    responses((status = 201, body = Label), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "not an owner"), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "label_exists, too_many_labels")))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<CreateLabel>,
) -> ApiResult<(StatusCode, Json<Label>)> {
    let name = check_name(&body.name)?;
    check_description(body.description.as_deref())?;
    let mut tx = state.store.begin().await?;
    let access = path.access(tx.h(), &caller, Need::Own).await?;
    let id = &access.monorepo.id;
    if labels::count(tx.h(), id).await? >= MAX_LABELS {
        return Err(ApiError::conflict(
            ErrorCode::TooManyLabels,
            format!("a monorepo has at most {MAX_LABELS} labels"),
        ));
    }
    if labels::id_of(tx.h(), id, &name).await?.is_some() {
        return Err(exists(&name));
    }
    let label_id = labels::insert(
        tx.h(),
        id,
        &name,
        body.color.as_str(),
        body.description.as_deref(),
    )
    .await?;
    let row = LabelRow {
        id: label_id,
        name: name.clone(),
        color: body.color.as_str().to_owned(),
        description: body.description,
        open_issues: 0,
    };
    let label = view(&row);
    let payload = serde_json::json!({"row": label, "from": null, "actor": caller.login});
    event(tx.h(), id, &name.to_lowercase(), "upsert", payload).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(label)))
}

/// Changes a label (owners): omitted fields kept, a null description cleared; a new name
/// moves it on every issue at once (`label.updated` with `from`).
#[utoipa::path(patch, path = "/v1/monorepos/{owner}/{monorepo}/labels/{name}", operation_id = "updateLabel", tag = "issues",
    params(LabelPath), request_body = UpdateLabel,
    responses((status = 200, body = Label), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "not an owner"), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "label_exists")))]
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<LabelPath>,
    Json(body): Json<UpdateLabel>,
) -> ApiResult<Json<Label>> {
    let name = body.name.as_deref().map(check_name).transpose()?;
    if let Some(description) = &body.description {
        check_description(description.as_deref())?;
    }
    let mut tx = state.store.begin().await?;
    let (access, mut row) = path.load(tx.h(), &caller, Need::Own).await?;
    let id = &access.monorepo.id;
    let from = row.name.clone();
    if let Some(name) = name {
        if name.to_lowercase() != from.to_lowercase()
            && labels::id_of(tx.h(), id, &name).await?.is_some()
        {
            return Err(exists(&name));
        }
        row.name = name;
    }
    if let Some(color) = body.color {
        row.color = color.as_str().to_owned();
    }
    if let Some(description) = body.description {
        row.description = description;
    }
    labels::update(
        tx.h(),
        row.id,
        &row.name,
        &row.color,
        row.description.as_deref(),
    )
    .await?;
    let label = view(&row);
    let renamed = (row.name != from).then_some(&from);
    let payload = serde_json::json!({"row": label, "from": renamed, "actor": caller.login});
    event(tx.h(), id, &row.name.to_lowercase(), "upsert", payload).await?;
    tx.commit().await?;
    Ok(Json(label))
}

/// Deletes a label (owners): it leaves every issue, with no timeline items.
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/labels/{name}", operation_id = "deleteLabel", tag = "issues",
    params(LabelPath),
    responses((status = 204), (status = 403, body = ApiErrorBody, description = "not an owner"),
        (status = 404, body = ApiErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<LabelPath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let (access, row) = path.load(tx.h(), &caller, Need::Own).await?;
    labels::delete(tx.h(), row.id).await?;
    let payload = serde_json::json!({"row": view(&row), "from": null, "actor": caller.login});
    event(
        tx.h(),
        &access.monorepo.id,
        &row.name.to_lowercase(),
        "delete",
        payload,
    )
    .await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}
