//! `/{owner}/{monorepo}/settings`: a monorepo's settings, for its owners: members and
//! invites, labels, each repo's settings, the CI connection, and rename, transfer and
//! delete (each with the typed confirmation). Its forms are in `settings_forms`; the
//! hooks and their deliveries are `settings/hooks` (`settings_hooks`).
//!
//! Everything is read and written through the API's own handlers, with the API's rule:
//! owners only. A member (the API's 403, which would tell that the monorepo exists to
//! someone it answers 404) and an outsider both get the 404 page.

use askama::Template;
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use svc_protocol::issue::LabelColor;
use svc_protocol::monorepo::Role;

use super::code::seg;
use super::home::{human, rfc3339};
use super::page::{self, Layout, Viewer};
use super::{settings_forms as forms, settings_hooks as hooks};
use crate::authz::{Access, Need};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Path, Query};
use crate::paths::MonorepoPath;
use crate::routes::{ci, labels, members, repos};
use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    let at = "/{owner}/{monorepo}/settings";
    axum::Router::new()
        .route(at, get(general))
        .route(&format!("{at}/members"), post(forms::add_member))
        .route(&format!("{at}/members/{{login}}"), post(forms::set_role))
        .route(
            &format!("{at}/members/{{login}}/remove"),
            post(forms::remove_member),
        )
        .route(
            &format!("{at}/invites/{{email}}/cancel"),
            post(forms::cancel_invite),
        )
        .route(&format!("{at}/labels"), post(forms::create_label))
        .route(&format!("{at}/labels/{{name}}"), post(forms::update_label))
        .route(
            &format!("{at}/labels/{{name}}/delete"),
            post(forms::delete_label),
        )
        .route(&format!("{at}/repos/{{repo}}"), post(forms::update_repo))
        .route(&format!("{at}/ci"), post(forms::connect_ci))
        .route(
            &format!("{at}/ci/{{id}}/delete"),
            post(forms::disconnect_ci),
        )
        .route(&format!("{at}/rename"), post(forms::rename))
        .route(&format!("{at}/transfer"), post(forms::transfer))
        .route(&format!("{at}/delete"), post(forms::delete))
        .merge(hooks::router())
}

/// The settings pages' prefix, from the root.
pub fn settings_base(owner: &str, monorepo: &str) -> String {
    format!("/{}/{}/settings", seg(owner), seg(monorepo))
}

pub fn monorepo_of(owner: &str, monorepo: &str) -> MonorepoPath {
    MonorepoPath {
        owner: owner.to_owned(),
        monorepo: monorepo.to_owned(),
    }
}

/// The monorepo, when the person owns it; what they may not own is as missing.
pub async fn owned(state: &AppState, viewer: &Viewer, at: &MonorepoPath) -> ApiResult<Access> {
    let mut conn = state.store.read().await?;
    at.access(conn.h(), &viewer.0, Need::Own)
        .await
        .map_err(|e| {
            if e.status == axum::http::StatusCode::FORBIDDEN {
                ApiError::not_found("monorepo")
            } else {
                e
            }
        })
}

/// What a write made that no later read gives (a hook's secret, a CI webhook token, an
/// invite's sign-in link), shown once in the answer to its form.
pub struct Shown {
    pub title: String,
    pub note: String,
    pub value: String,
}

/// The settings pages' tabs: (name, href, current).
pub fn tabs(base: &str, current: &str) -> Vec<(&'static str, String, bool)> {
    [
        ("General", base.to_owned()),
        ("Hooks", format!("{base}/hooks")),
    ]
    .into_iter()
    .map(|(name, href)| (name, href, name == current))
    .collect()
}

