//! Authentication: who is calling. Bearer credentials and the browser session cookie
//! are checked here and nowhere else; the cookie's writes must carry our own Origin.

use axum::extract::FromRequestParts;
use axum::http::{HeaderMap, Method, header, request::Parts};
use subtle::ConstantTimeEq;
use svc_protocol::ErrorCode;
use svc_protocol::user::{CredentialKind, Permission};

use crate::agents::scope::Scope;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::store::credentials::TokenMatch;
use crate::store::{self, credentials, now_ms};
use crate::token;

/// The session cookie. `__Host-` binds it to this host, Secure and path `/`.
pub const SESSION_COOKIE: &str = "__Host-svc_session";
/// A browser session ends after this long without use.
pub const SESSION_IDLE_MS: i64 = 30 * 24 * 3600 * 1000;
/// `last_used_at` is written at most this often per credential, keeping reads read-only.
const TOUCH_EVERY_MS: i64 = 60 * 1000;

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: String,
    pub login: String,
    pub credential_id: String,
    pub credential_name: String,
    pub kind: CredentialKind,
    /// What the credential may do beyond the person's role.
    pub permissions: Vec<Permission>,
    /// True when the session cookie, not a Bearer credential, authenticated the call.
    pub via_cookie: bool,
    /// What an agent session's credential is confined to; none for a person's own.
    pub scope: Option<Scope>,
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Caller> {
        if let Some(caller) = parts.extensions.get::<Caller>() {
            return Ok(caller.clone());
        }
        let caller = identify(parts, state).await?;
        // Other extractors of this request (the agent) read it from here.
        parts.extensions.insert(caller.clone());
        Ok(caller)
    }
}

impl Caller {
    /// The agent of the agent session whose credential this is, if it is one.
    pub fn session_agent(&self) -> Option<&str> {
        self.scope.as_ref().map(Scope::agent)
    }
}

/// Who calls, by Bearer credential or session cookie (checked as [`Caller`] says).
async fn identify(parts: &Parts, state: &AppState) -> ApiResult<Caller> {
    if let Some(bearer) = bearer(&parts.headers) {
        return match authenticate(state, bearer).await? {
            Some(caller) if caller.scope.is_some() && !in_a_monorepo(parts.uri.path()) => {
                Err(ApiError::forbidden(
                    ErrorCode::Forbidden,
                    "an agent session's credential acts only inside its monorepo",
                ))
            }
            Some(caller) if caller.kind != CredentialKind::Browser => Ok(caller),
            _ => Err(ApiError::unauthorized(
                "this credential is not valid (revoked or expired); run svc login",
            )),
        };
    }
    let Some(session) = cookie(&parts.headers, SESSION_COOKIE) else {
        return Err(ApiError::unauthorized(
            "sign in first: send a credential as Authorization: Bearer, or run svc login",
        ));
    };
    let caller = match authenticate(state, session).await? {
        Some(caller) if caller.kind == CredentialKind::Browser => caller,
        _ => {
            return Err(ApiError::unauthorized(
                "your session has ended; sign in again",
            ));
        }
    };
    let reads = parts.method == Method::GET || parts.method == Method::HEAD;
    if !reads || parts.headers.contains_key(header::UPGRADE) {
        check_origin(&parts.headers, state)?;
    }
    Ok(Caller {
        via_cookie: true,
        ..caller
    })
}

/// Whether a path lies inside one monorepo (`/v1/monorepos/{owner}/{name}/...`), the only
/// place an agent session's credential may act; authorization then keeps it to its own.
fn in_a_monorepo(path: &str) -> bool {
    path.strip_prefix("/v1/monorepos/")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(_, rest)| !rest.is_empty())
}

/// The caller when the request carries a credential (checked as [`Caller`] checks it: a
/// bad one is 401), none when it carries none: for the routes anyone may use.
#[derive(Debug, Clone)]
pub struct MaybeCaller(pub Option<Caller>);

impl FromRequestParts<AppState> for MaybeCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<MaybeCaller> {
        let presented =
            bearer(&parts.headers).is_some() || cookie(&parts.headers, SESSION_COOKIE).is_some();
        if !presented {
            return Ok(MaybeCaller(None));
        }
        Caller::from_request_parts(parts, state)
            .await
            .map(|c| MaybeCaller(Some(c)))
    }
}

/// Who posts a status: a member's credential, or a hook delivery's status token (one
/// commit of one repo, 24 hours, checked against the server's `status_secret`).
#[derive(Debug, Clone)]
pub enum StatusPoster {
    Member(Caller),
    Token(crate::hooks::tokens::StatusGrant),
}

