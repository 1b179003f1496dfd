//! Organizations: namespaces for teams, with their people and invites.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::monorepo::{Invite, Role};

/// `POST /v1/orgs`: the caller becomes the org's first owner.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateOrg {
    /// The org's login, a namespace shared with people's logins: 1 to 39 letters, digits
    /// and single hyphens, no hyphen at either end; some names are reserved.
    #[cfg_attr(
        feature = "openapi",
        schema(
            min_length = 1,
            max_length = 39,
            pattern = r"^[A-Za-z0-9](-?[A-Za-z0-9])*$"
        )
    )]
    pub login: String,
    /// 1 to 100 printable characters, not all spaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(
            min_length = 1,
            max_length = 100,
            pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
        )
    )]
    pub name: Option<String>,
    /// Up to 1,000 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub description: Option<String>,
}

/// The org header (`GET /v1/orgs/{org}`, and each row of `GET /v1/user/orgs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Org {
    pub login: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub picture_url: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// The caller's role; null when the caller is not in the org.
    pub role: Option<Role>,
    /// How many people the org has; null for callers outside it.
    pub members: Option<i64>,
}

/// `GET /v1/user/orgs`: the orgs the caller is in, by login.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OrgList {
    pub items: Vec<Org>,
    pub next_cursor: Option<String>,
}

/// `PATCH /v1/orgs/{org}` (owners): omitted fields are kept, `null` clears one.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UpdateOrg {
    /// 1 to 100 printable characters, not all spaces; null clears it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::deserialize"
    )]
    #[cfg_attr(
        feature = "openapi",
        schema(
            min_length = 1,
            max_length = 100,
            pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
        )
    )]
    pub name: Option<Option<String>>,
    /// Up to 1,000 characters; null clears it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::deserialize"
    )]
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub description: Option<Option<String>>,
    /// An https URL (the server takes any it can parse); null clears it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::nullable::deserialize"
    )]
    #[cfg_attr(
        feature = "openapi",
        schema(
            max_length = 2048,
            pattern = r"^https://[A-Za-z][A-Za-z0-9-]*(\.[A-Za-z][A-Za-z0-9-]*)*(/[A-Za-z0-9._~/-]*)?$"
        )
    )]
    pub picture_url: Option<Option<String>>,
}

/// Someone in an org (the Org member shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OrgMember {
    pub login: String,
    pub name: Option<String>,
    pub picture_url: Option<String>,
    pub role: Role,
    #[serde(with = "time::serde::rfc3339")]
    pub added_at: OffsetDateTime,
    /// Null for the org's creator.
    pub added_by: Option<String>,
    /// When the person last used any credential; null when never.
    #[serde(with = "crate::rfc3339_opt")]
    pub last_active_at: Option<OffsetDateTime>,
}

/// `GET /v1/orgs/{org}/members`, by login.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OrgMemberList {
    pub items: Vec<OrgMember>,
    pub next_cursor: Option<String>,
}

/// `POST /v1/orgs/{org}/invites`: 200 `added` when someone signed in with that email
/// before, else 201 `invited` (the Org invite shape is the monorepo invite's).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum OrgInviteAnswer {
    Added {
        member: OrgMember,
    },
    Invited {
        invite: Invite,
        /// A one-time sign-in link (valid 7 days) to pass on, where the invitee makes
        /// their account and joins: given when the server uses its own sign-in (no
        /// OpenID Connect provider) and did not mail it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sign_in_link: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "crate::rfc3339_opt"
        )]
        link_expires_at: Option<OffsetDateTime>,
        /// True when the server mailed the link to the invitee (`[smtp]`).
        #[serde(default)]
        mailed: bool,
    },
}
