//! `/{owner}/{monorepo}/settings/hooks`: the monorepo's hooks (owners), with forms to
//! make a web hook (url, events, secret; the secret shown once, in the form's answer)
//! and delete one. `/settings/hooks/{id}`: a hook with its newest deliveries and their
//! tries, Redeliver for each and Replay for the hook. The deliveries refresh themselves
//! on the events the hook asks for (a new delivery each); a link reloads for the tries.
//!
//! Reads and writes are the API's hook handlers (owners only, as `settings`).

use askama::Template;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use svc_protocol::hook::{
    CreateHook, DeliveryState, EVENTS, Hook, HookDelivery, HookKind, ReplayHook,
};

use super::code::seg;
use super::forms;
use super::home::{human, rfc3339};
use super::page::{self, Layout, Viewer};
use super::settings::{Shown, monorepo_of, owned, settings_base, tabs};
use super::settings_forms::as_owner;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::paths::{HookDeliveryPath, HookPath, MonorepoPath};
use crate::routes::hooks as api;
use crate::state::AppState;

/// Deliveries a hook's page shows, newest first (each with up to 10 tries), so the page
/// stays under 100 KB.
const DELIVERIES_SHOWN: usize = 30;

pub fn router() -> axum::Router<AppState> {
    let at = "/{owner}/{monorepo}/settings/hooks";
    axum::Router::new()
        .route(at, get(list).post(create))
        .route(&format!("{at}/{{id}}"), get(hook))
        .route(&format!("{at}/{{id}}/delete"), post(delete))
        .route(&format!("{at}/{{id}}/replay"), post(replay))
        .route(
            &format!("{at}/{{id}}/deliveries/{{delivery}}/redeliver"),
            post(redeliver),
        )
}

fn hooks_base(owner: &str, monorepo: &str) -> String {
    format!("{}/hooks", settings_base(owner, monorepo))
}

