//! Monorepos, their members and invites, repos and heads.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// A monorepo's kind: `repo` marks a plain git repository (one repo at `.`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum MonorepoKind {
    #[default]
    Monorepo,
    Repo,
}

impl MonorepoKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Monorepo => "monorepo",
            Self::Repo => "repo",
        }
    }
}

/// A monorepo, labelled `<owner>/<name>` and keyed by its permanent `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Monorepo {
    pub id: String,
    pub owner: String,
    pub name: String,
    pub full_name: String,
    pub kind: MonorepoKind,
    /// The caller's role in it.
    pub role: Role,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// The answer of create, rename and transfer: the monorepo, and the old label of
/// another monorepo it took over (null when none).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MonorepoChanged {
    #[serde(flatten)]
    pub monorepo: Monorepo,
    pub replaced_alias: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MonorepoList {
    pub items: Vec<Monorepo>,
    pub next_cursor: Option<String>,
}

/// `POST /v1/monorepos`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateMonorepo {
    pub name: String,
    /// Namespace to create it in; the caller's own login by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default)]
    pub kind: MonorepoKind,
}

/// `PATCH {m}`: rename and/or transfer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RenameMonorepo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Member,
    Owner,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Owner => "owner",
            Self::Member => "member",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "owner" => Some(Self::Owner),
            "member" => Some(Self::Member),
            _ => None,
        }
    }
}

/// Someone who can open the monorepo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Member {
    pub login: String,
    pub name: Option<String>,
    pub picture_url: Option<String>,
    pub role: Role,
    /// Where the access comes from: `direct` (the monorepo's own row) or `org`.
    pub via: String,
    #[serde(with = "time::serde::rfc3339")]
    pub added_at: OffsetDateTime,
    pub added_by: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MemberList {
    pub items: Vec<Member>,
    pub next_cursor: Option<String>,
}

/// `PUT {m}/members/{login}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PutMember {
    pub role: Role,
}

/// A pending invite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Invite {
    pub email: String,
    pub role: Role,
    pub invited_by: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct InviteList {
    pub items: Vec<Invite>,
    pub next_cursor: Option<String>,
}

/// `POST {m}/invites`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateInvite {
    pub email: String,
    /// `member` by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
}

/// 200 `added` (someone signed in with that email before) or 201 `invited`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum InviteAnswer {
    Added {
        member: Member,
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

/// A repo of a monorepo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Repo {
    pub name: String,
    pub path: String,
    pub clone_url: String,
    pub default_branch: String,
    pub releases_public: bool,
    pub monorepo: String,
    pub monorepo_id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RepoList {
    pub items: Vec<Repo>,
    pub next_cursor: Option<String>,
}

/// `POST {m}/repos`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateRepo {
    /// Folder from the monorepo's root, like `services/api`.
    pub path: String,
}

/// `PATCH {r}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UpdateRepo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub releases_public: Option<bool>,
}

/// One code repo's main, for followers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Head {
    pub repo: String,
    pub default_branch: String,
    /// Null for an empty repo.
    pub head: Option<String>,
}

/// `GET {m}/heads`: every code repo's main head as of event `seq`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Heads {
    pub seq: i64,
    pub heads: Vec<Head>,
}
