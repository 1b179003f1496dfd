//! Users and their credentials.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// A person's profile (`GET /v1/user`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct User {
    pub login: String,
    pub email: Option<String>,
    pub name: Option<String>,
    pub picture_url: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// `PATCH /v1/user`: omitted fields are kept, `null` clears one.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UpdateUser {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::deserialize"
    )]
    /// 1 to 100 printable characters, not all spaces; null clears it.
    #[cfg_attr(
        feature = "openapi",
        schema(
            min_length = 1,
            max_length = 100,
            pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
        )
    )]
    pub name: Option<Option<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::deserialize"
    )]
    /// An https URL (the server takes any it can parse); null clears it.
    #[cfg_attr(
        feature = "openapi",
        schema(
            max_length = 2048,
            pattern = r"^https://[A-Za-z][A-Za-z0-9-]*(\.[A-Za-z][A-Za-z0-9-]*)*(/[A-Za-z0-9._~/-]*)?$"
        )
    )]
    pub picture_url: Option<Option<String>>,
}

/// `POST /v1/users` (bootstrap, with the server's bootstrap secret as Bearer).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateUser {
    /// Chosen login; derived from the email's local part when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<String>,
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Password for the built-in local identity provider (browser sign-in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// The kinds of credential a user holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum CredentialKind {
    /// A machine signed in with the device flow.
    Machine,
    /// A cloud sandbox the user made a credential for.
    Sandbox,
    /// A browser session (the session cookie).
    Browser,
}

impl CredentialKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Machine => "machine",
            Self::Sandbox => "sandbox",
            Self::Browser => "browser",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "machine" => Some(Self::Machine),
            "sandbox" => Some(Self::Sandbox),
            "browser" => Some(Self::Browser),
            _ => None,
        }
    }
}

/// What a credential may do beyond its person's role. Machine and browser credentials
/// carry every permission; a sandbox credential only those named when it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    /// Rebuild and cancel CI builds and retry their jobs (they spend the CI service's
    /// time and run with its secrets).
    WriteBuilds,
}

impl Permission {
    /// Every permission, as a person's own machine or browser holds them.
    pub const ALL: [Permission; 1] = [Permission::WriteBuilds];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::WriteBuilds => "write_builds",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "write_builds" => Some(Self::WriteBuilds),
            _ => None,
        }
    }
}

/// A credential as listed: never its token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Credential {
    pub id: String,
    pub name: String,
    pub kind: CredentialKind,
    /// What it may do beyond its person's role (`write_builds`).
    #[serde(default)]
    pub permissions: Vec<Permission>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "crate::rfc3339_opt")]
    pub last_used_at: Option<OffsetDateTime>,
    #[serde(with = "crate::rfc3339_opt")]
    pub expires_at: Option<OffsetDateTime>,
}

/// A credential just made: the only time its token is shown.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewCredential {
    pub id: String,
    pub name: String,
    pub kind: CredentialKind,
    pub token: String,
    /// What it may do beyond its person's role (`write_builds`).
    #[serde(default)]
    pub permissions: Vec<Permission>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(default, with = "crate::rfc3339_opt")]
    pub expires_at: Option<OffsetDateTime>,
}

/// `POST /v1/user/credentials`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateCredential {
    pub name: String,
    pub kind: CredentialKind,
    /// Lifetime in seconds; none means until revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<u64>,
    /// Its permissions; left out, a machine gets every one and a sandbox none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Vec<Permission>>,
}

/// A user with a fresh credential: the answer of bootstrap and of the device flow.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UserWithCredential {
    pub user: User,
    pub credential: NewCredential,
}

/// `GET /v1/user/credentials`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CredentialList {
    pub items: Vec<Credential>,
}
