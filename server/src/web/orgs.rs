//! A namespace's pages. `/{owner}`: an org's page (its monorepos the viewer may see, and
//! its people for its people) or a person's (their monorepos the viewer may see). An
//! org's own pages are under `/{owner}/-/`, a level no monorepo can take (a monorepo
//! name starts with a letter or digit): `/-/people`, its members and invites, which
//! owners manage, and `/-/settings`, what owners may change (updateOrg). Every write is
//! the API's own handler through `forms`. A namespace the viewer has nothing in (not
//! theirs, not their org, none of its monorepos visible) is the 404 page.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use svc_protocol::monorepo::{CreateInvite, Monorepo, PutMember, Role};
use svc_protocol::needs::MonorepoListing;
use svc_protocol::org::{Org, OrgInviteAnswer, UpdateOrg};

use super::code::seg;
use super::forms;
use super::home::{human, rfc3339};
use super::page::{self, Layout, Viewer};
use crate::auth;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::paths::{OrgInvitePath, OrgMemberPath, OrgPath};
use crate::routes::{monorepos, orgs as api};
use crate::state::AppState;
use crate::store::users;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/{owner}", get(namespace))
        .route("/{owner}/-/people", get(people).post(invite))
        .route("/{owner}/-/people/{login}/role", post(set_role))
        .route("/{owner}/-/people/{login}/remove", post(remove))
        .route("/{owner}/-/invites/{email}/cancel", post(cancel_invite))
        .route("/{owner}/-/settings", get(settings).post(save_settings))
}

#[derive(Debug, Deserialize)]
pub struct At {
    owner: String,
}

