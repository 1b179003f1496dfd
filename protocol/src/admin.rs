//! Site administration: the server's people, managed by its site admins (`/v1/admin`).

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::user::User;

/// `POST /v1/admin/users`: makes an account (its email counts as verified: the admin
/// vouches for it) and a one-time sign-in link where the person sets a password.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AdminCreateUser {
    pub email: String,
    /// Chosen login; derived from the email's local part when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Makes the person a site admin too.
    #[serde(default)]
    pub admin: bool,
}

/// The answer to `POST /v1/admin/users`: the link is shown this once.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AdminUserCreated {
    pub user: User,
    pub admin: bool,
    /// `<base-url>/login/link/<token>`: opened once, within 7 days, to set a password.
    pub sign_in_link: String,
    #[serde(with = "time::serde::rfc3339")]
    pub link_expires_at: OffsetDateTime,
}

/// One of the server's people, as its admins see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AdminUser {
    pub login: String,
    pub email: Option<String>,
    pub name: Option<String>,
    /// A site admin.
    pub admin: bool,
    /// Disabled: no sign-in, no credential.
    pub disabled: bool,
    #[serde(with = "crate::rfc3339_opt")]
    pub disabled_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// `GET /v1/admin/users`, by login.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AdminUserList {
    pub items: Vec<AdminUser>,
    pub next_cursor: Option<String>,
}
