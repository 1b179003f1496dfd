//! Hooks (owners): create, list, delete; a hook's deliveries, redeliver and replay.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use svc_protocol::ApiErrorBody;
use svc_protocol::ErrorCode;
use svc_protocol::hook::{
    CreateHook, CreatedHook, DELIVERIES_LISTED, DeliveryState, DeliveryTry, EVENTS, Hook,
    HookDelivery, HookDeliveryList, HookKind, HookList, LastDelivery, REPLAY_MAX, ReplayHook,
    Replayed,
};

use crate::auth::Caller;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::hooks::target::Policy;
use crate::paths::{HookDeliveryPath, HookPath, MonorepoPath};
use crate::state::AppState;
use crate::store::hooks::{self, DeliveryRow, HookRow, TryRow};
use crate::store::{H, now_ms, time_of};

/// Tries shown per delivery.
const TRIES_SHOWN: usize = 10;

fn kind(row: &HookRow) -> HookKind {
    if row.kind == "ci" {
        HookKind::Ci
    } else {
        HookKind::Web
    }
}

async fn view(h: H<'_>, row: &HookRow) -> ApiResult<Hook> {
    let last = hooks::deliveries(h, &row.id, 1).await?.into_iter().next();
    Ok(Hook {
        id: row.id.clone(),
        kind: kind(row),
        url: row.url.clone(),
        events: row.event_list(),
        app: row.app.clone(),
        pipeline: row.pipeline.clone(),
        active: row.active,
        created_at: time_of(row.created_at),
        last_delivery: last.map(|d| LastDelivery {
            state: DeliveryState::parse(&d.state).unwrap_or(DeliveryState::Pending),
            id: d.id,
            event: d.event,
            created_at: time_of(d.created_at),
        }),
    })
}

fn delivery_view(d: DeliveryRow, tries: &[TryRow]) -> HookDelivery {
    let mine: Vec<&TryRow> = tries.iter().filter(|t| t.delivery_id == d.id).collect();
    let skip = mine.len().saturating_sub(TRIES_SHOWN);
    let state = DeliveryState::parse(&d.state).unwrap_or(DeliveryState::Pending);
    HookDelivery {
        tries: mine[skip..]
            .iter()
            .map(|t| DeliveryTry {
                at: time_of(t.at),
                status: t.status.and_then(|s| u16::try_from(s).ok()),
                duration_ms: t.duration_ms,
                error: t.error.clone(),
            })
            .collect(),
        body: serde_json::from_str(&d.body).unwrap_or_default(),
        next_attempt_at: d
            .next_attempt_at
            .filter(|_| state == DeliveryState::Pending)
            .map(time_of),
        id: d.id,
        hook: d.hook_id,
        event: d.event,
        seq: d.seq,
        state,
        attempts: d.attempts,
        created_at: time_of(d.created_at),
    }
}

/// The monorepo's hooks, oldest first (owners).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/hooks", operation_id = "listHooks", tag = "hooks",
    params(MonorepoPath),
    responses((status = 200, body = HookList), (status = 403, body = ApiErrorBody, description = "not an owner"),
        (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<HookList>> {
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Own).await?;
    let rows = hooks::of_monorepo(conn.h(), &access.monorepo.id).await?;
    let mut items = Vec::with_capacity(rows.len());
    for row in &rows {
        items.push(view(conn.h(), row).await?);
    }
    Ok(Json(HookList { items }))
}

/// Makes a hook (owners). A web hook POSTs signed JSON to `url` (http or https, a host
/// `[hooks] allowed_hosts` admits) for the `events` asked (default `push`); its secret
/// is generated when not sent, and answered this once.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/hooks", operation_id = "createHook", tag = "hooks",
    params(MonorepoPath), request_body = CreateHook,
    responses((status = 201, body = CreatedHook), (status = 400, body = ApiErrorBody, description = "bad_request, ci_not_configured"),
        (status = 403, body = ApiErrorBody, description = "not an owner"), (status = 404, body = ApiErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<CreateHook>,
) -> ApiResult<(StatusCode, Json<CreatedHook>)> {
    let access = {
        let mut conn = state.store.read().await?;
        path.access(conn.h(), &caller, Need::Own).await?
    };
    let bad = |m: String| ApiError::bad_request(ErrorCode::BadRequest, m);
    let ci = body.kind == HookKind::Ci;
    let (url, app, pipeline) = if ci {
        if state.config.buildkite.is_none() {
            return Err(ApiError::bad_request(
                ErrorCode::CiNotConfigured,
                "this server has no CI settings ([ci.buildkite] or SVC_BUILDKITE_TOKEN)",
            ));
        }
        if body.url.is_some() {
            return Err(bad(
                "a CI hook has no url: it starts builds of its pipeline".into(),
            ));
        }
        let app = body
            .app
            .clone()
            .unwrap_or_else(|| crate::ci::BUILDKITE.into());
        if app != crate::ci::BUILDKITE {
            return Err(bad("a CI hook's app is buildkite".into()));
        }
        let slug = |s: &str| {
            !s.is_empty()
                && s.len() <= 100
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        };
        let pipeline = body
            .pipeline
            .as_deref()
            .filter(|p| p.split_once('/').is_some_and(|(o, s)| slug(o) && slug(s)))
            .ok_or_else(
                || bad("a CI hook names its pipeline as <ci org>/<pipeline slug>".into()),
            )?;
        (None, Some(app), Some(pipeline.to_ascii_lowercase()))
    } else {
        let url = body
            .url
            .as_deref()
            .ok_or_else(|| bad("a web hook needs a url".into()))?;
        if url.len() > 2000 {
            return Err(bad("a hook url is at most 2,000 characters".into()));
        }
        let policy = Arc::new(Policy::new(&state.config.hooks.allowed_hosts));
        let url = policy.check_url(url).await.map_err(bad)?;
        (Some(url.to_string()), None, None)
    };
    let secret = match body.secret {
        Some(s) if (16..=256).contains(&s.chars().count()) && !s.chars().any(char::is_control) => s,
        Some(_) => return Err(bad("a hook secret is 16 to 256 characters".into())),
        None => crate::token::new_secret(),
    };
    // A CI hook builds pushes, merges and merge queue entries; a web hook may ask for any
    // event.
    let allowed: &[&str] = if ci {
        &["push", "merged", "merge_group"]
    } else {
        &EVENTS
    };
    let mut events: Vec<String> = Vec::new();
    for e in body.events.unwrap_or_else(|| vec!["push".into()]) {
        if !allowed.contains(&e.as_str()) {
            return Err(bad(format!(
                "{e:?} is not an event of this hook: {}",
                allowed.join(", ")
            )));
        }
        if !events.contains(&e) {
            events.push(e);
        }
    }
    if events.is_empty() {
        return Err(bad("a hook asks for at least one event".into()));
    }
    let row = HookRow {
        id: crate::token::new_id("h_"),
        monorepo_id: access.monorepo.id.clone(),
        kind: if ci { "ci" } else { "web" }.into(),
        url,
        secret: secret.clone(),
        events: events.join(","),
        app,
        pipeline,
        active: true,
        created_by: caller.login.clone(),
        created_at: now_ms(),
    };
    let mut tx = state.store.begin().await?;
    hooks::insert(tx.h(), &row).await?;
    let hook = view(tx.h(), &row).await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(CreatedHook { hook, secret })))
}

