//! Making users and credentials: shared by bootstrap, the device flow and sign-in.

use axum::http::StatusCode;
use svc_protocol::ErrorCode;
use svc_protocol::user::{CredentialKind, NewCredential, Permission, User};

use crate::error::{ApiError, ApiResult};
use crate::git::merge::signable;
use crate::login_rule::{self, LoginError};
use crate::store::{self, H, Tx, credentials, monorepos, now_ms, orgs, time_of, users};
use crate::token;

/// What is known of a new person.
pub struct NewUser<'a> {
    pub login: Option<&'a str>,
    pub email: Option<&'a str>,
    pub email_verified: bool,
    pub name: Option<&'a str>,
    pub password_hash: Option<String>,
    /// A site admin (the server's first person is one whatever this says).
    pub site_admin: bool,
}

impl<'a> NewUser<'a> {
    /// A person known only by an email someone vouched for (bootstrap, quickstart).
    pub fn verified_email(email: &'a str) -> NewUser<'a> {
        NewUser {
            login: None,
            email: Some(email),
            email_verified: true,
            name: None,
            password_hash: None,
            site_admin: false,
        }
    }
}

/// Creates a user; the server's first one is a site admin. A chosen login must be free; without one, a login is derived from
/// the email's local part (`base`, `base-2` ... `base-999`, then a random tail). A name
/// or email git cannot write in a commit is refused (422): see [`check_signable`].
pub async fn create_user(tx: &mut Tx, new: NewUser<'_>) -> ApiResult<users::UserRow> {
    if let Some(name) = new.name {
        check_signable(name, "a name", ErrorCode::BadRequest)?;
    }
    if let Some(email) = new.email {
        check_signable(email, "an email address", ErrorCode::BadEmail)?;
    }
    let email = new.email.map(str::to_ascii_lowercase);
    if let Some(email) = &email
        && users::by_email(tx.h(), email).await?.is_some()
    {
        return Err(ApiError::conflict(
            ErrorCode::EmailTaken,
            "a user with that email already exists",
        ));
    }
    let login = match new.login {
        Some(login) => {
            let login = check_login(login)?;
            ensure_free(tx.h(), &login).await?;
            login
        }
        None => derive_login(tx.h(), email.as_deref().unwrap_or("user")).await?,
    };
    let site_admin = new.site_admin || !users::any(tx.h()).await?;
    let row = users::UserRow {
        id: token::new_id("u_"),
        login,
        email,
        email_verified: new.email_verified,
        name: new.name.map(str::to_owned),
        picture_url: None,
        password_hash: new.password_hash,
        created_at: now_ms(),
        site_admin,
        disabled_at: None,
    };
    users::insert(tx.h(), &row).await.map_err(|e| {
        if e.is_unique_violation() {
            ApiError::conflict(
                ErrorCode::NamespaceTaken,
                "that login or email was taken just now; try again",
            )
        } else {
            e.into()
        }
    })?;
    if row.email_verified
        && let Some(email) = &row.email
    {
        accept_invites(tx, &row.id, email).await?;
    }
    Ok(row)
}

/// Lowers and checks a chosen login (a person's or an org's): 400 `bad_login` for the
/// wrong shape, 400 `reserved_name` for a reserved one.
pub fn check_login(input: &str) -> ApiResult<String> {
    login_rule::normalize(input).map_err(|e| match e {
        LoginError::Reserved => ApiError::bad_request(ErrorCode::ReservedName, e.to_string()),
        LoginError::Shape => ApiError::bad_request(ErrorCode::BadLogin, e.to_string()),
    })
}

/// 409 `namespace_taken` when a person or an org has the login already.
pub async fn ensure_free(h: H<'_>, login: &str) -> ApiResult<()> {
    if users::logins_like(h, login)
        .await?
        .iter()
        .any(|l| l == login)
    {
        return Err(ApiError::conflict(
            ErrorCode::NamespaceTaken,
            format!("the login {login} is taken"),
        ));
    }
    Ok(())
}

/// Lowers and checks an invited email address: 400 `bad_email` unless it looks like
/// name@host.
pub fn invite_email(input: &str) -> ApiResult<String> {
    let email = input.trim().to_ascii_lowercase();
    if !email.contains('@') || email.len() > 254 || email.contains(char::is_whitespace) {
        return Err(ApiError::bad_request(
            ErrorCode::BadEmail,
            "email must look like name@host",
        ));
    }
    Ok(email)
}

/// Checks a profile picture (a person's or an org's): an https URL.
pub fn check_picture_url(url: String) -> ApiResult<String> {
    match url::Url::parse(&url) {
        Ok(u) if u.scheme() == "https" && url.len() <= 2048 => Ok(url),
        _ => Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "picture_url must be an https URL",
        )),
    }
}

/// Turns the invites waiting for a verified email, of monorepos and of orgs, into
/// memberships with the invited role (never lowering a role already held).
pub async fn accept_invites(tx: &mut Tx, user_id: &str, email: &str) -> store::Result<()> {
    for invite in orgs::take_invites_for(tx.h(), email).await? {
        let current = orgs::role(tx.h(), &invite.org, user_id).await?;
        if current.as_deref() != Some("owner") {
            let by = Some(invite.invited_by.as_str());
            orgs::put_member(tx.h(), &invite.org, user_id, &invite.role, by, now_ms()).await?;
            if let Some(login) = users::by_id(tx.h(), user_id).await?.map(|u| u.login) {
                crate::member_events::org_changed(tx.h(), &invite.org, user_id, &login, None)
                    .await?;
            }
        }
    }
    for invite in monorepos::take_invites_for(tx.h(), email).await? {
        let current = monorepos::own_role(tx.h(), &invite.monorepo_id, user_id).await?;
        if current.as_deref() != Some("owner") {
            let by = Some(invite.invited_by.as_str());
            monorepos::put_member(
                tx.h(),
                &invite.monorepo_id,
                user_id,
                &invite.role,
                by,
                now_ms(),
            )
            .await?;
            let login = users::by_id(tx.h(), user_id).await?.map(|u| u.login);
            if let Some(login) = login {
                crate::member_events::changed(tx.h(), &invite.monorepo_id, user_id, &login, None)
                    .await?;
            }
        }
    }
    Ok(())
}