impl At {
    fn org(&self) -> OrgPath {
        OrgPath {
            org: self.owner.clone(),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct MemberAt {
    owner: String,
    login: String,
}

#[derive(Debug, Deserialize)]
pub struct InviteAt {
    owner: String,
    email: String,
}

/// The org's tabs, which its three pages share.
struct Tabs {
    login: String,
    /// The org's page.
    href: String,
    people: String,
    settings: String,
    /// The viewer is in the org / owns it.
    member: bool,
    owner: bool,
    /// `monorepos`, `people` or `settings`.
    current: &'static str,
}

impl Tabs {
    fn of(org: &Org, current: &'static str) -> Tabs {
        let href = format!("/{}", seg(&org.login));
        Tabs {
            login: org.login.clone(),
            people: format!("{href}/-/people"),
            settings: format!("{href}/-/settings"),
            href,
            member: org.role.is_some(),
            owner: org.role == Some(Role::Owner),
            current,
        }
    }

    /// The org's title: its name, else its login.
    fn title(org: &Org) -> String {
        org.name.clone().unwrap_or_else(|| org.login.clone())
    }
}

/// The org as the viewer sees it (getOrg), when it exists.
async fn org_of(state: &AppState, viewer: &Viewer, owner: &str) -> ApiResult<Option<Org>> {
    let path = OrgPath {
        org: owner.to_owned(),
    };
    match api::get(State(state.clone()), viewer.0.clone(), Path(path)).await {
        Ok(Json(org)) => Ok(Some(org)),
        Err(e) if e.status == StatusCode::NOT_FOUND => Ok(None),
        Err(e) => Err(e),
    }
}

/// The org, for its people only (the 404 for anyone else).
async fn org_for_people(state: &AppState, viewer: &Viewer, owner: &str) -> ApiResult<Org> {
    org_of(state, viewer, owner)
        .await?
        .filter(|o| o.role.is_some())
        .ok_or_else(|| ApiError::not_found("organization"))
}

struct Person {
    login: String,
    name: Option<String>,
    role: &'static str,
}

#[derive(Template)]
#[template(path = "namespace.html")]
struct NamespacePage {
    layout: Layout,
    /// The namespace's login and its page.
    login: String,
    href: String,
    /// An org's tabs, description and people (people only for its people).
    tabs: Option<Tabs>,
    description: Option<String>,
    people: Vec<Person>,
    monorepos: Vec<Monorepo>,
}

async fn namespace(State(state): State<AppState>, viewer: Viewer, Path(at): Path<At>) -> Response {
    page::answer(&viewer, build_namespace(&state, &viewer, at).await)
}

async fn build_namespace(state: &AppState, viewer: &Viewer, at: At) -> ApiResult<NamespacePage> {
    let caller = &viewer.0;
    let query = monorepos::ListQuery {
        owner: Some(at.owner.clone()),
        ..Default::default()
    };
    let listing = monorepos::list(State(state.clone()), caller.clone(), Query(query)).await?;
    let monorepos = match listing.0 {
        MonorepoListing::Plain(list) => list.items,
        MonorepoListing::Home(home) => home.items.into_iter().map(|i| i.monorepo).collect(),
    };
    let hidden = || ApiError::not_found("namespace");
    if let Some(org) = org_of(state, viewer, &at.owner).await? {
        if org.role.is_none() && monorepos.is_empty() {
            return Err(hidden());
        }
        let people = if org.role.is_some() {
            api::list_members(State(state.clone()), caller.clone(), Path(at.org()))
                .await?
                .0
                .items
                .into_iter()
                .map(|m| Person {
                    login: m.login,
                    name: m.name,
                    role: m.role.as_str(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let tabs = Tabs::of(&org, "monorepos");
        return Ok(NamespacePage {
            layout: Layout::new(Tabs::title(&org), viewer),
            login: org.login.clone(),
            href: tabs.href.clone(),
            tabs: Some(tabs),
            description: org.description,
            people,
            monorepos,
        });
    }
    let login = at.owner.to_ascii_lowercase();
    let person = {
        let mut conn = state.store.read().await?;
        users::by_login(conn.h(), &login).await?
    };
    let person = person.ok_or_else(hidden)?;
    if person.login != caller.login && monorepos.is_empty() {
        return Err(hidden());
    }
    Ok(NamespacePage {
        layout: Layout::new(person.login.clone(), viewer),
        href: format!("/{}", seg(&person.login)),
        login: person.login,
        tabs: None,
        description: None,
        people: Vec::new(),
        monorepos,
    })
}

/// One member's row on the people page.
struct MemberRow {
    login: String,
    name: Option<String>,
    role: &'static str,
    added: String,
    added_at: String,
    added_by: Option<String>,
    /// When last active, as words and as RFC 3339.
    active: Option<(String, String)>,
    /// The viewer themselves (who may leave).
    me: bool,
    role_href: String,
    remove_href: String,
}

struct InviteRow {
    email: String,
    role: &'static str,
    invited_by: String,
    created: String,
    created_at: String,
    cancel_href: String,
}

/// What an invite just made says to pass on, when the server did not mail it.
struct Invited {
    email: String,
    link: String,
    expires: Option<String>,
}

#[derive(Template)]
#[template(path = "org_people.html")]
struct PeoplePage {
    layout: Layout,
    tabs: Tabs,
    title: String,
    members: Vec<MemberRow>,
    invites: Vec<InviteRow>,
    invited: Option<Invited>,
}

async fn people(State(state): State<AppState>, viewer: Viewer, Path(at): Path<At>) -> Response {
    page::answer(&viewer, build_people(&state, &viewer, &at, None).await)
}

async fn build_people(
    state: &AppState,
    viewer: &Viewer,
    at: &At,
    invited: Option<Invited>,
) -> ApiResult<PeoplePage> {
    let org = org_for_people(state, viewer, &at.owner).await?;
    let tabs = Tabs::of(&org, "people");
    let caller = || viewer.0.clone();
    let members = api::list_members(State(state.clone()), caller(), Path(at.org()));
    let invites = api::list_invites(State(state.clone()), caller(), Path(at.org()));
    let (members, invites) = tokio::try_join!(members, invites)?;
    let members = members
        .0
        .items
        .into_iter()
        .map(|m| {
            let at = format!("{}/{}", tabs.people, seg(&m.login));
            MemberRow {
                me: m.login == viewer.0.login,
                role_href: format!("{at}/role"),
                remove_href: format!("{at}/remove"),
                role: m.role.as_str(),
                added: human(m.added_at),
                added_at: rfc3339(m.added_at),
                added_by: m.added_by,
                active: m.last_active_at.map(|t| (human(t), rfc3339(t))),
                login: m.login,
                name: m.name,
            }
        })
        .collect();
    let invites = invites
        .0
        .items
        .into_iter()
        .map(|i| InviteRow {
            cancel_href: format!("{}/-/invites/{}/cancel", tabs.href, seg(&i.email)),
            role: i.role.as_str(),
            invited_by: i.invited_by,
            created: human(i.created_at),
            created_at: rfc3339(i.created_at),
            email: i.email,
        })
        .collect();
    Ok(PeoplePage {
        layout: Layout::new(format!("People of {}", org.login), viewer),
        title: Tabs::title(&org),
        tabs,
        members,
        invites,
        invited,
    })
}

fn people_href(owner: &str) -> String {
    format!("/{}/-/people", seg(owner))
}

#[derive(Debug, Deserialize)]
pub struct InviteForm {
    email: String,
    role: Option<Role>,
}

/// "Invite" (inviteOrgMember): someone with that verified email is added at once, else
/// the invite waits. A sign-in link the server did not mail is shown on the page this
/// answers (it is shown once, so this answer is the page, not a redirect).
async fn invite(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<At>,
    axum::Form(form): axum::Form<InviteForm>,
) -> Response {
    let back = people_href(&at.owner);
    let done = match auth::check_origin(&headers, &state) {
        Ok(()) => {
            let body = CreateInvite {
                email: form.email,
                role: form.role,
            };
            api::invite(
                State(state.clone()),
                viewer.0.clone(),
                Path(at.org()),
                Json(body),
            )
            .await
        }
        Err(e) => Err(e),
    };
    let answer = match done {
        Ok((_, Json(answer))) => answer,
        Err(e) => return forms::failed(&viewer, &back, &e),
    };
    let OrgInviteAnswer::Invited {
        invite,
        sign_in_link: Some(link),
        link_expires_at,
        ..
    } = answer
    else {
        return axum::response::IntoResponse::into_response(axum::response::Redirect::to(&back));
    };
    let invited = Invited {
        email: invite.email,
        link,
        expires: link_expires_at.map(human),
    };
    page::answer(
        &viewer,
        build_people(&state, &viewer, &at, Some(invited)).await,
    )
}

#[derive(Debug, Deserialize)]
pub struct RoleForm {
    role: Role,
}

/// "Change role" (putOrgMember).
async fn set_role(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MemberAt>,
    axum::Form(form): axum::Form<RoleForm>,
) -> Response {
    let back = people_href(&at.owner);
    forms::post(&state, &viewer, &headers, &back, async {
        let path = OrgMemberPath {
            org: at.owner.clone(),
            login: at.login.clone(),
        };
        let body = PutMember { role: form.role };
        api::put_member(
            State(state.clone()),
            viewer.0.clone(),
            Path(path),
            Json(body),
        )
        .await?;
        Ok(())
    })
    .await
}

/// "Remove" (removeOrgMember) by an owner, or "Leave" by the person, who then goes home.
async fn remove(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MemberAt>,
) -> Response {
    let back = people_href(&at.owner);
    let leaving = at.login.eq_ignore_ascii_case(&viewer.0.login);
    forms::post_then(&state, &viewer, &headers, &back, async {
        let path = OrgMemberPath {
            org: at.owner.clone(),
            login: at.login.clone(),
        };
        api::remove_member(State(state.clone()), viewer.0.clone(), Path(path)).await?;
        Ok(if leaving {
            "/".to_owned()
        } else {
            back.clone()
        })
    })
    .await
}

/// "Cancel invite" (revokeOrgInvite).
async fn cancel_invite(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<InviteAt>,
) -> Response {
    let back = people_href(&at.owner);
    forms::post(&state, &viewer, &headers, &back, async {
        let path = OrgInvitePath {
            org: at.owner.clone(),
            email: at.email.clone(),
        };
        api::revoke_invite(State(state.clone()), viewer.0.clone(), Path(path)).await?;
        Ok(())
    })
    .await
}

#[derive(Template)]
#[template(path = "org_settings.html")]
struct SettingsPage {
    layout: Layout,
    tabs: Tabs,
    name: String,
    description: String,
    picture_url: String,
}

/// Owners only: to anyone else the page is not here.
async fn settings(State(state): State<AppState>, viewer: Viewer, Path(at): Path<At>) -> Response {
    let built = async {
        let org = org_for_people(&state, &viewer, &at.owner).await?;
        if org.role != Some(Role::Owner) {
            return Err(ApiError::not_found("organization"));
        }
        Ok(SettingsPage {
            layout: Layout::new(format!("Settings of {}", org.login), &viewer),
            tabs: Tabs::of(&org, "settings"),
            name: org.name.unwrap_or_default(),
            description: org.description.unwrap_or_default(),
            picture_url: org.picture_url.unwrap_or_default(),
        })
    };
    page::answer(&viewer, built.await)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SettingsForm {
    name: String,
    description: String,
    picture_url: String,
}

/// "Save" (updateOrg): every field as typed, an empty one cleared.
async fn save_settings(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<At>,
    axum::Form(form): axum::Form<SettingsForm>,
) -> Response {
    let back = format!("/{}/-/settings", seg(&at.owner));
    let given = |s: String| Some(Some(s).filter(|s| !s.trim().is_empty()));
    forms::post(&state, &viewer, &headers, &back, async {
        let body = UpdateOrg {
            name: given(form.name),
            description: given(form.description),
            picture_url: given(form.picture_url),
        };
        api::update(
            State(state.clone()),
            viewer.0.clone(),
            Path(at.org()),
            Json(body),
        )
        .await?;
        Ok(())
    })
    .await
}
