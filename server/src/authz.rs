//! Authorization: [`monorepo`] decides every access to a monorepo, [`org`] every access
//! to an organization.
//!
//! Outsiders get 404, never 403, so a monorepo's existence does not leak. Roles come
//! from [`role_of`], the single place organization roles join a person's own: in an
//! org's monorepo, the org's owners are owners and its members are members.

use svc_protocol::ErrorCode;
use svc_protocol::monorepo::Role;

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::store::orgs::{self, OrgRow};
use crate::store::repos::{self, RepoRow};
use crate::store::{H, monorepos};
use crate::suggest;

/// What an operation needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// See code and records, fetch.
    Read,
    /// Push, post statuses, merge, comment: any member.
    Write,
    /// Post a review: any member; the one write a review session's credential may make.
    Review,
    /// Manage members, invites, settings; rename, transfer, delete.
    Own,
    /// Start, message or stop agent sessions: any member, but only a person's own
    /// credential: an agent session never drives one (its own included).
    Steer,
}

/// A monorepo the caller may act on, with their role.
#[derive(Debug, Clone)]
pub struct Access {
    pub monorepo: monorepos::MonorepoRow,
    pub role: Role,
}

/// The person's role in a monorepo, if any: the higher of their own membership row and,
/// when an org owns the monorepo, their role in that org. Read afresh on every call (no
/// cache), so a removal counts from the next request.
pub async fn role_of(h: H<'_>, monorepo_id: &str, user_id: &str) -> ApiResult<Option<Role>> {
    Ok(monorepos::role(h, monorepo_id, user_id)
        .await?
        .as_deref()
        .and_then(Role::parse))
}

/// Resolves `<owner>/<name>` (an old label too) and checks the caller may do `need`.
/// Outside a transaction the answer may come from the store's access cache, which no
/// commit outlives (`store::access_cache`); inside one it is read from that snapshot.
pub async fn monorepo(
    mut h: H<'_>,
    caller: &Caller,
    owner: &str,
    name: &str,
    need: Need,
) -> ApiResult<Access> {
    let (owner, name) = (owner.to_ascii_lowercase(), name.to_ascii_lowercase());
    let found = monorepos::by_label_with_role(h.reborrow(), &owner, &name, &caller.user_id).await?;
    let (monorepo, role) = match found {
        Some(f) => (Some(f.monorepo), f.role.as_deref().and_then(Role::parse)),
        None => (None, None),
    };
    let reaches =
        |m: &monorepos::MonorepoRow| caller.scope.as_ref().is_none_or(|s| s.reaches(&m.id));
    let (Some(monorepo), Some(role)) = (monorepo.filter(reaches), role) else {
        return Err(not_found(h, caller, &format!("{owner}/{name}")).await);
    };
    if let Some(scope) = &caller.scope {
        scope.allows(need)?;
    }
    if need == Need::Own && role != Role::Owner {
        return Err(ApiError::forbidden(
            ErrorCode::Forbidden,
            "only the monorepo's owners may do this",
        ));
    }
    Ok(Access { monorepo, role })
}

/// The caller's role in the namespace `owner`: owner of their own login, else their role
/// in the org of that login; none for another person's namespace or an org they are
/// not in. Anyone with a role may create monorepos there; only an owner acts for the
/// namespace, giving away an old label in it (core rule 2).
pub async fn namespace_role(h: H<'_>, caller: &Caller, owner: &str) -> ApiResult<Option<Role>> {
    if caller.login == owner {
        return Ok(Some(Role::Owner));
    }
    Ok(orgs::role(h, owner, &caller.user_id)
        .await?
        .as_deref()
        .and_then(Role::parse))
}

/// The 404 for a monorepo that is missing or hidden from the caller: the same words
/// either way, suggesting only the caller's own monorepos.
async fn not_found(h: H<'_>, caller: &Caller, label: &str) -> ApiError {
    if caller.scope.is_some() {
        // An agent session sees only its own monorepo: name no other.
        return suggest::not_found("monorepo", "", label, std::iter::empty());
    }
    match monorepos::list_for_user(h, &caller.user_id, &caller.login, None, None).await {
        Ok(rows) => {
            let visible: Vec<String> = rows
                .iter()
                .map(|r| format!("{}/{}", r.owner, r.name))
                .collect();
            suggest::not_found("monorepo", "", label, visible.iter().map(String::as_str))
        }
        Err(e) => e.into(),
    }
}

/// What an operation on an organization needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrgNeed {
    /// Anyone signed in: the org header.
    SignedIn,
    /// Its people: the members and invites lists, leaving.
    People,
    /// Its owners: member management, invites, org updates.
    Owners,
}

/// An organization with the caller's role in it (none for an outsider reading the header).
#[derive(Debug, Clone)]
pub struct OrgAccess {
    pub org: OrgRow,
    pub role: Option<Role>,
}

/// Resolves an org's login (any case) and checks the caller may do `need`: an unknown
/// org, or one the caller is outside of when `need` asks for its people, is 404; a
/// member asking for what owners may do is 403.
pub async fn org(
    mut h: H<'_>,
    caller: &Caller,
    login: &str,
    need: OrgNeed,
) -> ApiResult<OrgAccess> {
    let login = login.to_ascii_lowercase();
    let found = orgs::by_login(h.reborrow(), &login).await?;
    let role = match &found {
        Some(org) => orgs::role(h.reborrow(), &org.login, &caller.user_id)
            .await?
            .as_deref()
            .and_then(Role::parse),
        None => None,
    };
    let Some(org) = found.filter(|_| need == OrgNeed::SignedIn || role.is_some()) else {
        return Err(org_not_found(h, caller, &login).await);
    };
    if need == OrgNeed::Owners && role != Some(Role::Owner) {
        return Err(ApiError::forbidden(
            ErrorCode::Forbidden,
            "only the org's owners may do this",
        ));
    }
    Ok(OrgAccess { org, role })
}

/// The 404 for an org that is missing or hidden from the caller, suggesting only the
/// orgs the caller is in.
async fn org_not_found(h: H<'_>, caller: &Caller, login: &str) -> ApiError {
    match orgs::list_for_user(h, &caller.user_id).await {
        Ok(rows) => suggest::not_found("org", "", login, rows.iter().map(|r| r.org.login.as_str())),
        Err(e) => e.into(),
    }
}

/// The monorepo and repo `<owner>/<name>` `repo` when the repo's release files are public
/// (`releases_public`): anyone may download them, never code. None otherwise, so a
/// private repo answers as a missing one.
pub async fn public_releases(
    mut h: H<'_>,
    owner: &str,
    name: &str,
    repo: &str,
) -> ApiResult<Option<(monorepos::MonorepoRow, RepoRow)>> {
    let (owner, name) = (owner.to_ascii_lowercase(), name.to_ascii_lowercase());
    let Some(found) = monorepos::by_label_with_role(h.reborrow(), &owner, &name, "").await? else {
        return Ok(None);
    };
    let repo = repos::by_name(h, &found.monorepo.id, &repo.to_ascii_lowercase()).await?;
    Ok(repo
        .filter(|r| r.releases_public && !r.is_meta)
        .map(|r| (found.monorepo, r)))
}

/// The caller when they are a site admin (a person's own credential, not an agent
/// session's); anyone else gets the 404 of a route that does not exist.
pub async fn site_admin(h: H<'_>, caller: &Caller) -> ApiResult<crate::store::users::UserRow> {
    let me = crate::store::users::by_id(h, &caller.user_id).await?;
    match me {
        Some(me) if me.site_admin && caller.scope.is_none() => Ok(me),
        _ => Err(ApiError::not_found("route")),
    }
}