/// The login a new account for `email` would get: its local part, made free.
pub async fn derive_login(h: H<'_>, email: &str) -> store::Result<String> {
    let base = login_rule::derive_base(email);
    let taken = users::logins_like(h, &base).await?;
    Ok(login_rule::first_free(&base, &taken).unwrap_or_else(|| {
        let tail = token::new_id("");
        format!("{}-{}", &base[..base.len().min(30)], &tail[..8])
    }))
}

/// The permissions a stored credential row names (unknown words are skipped).
pub fn permissions_of(stored: &str) -> Vec<Permission> {
    stored
        .split_whitespace()
        .filter_map(Permission::parse)
        .collect()
}

/// Makes a credential with the permissions of its kind (a machine or browser session
/// holds every one, a sandbox none) and answers it with its token, shown this once.
pub async fn issue_credential(
    tx: &mut Tx,
    user_id: &str,
    name: &str,
    kind: CredentialKind,
    expires_at: Option<i64>,
) -> store::Result<NewCredential> {
    issue_credential_with(
        tx,
        user_id,
        name,
        kind,
        expires_at,
        default_permissions(kind),
    )
    .await
}

/// What a credential of `kind` holds unless made with named permissions.
pub fn default_permissions(kind: CredentialKind) -> &'static [Permission] {
    match kind {
        CredentialKind::Sandbox => &[],
        CredentialKind::Machine | CredentialKind::Browser => &Permission::ALL,
    }
}

/// Makes a credential holding exactly `permissions`; its token is shown this once.
pub async fn issue_credential_with(
    tx: &mut Tx,
    user_id: &str,
    name: &str,
    kind: CredentialKind,
    expires_at: Option<i64>,
    permissions: &[Permission],
) -> store::Result<NewCredential> {
    issue(tx, user_id, name, kind, expires_at, permissions, None).await
}

/// Makes an agent session's sandbox credential, confined to `scope`
/// (`crate::agents::scope`) and holding no extra permission; its token is shown this once.
pub async fn issue_scoped_credential(
    tx: &mut Tx,
    user_id: &str,
    name: &str,
    scope: &str,
) -> store::Result<NewCredential> {
    let kind = CredentialKind::Sandbox;
    issue(tx, user_id, name, kind, None, &[], Some(scope.to_owned())).await
}

async fn issue(
    tx: &mut Tx,
    user_id: &str,
    name: &str,
    kind: CredentialKind,
    expires_at: Option<i64>,
    permissions: &[Permission],
    scope: Option<String>,
) -> store::Result<NewCredential> {
    let mut permissions = permissions.to_vec();
    permissions.sort_by_key(|p| p.as_str());
    permissions.dedup();
    let token = token::new_token();
    let row = credentials::CredentialRow {
        id: token::new_id("c_"),
        user_id: user_id.to_owned(),
        name: name.to_owned(),
        kind: kind.as_str().to_owned(),
        permissions: permissions
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        created_at: now_ms(),
        last_used_at: None,
        expires_at,
        scope,
    };
    credentials::insert(tx.h(), &row, &token::hash(&token)).await?;
    Ok(NewCredential {
        id: row.id,
        name: row.name,
        kind,
        token,
        permissions,
        created_at: time_of(row.created_at),
        expires_at: expires_at.map(time_of),
    })
}

/// The profile answer for a user row.
pub fn user_view(row: &users::UserRow) -> User {
    User {
        login: row.login.clone(),
        email: row.email.clone(),
        name: row.name.clone(),
        picture_url: row.picture_url.clone(),
        created_at: time_of(row.created_at),
    }
}

/// Checks a credential or machine name: 1 to 100 printable characters.
pub fn check_name(name: &str, what: &str) -> ApiResult<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("{what} must be 1 to 100 printable characters"),
        ));
    }
    Ok(name.to_owned())
}

/// Checks a person's name: what git can write in a commit (else 422, see
/// [`check_signable`]), 1 to 100 characters.
pub fn check_person_name(name: &str) -> ApiResult<String> {
    check_signable(name, "a name", ErrorCode::BadRequest)?;
    check_name(name, "name")
}

/// Refuses, with 422 and `code`, a person's name or email holding what git cannot write
/// in a commit's author (`<`, `>`, a newline, another control character): their every
/// merge would fail.
pub fn check_signable(text: &str, what: &str, code: ErrorCode) -> ApiResult<()> {
    match text.chars().find(|c| !signable(*c)) {
        None => Ok(()),
        Some(c) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            code,
            format!("{what} may not contain {c:?}: git cannot write it in a commit's author"),
        )),
    }
}

/// Argon2id hash of a password for the local identity provider.
pub fn hash_password(password: &str) -> ApiResult<String> {
    use argon2::password_hash::PasswordHasher;
    if password.chars().count() < 8 || password.len() > 1024 {
        return Err(ApiError::bad_request(
            ErrorCode::BadPassword,
            "a password is 8 to 1024 characters",
        ));
    }
    argon2::Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(ApiError::internal)
}

/// Whether `password` matches a stored argon2 hash.
pub fn verify_password(password: &str, hash: &str) -> bool {
    use argon2::password_hash::PasswordVerifier;
    argon2::Argon2::default()
        .verify_password(password.as_bytes(), hash)
        .is_ok()
}
