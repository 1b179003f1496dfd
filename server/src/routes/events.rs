//! The monorepo event stream, as JSON pages.

use axum::extract::State;
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::event::{Event, Op};

use crate::app::AppState;
use crate::auth::Caller;
use crate::authz::{self, Need};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::store::events::{self, EventRow};
use crate::store::monorepos::MonorepoRow;
use crate::store::time_of;

/// Most events one page answers.
pub const MAX_LIMIT: i64 = 500;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct PullQuery {
    /// Events after this seq; without it, the latest `limit`.
    since: Option<i64>,
    /// At most 500 (the default).
    limit: Option<i64>,
}

#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct EventPage {
    pub items: Vec<Event>,
    /// The monorepo's latest seq.
    pub seq: i64,
}

/// Events oldest first: after `since`, or the latest `limit`.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/events", tag = "events",
    params(("owner" = String, Path), ("monorepo" = String, Path), PullQuery),
    responses((status = 200, body = EventPage), (status = 400, body = ApiErrorBody), (status = 404, body = ApiErrorBody)))]
pub async fn pull(
    State(state): State<AppState>,
    caller: Caller,
    Path((owner, name)): Path<(String, String)>,
    Query(q): Query<PullQuery>,
) -> ApiResult<Json<EventPage>> {
    let limit = q.limit.unwrap_or(MAX_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::bad_request("bad_request", "limit is 1 to 500"));
    }
    let mut conn = state.store.read().await?;
    let access = authz::monorepo(conn.h(), &caller, &owner, &name, Need::Read).await?;
    let seq = events::last_seq(conn.h(), &access.monorepo.id).await?;
    let since = q.since.unwrap_or((seq - limit).max(0));
    let rows = events::after(conn.h(), &access.monorepo.id, since, limit).await?;
    let items = rows
        .into_iter()
        .map(|row| event(&access.monorepo, row))
        .collect::<ApiResult<_>>()?;
    Ok(Json(EventPage { items, seq }))
}

/// A stored event in its wire shape.
pub fn event(monorepo: &MonorepoRow, row: EventRow) -> ApiResult<Event> {
    let body: serde_json::Value = serde_json::from_str(&row.body).map_err(ApiError::internal)?;
    let text = |k: &str| body[k].as_str().map(str::to_owned);
    Ok(Event {
        seq: row.seq,
        kind: row.kind,
        monorepo: monorepo.label(),
        monorepo_id: monorepo.id.clone(),
        repo: row.repo,
        collection: row.collection,
        key: row.key,
        op: if row.op == "delete" {
            Op::Delete
        } else {
            Op::Upsert
        },
        partial: body["partial"].as_bool().unwrap_or(false),
        before: text("before"),
        head: text("head"),
        actor: text("actor"),
        agent: text("agent"),
        row: body["row"].clone(),
        at: time_of(row.at),
    })
}