impl FromRequestParts<AppState> for StatusPoster {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<StatusPoster> {
        let prefix = crate::hooks::tokens::STATUS_PREFIX;
        let Some(token) = bearer(&parts.headers).filter(|t| t.starts_with(prefix)) else {
            return Caller::from_request_parts(parts, state)
                .await
                .map(StatusPoster::Member);
        };
        let grant =
            state.config.status_secret.as_deref().and_then(|secret| {
                crate::hooks::tokens::check_status(secret, token, store::now_ms())
            });
        grant.map(StatusPoster::Token).ok_or_else(|| {
            ApiError::unauthorized("this status token is not valid (expired, or not signed here)")
        })
    }
}

/// A cookie write or socket upgrade must come from a page of this service.
pub fn check_origin(headers: &HeaderMap, state: &AppState) -> ApiResult<()> {
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    if origin == Some(state.config.origin().as_str()) {
        Ok(())
    } else {
        Err(ApiError::forbidden(
            ErrorCode::BadOrigin,
            "this request must come from a page of this service (missing or foreign Origin)",
        ))
    }
}

/// Looks a token up; `None` when unknown, revoked, expired or an idle session.
pub async fn authenticate(state: &AppState, token: &str) -> ApiResult<Option<Caller>> {
    if !token.starts_with(token::PREFIX) {
        return Ok(None);
    }
    let hash = token::hash(token);
    let row = match state.credentials.get(&hash) {
        Some(row) => row,
        None => {
            let generation = state.credentials.generation();
            let mut conn = state.store.read().await?;
            let Some(row) = credentials::by_token_hash(conn.h(), &hash).await? else {
                return Ok(None);
            };
            state.credentials.put(generation, row.clone());
            row
        }
    };
    if !bool::from(row.token_hash.as_slice().ct_eq(&hash)) {
        return Ok(None);
    }
    let now = now_ms();
    let kind = CredentialKind::parse(&row.kind).ok_or_else(|| {
        ApiError::internal(format!("credential {} has kind {}", row.id, row.kind))
    })?;
    // A scope that does not read back confines to nothing: refuse rather than free it.
    let scope = match row.scope.as_deref().map(Scope::parse) {
        None => None,
        Some(Some(scope)) => Some(scope),
        Some(None) => return Ok(None),
    };
    let last_use = row.last_used_at.unwrap_or(row.created_at);
    let idle = kind == CredentialKind::Browser && now - last_use > SESSION_IDLE_MS;
    if row.expires_at.is_some_and(|at| at <= now) || idle {
        return Ok(None);
    }
    if row.last_used_at.is_none_or(|at| now - at >= TOUCH_EVERY_MS) {
        let generation = state.credentials.generation();
        touch(&state.store, &row.id, now).await?;
        state.credentials.put(
            generation,
            TokenMatch {
                last_used_at: Some(now),
                ..row.clone()
            },
        );
    }
    Ok(Some(Caller {
        user_id: row.user_id,
        login: row.login,
        credential_id: row.id,
        credential_name: row.name,
        kind,
        permissions: crate::accounts::permissions_of(&row.permissions),
        via_cookie: false,
        scope,
    }))
}

async fn touch(store: &store::Store, id: &str, now: i64) -> store::Result<()> {
    let mut tx = store.begin().await?;
    credentials::touch(tx.h(), id, now).await?;
    tx.commit().await
}

impl Caller {
    /// Refuses (403 `missing_permission`) unless the credential holds `permission`.
    pub fn require(&self, permission: Permission) -> ApiResult<()> {
        if self.permissions.contains(&permission) {
            return Ok(());
        }
        Err(ApiError::new(
            axum::http::StatusCode::FORBIDDEN,
            ErrorCode::MissingPermission,
            format!(
                "this credential lacks the {} permission; make one that has it (svc credential create --permission {})",
                permission.as_str(),
                permission.as_str()
            ),
        ))
    }
}

/// The token of an `Authorization: Bearer` header.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// One cookie's value from the request's `Cookie` headers.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find_map(|(k, v)| (k == name).then_some(v))
}

/// The `Set-Cookie` value that starts a browser session.
pub fn session_cookie(token: &str) -> String {
    format!(
        "{SESSION_COOKIE}={token}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age={}",
        SESSION_IDLE_MS / 1000
    )
}

/// The `Set-Cookie` value that ends it.
pub fn clear_session_cookie() -> String {
    format!("{SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0")
}