#[derive(Template)]
#[template(path = "settings.html")]
pub struct SettingsPage {
    layout: Layout,
    full: String,
    monorepo_href: String,
    base: String,
    tabs: Vec<(&'static str, String, bool)>,
    shown: Option<Shown>,
    members: Vec<MemberRow>,
    invites: Vec<InviteRow>,
    labels: Vec<LabelRow>,
    colors: Vec<&'static str>,
    /// The label whose edit form is open (`?edit=`).
    editing: Option<LabelRow>,
    repos: Vec<RepoRow>,
    /// The CI services this server speaks (a connection needs one).
    ci_services: Vec<String>,
    connections: Vec<ConnectionRow>,
}

struct MemberRow {
    login: String,
    name: Option<String>,
    role: &'static str,
    /// `direct` (the monorepo's own row, which these forms change) or `org`.
    via: String,
    added_by: Option<String>,
    at: String,
    when: String,
    /// The role the role form gives, and where it and the remove form post.
    other_role: &'static str,
    action: String,
}

struct InviteRow {
    email: String,
    role: &'static str,
    invited_by: String,
    at: String,
    when: String,
    cancel: String,
}

#[derive(Clone)]
struct LabelRow {
    name: String,
    color: &'static str,
    description: String,
    open_issues: i64,
    action: String,
    edit: String,
}

struct RepoRow {
    name: String,
    releases_public: bool,
    action: String,
}

struct ConnectionRow {
    service: String,
    organization: String,
    webhook_url: String,
    at: String,
    when: String,
    delete: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct PageQuery {
    /// The label to edit.
    edit: Option<String>,
}

/// `/settings`.
async fn general(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(at): Path<MonorepoPath>,
    Query(query): Query<PageQuery>,
) -> Response {
    page::answer(&viewer, build(&state, &viewer, &at, query.edit, None).await)
}

/// The page, with `shown` when it answers a form that made a one-time value.
pub async fn build(
    state: &AppState,
    viewer: &Viewer,
    at: &MonorepoPath,
    edit: Option<String>,
    shown: Option<Shown>,
) -> ApiResult<SettingsPage> {
    let access = owned(state, viewer, at).await?;
    let full = access.monorepo.label();
    let (owner, name) = (&access.monorepo.owner, &access.monorepo.name);
    let base = settings_base(owner, name);
    let here = monorepo_of(owner, name);
    let s = || State(state.clone());
    let caller = || viewer.0.clone();
    let mut layout = Layout::new(format!("Settings · {full}"), viewer);
    // Before the lists are read: see `Follow`.
    layout
        .follow(
            state,
            (&full, &access.monorepo.id),
            "members labels",
            "members invites labels",
        )
        .await?;
    let member_list = members::list(s(), caller(), Path(here.clone())).await?.0;
    let invite_list = members::list_invites(s(), caller(), Path(here.clone()))
        .await?
        .0;
    let label_list = labels::list(s(), caller(), Path(here.clone())).await?.0;
    let repo_list = repos::list(s(), caller(), Path(here.clone())).await?.0;
    let overview = ci::overview(s(), caller(), Path(here)).await?.0;

    let label_rows: Vec<LabelRow> = label_list
        .items
        .iter()
        .map(|l| LabelRow {
            name: l.name.clone(),
            color: l.color.as_str(),
            description: l.description.clone().unwrap_or_default(),
            open_issues: l.open_issues,
            action: format!("{base}/labels/{}", seg(&l.name)),
            edit: format!("{base}?edit={}#edit-label", super::code::q(&l.name)),
        })
        .collect();
    let editing = edit.and_then(|e| {
        label_rows
            .iter()
            .find(|l| l.name.eq_ignore_ascii_case(&e))
            .cloned()
    });
    Ok(SettingsPage {
        layout,
        monorepo_href: format!("/{}/{}", seg(owner), seg(name)),
        tabs: tabs(&base, "General"),
        shown,
        members: member_list
            .items
            .iter()
            .map(|m| MemberRow {
                login: m.login.clone(),
                name: m.name.clone().filter(|n| !n.is_empty() && *n != m.login),
                role: m.role.as_str(),
                via: m.via.clone(),
                added_by: m.added_by.clone(),
                at: rfc3339(m.added_at),
                when: human(m.added_at),
                other_role: match m.role {
                    Role::Owner => Role::Member.as_str(),
                    Role::Member => Role::Owner.as_str(),
                },
                action: format!("{base}/members/{}", seg(&m.login)),
            })
            .collect(),
        invites: invite_list
            .items
            .iter()
            .map(|i| InviteRow {
                email: i.email.clone(),
                role: i.role.as_str(),
                invited_by: i.invited_by.clone(),
                at: rfc3339(i.created_at),
                when: human(i.created_at),
                cancel: format!("{base}/invites/{}/cancel", seg(&i.email)),
            })
            .collect(),
        labels: label_rows,
        colors: LabelColor::ALL.iter().map(|c| c.as_str()).collect(),
        editing,
        repos: repo_list
            .items
            .iter()
            .map(|r| RepoRow {
                name: r.name.clone(),
                releases_public: r.releases_public,
                action: format!("{base}/repos/{}", seg(&r.name)),
            })
            .collect(),
        ci_services: overview.services,
        connections: overview
            .connections
            .iter()
            .map(|c| ConnectionRow {
                service: c.service.clone(),
                organization: c.organization.clone(),
                webhook_url: c.webhook_url.clone(),
                at: rfc3339(c.created_at),
                when: human(c.created_at),
                delete: format!("{base}/ci/{}/delete", seg(&c.id)),
            })
            .collect(),
        base,
        full,
    })
}
