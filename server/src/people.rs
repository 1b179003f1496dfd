//! People on a self-hosted server: accounts the operator or a site admin makes, the
//! one-time sign-in links they (and invitees with no account) set a password through,
//! invite links mailed with `[smtp]`, and disabling a person.

use std::time::Duration;

use svc_protocol::ErrorCode;
use time::OffsetDateTime;

use crate::accounts::{self, NewUser};
use crate::config::SmtpSettings;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::store::{self, Tx, credentials, now_ms, sign_in_links, time_of, users};
use crate::token;

/// A sign-in link works for 7 days.
pub const LINK_MS: i64 = 7 * 24 * 3600 * 1000;

/// A sign-in link, shown once: only its token's hash is kept.
pub struct Link {
    /// `<base-url>/login/link/<token>`.
    pub url: String,
    pub expires_at: OffsetDateTime,
}

/// Makes a one-time sign-in link for `email`: to `user_id`'s account when given, else
/// (an invite's) one that makes the account for that email.
pub async fn new_link(
    tx: &mut Tx,
    base: &str,
    email: &str,
    user_id: Option<&str>,
    invited_by: Option<&str>,
) -> store::Result<Link> {
    let token = token::new_secret();
    let now = now_ms();
    let row = sign_in_links::SignInLink {
        token_hash: token::hash(&token),
        email: email.to_owned(),
        user_id: user_id.map(str::to_owned),
        invited_by: invited_by.map(str::to_owned),
        created_at: now,
        expires_at: now + LINK_MS,
        used_at: None,
    };
    sign_in_links::insert(tx.h(), &row).await?;
    Ok(Link {
        url: format!("{base}/login/link/{token}"),
        expires_at: time_of(row.expires_at),
    })
}

/// What an operator or a site admin asks for.
pub struct NewPerson<'a> {
    pub email: &'a str,
    pub login: Option<&'a str>,
    pub name: Option<&'a str>,
    pub admin: bool,
}

/// Makes an account whose email counts as verified (whoever makes it vouches for it, so
/// invites waiting for that email become memberships) and its sign-in link.
pub async fn add(
    tx: &mut Tx,
    base: &str,
    new: NewPerson<'_>,
    by: Option<&str>,
) -> ApiResult<(users::UserRow, Link)> {
    let email = accounts::invite_email(new.email)?;
    let name = new.name.map(accounts::check_person_name).transpose()?;
    let user = accounts::create_user(
        tx,
        NewUser {
            login: new.login,
            name: name.as_deref(),
            site_admin: new.admin,
            ..NewUser::verified_email(&email)
        },
    )
    .await?;
    let link = new_link(tx, base, &email, Some(&user.id), by).await?;
    Ok((user, link))
}

/// Disables a person: no sign-in of any kind from now on (their sign-in links included)
/// and every credential revoked (announced to every other server on PostgreSQL at
/// commit). Answers the revoked credentials' ids, for [`forget_credentials`].
pub async fn disable(tx: &mut Tx, user: &users::UserRow) -> store::Result<Vec<String>> {
    users::set_disabled(tx.h(), &user.id, Some(now_ms())).await?;
    credentials::delete_all(tx.h(), &user.id).await
}

/// After [`disable`] commits: this server's credential cache forgets them at once and
/// their open sockets close.
pub async fn forget_credentials(state: &AppState, ids: &[String]) {
    for id in ids {
        state.credentials.evict(id);
        state.credentials.sockets.shut_and_wait(id).await;
    }
}

/// The 403 for a disabled person's sign-in of any kind.
pub fn disabled_error() -> ApiError {
    ApiError::forbidden(
        ErrorCode::AccountDisabled,
        "this account is disabled; ask the server's admin to enable it",
    )
}

/// Refuses a disabled person's sign-in.
pub fn check_enabled(user: &users::UserRow) -> ApiResult<()> {
    match user.disabled_at {
        Some(_) => Err(disabled_error()),
        None => Ok(()),
    }
}

/// Mails an invite's sign-in link to `to` through `[smtp]`.
pub async fn mail_link(
    smtp: &SmtpSettings,
    to: &str,
    inviter: &str,
    place: &str,
    link: &Link,
) -> Result<(), String> {
    use lettre::message::header::ContentType;
    use lettre::transport::smtp::authentication::Credentials;
    use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

    let expires = link
        .expires_at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let body = format!(
        "{inviter} invited you to {place}.\n\n\
         Open this link to choose your login and password and join (it works once, until {expires}):\n\n\
         {url}\n",
        url = link.url
    );
    let message = Message::builder()
        .from(smtp.from.parse().map_err(|e| format!("[smtp] from: {e}"))?)
        .to(to.parse().map_err(|e| format!("cannot mail {to}: {e}"))?)
        .subject(format!("{inviter} invited you to {place} on svc"))
        .header(ContentType::TEXT_PLAIN)
        .body(body)
        .map_err(|e| e.to_string())?;
    let builder = if smtp.starttls {
        AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&smtp.host)
            .map_err(|e| e.to_string())?
    } else {
        AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&smtp.host)
    };
    let mut builder = builder
        .port(smtp.port)
        .timeout(Some(Duration::from_secs(15)));
    if let (Some(user), Some(password)) = (&smtp.username, &smtp.password) {
        builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
    }
    builder
        .build()
        .send(message)
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// An invite's sign-in link for an email with no account, on a server that signs people
/// in itself (no OpenID Connect provider); none otherwise.
pub async fn invite_link(
    state: &AppState,
    tx: &mut Tx,
    email: &str,
    inviter_id: &str,
) -> ApiResult<Option<Link>> {
    if state.oidc.is_some() || users::by_email(tx.h(), email).await?.is_some() {
        return Ok(None);
    }
    let link = new_link(tx, state.config.base(), email, None, Some(inviter_id)).await?;
    Ok(Some(link))
}

/// What an invite answer says of its link, after the invite committed: `(link shown,
/// expiry, mailed)`. With `[smtp]` the link is mailed and not shown; when mailing fails
/// it is shown to pass on.
pub async fn deliver(
    state: &AppState,
    link: Option<Link>,
    email: &str,
    inviter: &str,
    place: &str,
) -> (Option<String>, Option<OffsetDateTime>, bool) {
    let Some(link) = link else {
        return (None, None, false);
    };
    if let Some(smtp) = &state.config.smtp {
        match mail_link(smtp, email, inviter, place, &link).await {
            Ok(()) => return (None, Some(link.expires_at), true),
            Err(e) => {
                tracing::warn!(error = %e, "cannot mail an invite's sign-in link; answering it to the inviter")
            }
        }
    }
    (Some(link.url), Some(link.expires_at), false)
}