/// Deletes a hook with its deliveries (owners).
#[utoipa::path(delete, path = "/v1/monorepos/{owner}/{monorepo}/hooks/{id}", operation_id = "deleteHook", tag = "hooks",
    params(HookPath),
    responses((status = 204, description = "deleted"), (status = 403, body = ApiErrorBody, description = "not an owner"),
        (status = 404, body = ApiErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<HookPath>,
) -> ApiResult<StatusCode> {
    let mut tx = state.store.begin().await?;
    let (_, hook) = path.load(tx.h(), &caller).await?;
    hooks::delete(tx.h(), &hook.id).await?;
    tx.commit().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The hook's deliveries, newest first, the last 100, each with its last 10 tries
/// (owners).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/hooks/{id}/deliveries", operation_id = "listDeliveries", tag = "hooks",
    params(HookPath),
    responses((status = 200, body = HookDeliveryList), (status = 403, body = ApiErrorBody, description = "not an owner"),
        (status = 404, body = ApiErrorBody)))]
pub async fn deliveries(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<HookPath>,
) -> ApiResult<Json<HookDeliveryList>> {
    let mut conn = state.store.read().await?;
    let (_, hook) = path.load(conn.h(), &caller).await?;
    let rows = hooks::deliveries(conn.h(), &hook.id, DELIVERIES_LISTED as i64).await?;
    let ids: Vec<String> = rows.iter().map(|d| d.id.clone()).collect();
    let tries = hooks::tries(conn.h(), &ids).await?;
    Ok(Json(HookDeliveryList {
        items: rows.into_iter().map(|d| delivery_view(d, &tries)).collect(),
    }))
}

/// Sends a delivery again now (owners): the same id and seq, a fresh read token, a fresh
/// round of five tries; `attempts` keeps counting.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/hooks/{id}/deliveries/{delivery}/redeliver", operation_id = "redeliverDelivery", tag = "hooks",
    params(HookDeliveryPath),
    responses((status = 200, body = HookDelivery), (status = 403, body = ApiErrorBody, description = "not an owner"),
        (status = 404, body = ApiErrorBody)))]
pub async fn redeliver(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<HookDeliveryPath>,
) -> ApiResult<Json<HookDelivery>> {
    let mut tx = state.store.begin().await?;
    let (_, hook, d) = path.load(tx.h(), &caller).await?;
    hooks::renew(tx.h(), &d.id, now_ms()).await?;
    let d = hooks::delivery(tx.h(), &hook.id, &d.id)
        .await?
        .ok_or_else(|| ApiError::not_found("delivery"))?;
    let tries = hooks::tries(tx.h(), std::slice::from_ref(&d.id)).await?;
    tx.commit().await?;
    state.hook_wake.notify_one();
    Ok(Json(delivery_view(d, &tries)))
}

/// Sends again every delivery of the hook with a seq above `since`, oldest first, at
/// most 1,000, each with a fresh round of five tries (owners).
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/hooks/{id}/replay", operation_id = "replayHook", tag = "hooks",
    params(HookPath), request_body = ReplayHook,
    responses((status = 200, body = Replayed), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "not an owner"), (status = 404, body = ApiErrorBody)))]
pub async fn replay(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<HookPath>,
    Json(body): Json<ReplayHook>,
) -> ApiResult<Json<Replayed>> {
    let mut tx = state.store.begin().await?;
    let (_, hook) = path.load(tx.h(), &caller).await?;
    let rows = hooks::since(tx.h(), &hook.id, body.since, REPLAY_MAX as i64).await?;
    // Oldest first: each one due a millisecond after the one before.
    let now = now_ms();
    for (i, d) in rows.iter().enumerate() {
        hooks::renew(tx.h(), &d.id, now + i as i64).await?;
    }
    tx.commit().await?;
    state.hook_wake.notify_one();
    Ok(Json(Replayed {
        deliveries: rows.into_iter().map(|d| d.id).collect(),
    }))
}