/// A hook as a row of the list and the head of its page.
struct HookRow {
    href: String,
    kind: &'static str,
    /// Where it sends: the url, or a CI hook's pipeline.
    target: String,
    events: String,
    active: bool,
    last: Option<(&'static str, String, String, String)>,
    delete: String,
}

impl HookRow {
    fn of(h: &Hook, base: &str) -> HookRow {
        let href = format!("{base}/{}", seg(&h.id));
        HookRow {
            kind: match h.kind {
                HookKind::Web => "web",
                HookKind::Ci => "ci",
            },
            target: h
                .url
                .clone()
                .or_else(|| h.pipeline.clone())
                .unwrap_or_default(),
            events: h.events.join(", "),
            active: h.active,
            last: h.last_delivery.as_ref().map(|d| {
                (
                    d.state.as_str(),
                    d.event.clone(),
                    rfc3339(d.created_at),
                    human(d.created_at),
                )
            }),
            delete: format!("{href}/delete"),
            href,
        }
    }
}

#[derive(Template)]
#[template(path = "settings_hooks.html")]
struct HooksPage {
    layout: Layout,
    full: String,
    monorepo_href: String,
    base: String,
    tabs: Vec<(&'static str, String, bool)>,
    shown: Option<Shown>,
    hooks: Vec<HookRow>,
    events: [&'static str; 5],
}

/// `/settings/hooks`.
async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(at): Path<MonorepoPath>,
) -> Response {
    page::answer(&viewer, build_list(&state, &viewer, &at, None).await)
}

async fn build_list(
    state: &AppState,
    viewer: &Viewer,
    at: &MonorepoPath,
    shown: Option<Shown>,
) -> ApiResult<HooksPage> {
    let access = owned(state, viewer, at).await?;
    let (owner, name) = (&access.monorepo.owner, &access.monorepo.name);
    let full = access.monorepo.label();
    let base = hooks_base(owner, name);
    let found = api::list(
        State(state.clone()),
        viewer.0.clone(),
        Path(monorepo_of(owner, name)),
    )
    .await?
    .0;
    let mut layout = Layout::new(format!("Hooks · {full}"), viewer);
    layout.monorepo = Some(full.clone());
    Ok(HooksPage {
        layout,
        monorepo_href: format!("/{}/{}", seg(owner), seg(name)),
        tabs: tabs(&settings_base(owner, name), "Hooks"),
        shown,
        hooks: found.items.iter().map(|h| HookRow::of(h, &base)).collect(),
        events: EVENTS,
        base,
        full,
    })
}

/// "Add hook" (createHook, a web hook): the fields of a form, whose `events` repeat.
fn hook_form(body: &[u8]) -> CreateHook {
    let mut hook = CreateHook {
        kind: HookKind::Web,
        url: None,
        secret: None,
        events: Some(Vec::new()),
        app: None,
        pipeline: None,
    };
    for (k, v) in url::form_urlencoded::parse(body) {
        let v = v.trim().to_owned();
        match &*k {
            "url" => hook.url = Some(v),
            "secret" if !v.is_empty() => hook.secret = Some(v),
            "events" => hook.events.get_or_insert_with(Vec::new).push(v),
            _ => {}
        }
    }
    hook
}

/// `POST /settings/hooks`: the hook made, its secret shown this once on the list.
async fn create(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MonorepoPath>,
    body: Bytes,
) -> Response {
    let back = hooks_base(&at.owner, &at.monorepo);
    let made = forms::post_shown(&state, &viewer, &headers, &back, async {
        let create = api::create(
            State(state.clone()),
            viewer.0.clone(),
            Path(at.clone()),
            Json(hook_form(&body)),
        );
        Ok(as_owner(&state, &viewer, &at, create).await?.1.0)
    })
    .await;
    match made {
        Ok(made) => {
            let shown = Shown {
                title: format!(
                    "Secret of the hook to {}",
                    made.hook.url.unwrap_or_default()
                ),
                note: "Each delivery is signed with it (X-Hub-Signature-256). It is shown \
                       this once."
                    .into(),
                value: made.secret,
            };
            page::answer(&viewer, build_list(&state, &viewer, &at, Some(shown)).await)
        }
        Err(response) => response,
    }
}

/// "Delete" (deleteHook), then back to the list.
async fn delete(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<HookPath>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = hooks_base(&at.owner, &at.monorepo);
    forms::post(&state, &viewer, &headers, &back, async {
        let delete = api::delete(State(state.clone()), viewer.0.clone(), Path(path));
        as_owner(&state, &viewer, &at, delete).await?;
        Ok(())
    })
    .await
}

#[derive(Template)]
#[template(path = "settings_hook.html")]
struct HookPage {
    layout: Layout,
    full: String,
    monorepo_href: String,
    hooks_href: String,
    h: HookRow,
    /// A delivery shown is still being tried: the page fetches it again until none is.
    pending: bool,
    deliveries: Vec<DeliveryRow>,
    /// Deliveries the API listed beyond those shown.
    more: usize,
}

struct DeliveryRow {
    id: String,
    event: String,
    seq: Option<i64>,
    state: &'static str,
    attempts: i64,
    at: String,
    when: String,
    next: Option<(String, String)>,
    tries: Vec<TryRow>,
    redeliver: String,
}

struct TryRow {
    at: String,
    when: String,
    /// The HTTP status, or none when no answer came.
    status: Option<u16>,
    ok: bool,
    duration_ms: i64,
    error: Option<String>,
}

impl DeliveryRow {
    fn of(d: &HookDelivery, page: &str) -> DeliveryRow {
        DeliveryRow {
            redeliver: format!("{page}/deliveries/{}/redeliver", seg(&d.id)),
            id: d.id.clone(),
            event: d.event.clone(),
            seq: d.seq,
            state: d.state.as_str(),
            attempts: d.attempts,
            at: rfc3339(d.created_at),
            when: human(d.created_at),
            next: d.next_attempt_at.map(|t| (rfc3339(t), human(t))),
            tries: d
                .tries
                .iter()
                .rev()
                .map(|t| TryRow {
                    at: rfc3339(t.at),
                    when: human(t.at),
                    status: t.status,
                    ok: t.status.is_some_and(|s| (200..300).contains(&s)),
                    duration_ms: t.duration_ms,
                    error: t.error.clone(),
                })
                .collect(),
        }
    }
}

/// `/settings/hooks/{id}`.
async fn hook(State(state): State<AppState>, viewer: Viewer, Path(at): Path<HookPath>) -> Response {
    page::answer(&viewer, build_hook(&state, &viewer, at).await)
}

async fn build_hook(state: &AppState, viewer: &Viewer, at: HookPath) -> ApiResult<HookPage> {
    let access = owned(state, viewer, &monorepo_of(&at.owner, &at.monorepo)).await?;
    let (owner, name) = (&access.monorepo.owner, &access.monorepo.name);
    let full = access.monorepo.label();
    // Any event may make a delivery of this hook (`Follow`: before the deliveries).
    let mut layout = Layout::new(format!("Hook · {full}"), viewer);
    layout
        .follow(state, (&full, &access.monorepo.id), "*", "deliveries")
        .await?;
    let hooks_href = hooks_base(owner, name);
    let found = api::list(
        State(state.clone()),
        viewer.0.clone(),
        Path(monorepo_of(owner, name)),
    )
    .await?
    .0;
    let h = found
        .items
        .iter()
        .find(|h| h.id == at.id)
        .ok_or_else(|| ApiError::not_found("hook"))?;
    let row = HookRow::of(h, &hooks_href);
    let listed = api::deliveries(State(state.clone()), viewer.0.clone(), Path(at))
        .await?
        .0
        .items;
    Ok(HookPage {
        layout,
        monorepo_href: format!("/{}/{}", seg(owner), seg(name)),
        pending: listed
            .iter()
            .take(DELIVERIES_SHOWN)
            .any(|d| d.state == DeliveryState::Pending),
        more: listed.len().saturating_sub(DELIVERIES_SHOWN),
        deliveries: listed
            .iter()
            .take(DELIVERIES_SHOWN)
            .map(|d| DeliveryRow::of(d, &row.href))
            .collect(),
        h: row,
        hooks_href,
        full,
    })
}

/// A hook's page, from the root.
fn hook_href(owner: &str, monorepo: &str, id: &str) -> String {
    format!("{}/{}", hooks_base(owner, monorepo), seg(id))
}

#[derive(Debug, Deserialize)]
pub struct ReplayForm {
    /// Every delivery with a seq above this one is sent again.
    #[serde(default)]
    since: i64,
}

/// "Replay" (replayHook), then back to the hook.
async fn replay(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<HookPath>,
    axum::Form(form): axum::Form<ReplayForm>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = hook_href(&path.owner, &path.monorepo, &path.id);
    forms::post(&state, &viewer, &headers, &back, async {
        let replay = api::replay(
            State(state.clone()),
            viewer.0.clone(),
            Path(path),
            Json(ReplayHook { since: form.since }),
        );
        as_owner(&state, &viewer, &at, replay).await?;
        Ok(())
    })
    .await
}

/// "Redeliver" one delivery (redeliver), then back to the hook.
async fn redeliver(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<HookDeliveryPath>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = hook_href(&path.owner, &path.monorepo, &path.id);
    forms::post(&state, &viewer, &headers, &back, async {
        let redeliver = api::redeliver(State(state.clone()), viewer.0.clone(), Path(path));
        as_owner(&state, &viewer, &at, redeliver).await?;
        Ok(())
    })
    .await
}
