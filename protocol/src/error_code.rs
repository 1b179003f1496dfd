//! Every error `code` the server answers, named once: the server builds its errors from
//! [`ErrorCode`], the CLI matches on it, and the OpenAPI document lists it.
//!
//! On the wire a code is a plain string ([`crate::ErrorBody::code`]), so a client keeps
//! working when a newer server adds one; [`ErrorCode::parse`] reads the ones it knows.

use serde::{Deserialize, Serialize};

macro_rules! error_codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $code:literal,)*) => {
        /// An error answer's machine-readable `code`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        // `rename_all`, not a `rename` per variant: the schema derive does not read renames
        // made inside a macro. The tests check that each travels as `as_str`.
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($(#[doc = $doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, in the order above.
            pub const ALL: &[ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as it travels.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                }
            }
        }
    };
}

error_codes! {
    /// Device flow: the person said no.
    AccessDenied = "access_denied",
    /// A sign-in (password, device, identity provider, sign-in link) of a person a site
    /// admin disabled.
    AccountDisabled = "account_disabled",
    /// A device approval with a credential an agent acts through.
    AgentCannotApprove = "agent_cannot_approve",
    /// Agent sessions on a server that runs no coding agents (no `[[agents.models]]`).
    AgentsNotConfigured = "agents_not_configured",
    /// A device code approved or denied already.
    AlreadyDecided = "already_decided",
    /// Device flow: not decided yet; poll again after the interval.
    AuthorizationPending = "authorization_pending",
    /// An `X-Svc-Agent` header that is not a short printable name.
    BadAgent = "bad_agent",
    /// A meta save whose `base` is not a version of the meta layer.
    BadBase = "bad_base",
    /// A branch name git would refuse.
    BadBranchName = "bad_branch_name",
    /// A `cursor` or `since` this list did not give out.
    BadCursor = "bad_cursor",
    /// An email address that does not look like one.
    BadEmail = "bad_email",
    /// A login that breaks the namespace rule.
    BadLogin = "bad_login",
    /// A monorepo name that breaks the name rule.
    BadName = "bad_name",
    /// A cookie write or socket upgrade with a foreign or missing `Origin`.
    BadOrigin = "bad_origin",
    /// A transfer to a person without their own owner row in the monorepo.
    BadOwner = "bad_owner",
    /// A password too short or too long.
    BadPassword = "bad_password",
    /// A repo or file path that is not accepted.
    BadPath = "bad_path",
    /// Input that is not accepted; the message says which.
    BadRequest = "bad_request",
    /// A WebSocket upgrade that is not a valid one.
    BadUpgrade = "bad_upgrade",
    /// Creating a branch that exists.
    BranchExists = "branch_exists",
    /// Launching an agent session without `branch`.
    BranchRequired = "branch_required",
    /// A merge refused because required checks are red or missing (carries `checks`).
    ChecksNotGreen = "checks_not_green",
    /// An unforced merge while the required checks cannot be read.
    ChecksUnknown = "checks_unknown",
    /// A second connection of a monorepo to one CI organization.
    CiConnectionExists = "ci_connection_exists",
    /// Cancelling a finished build.
    CiFinished = "ci_finished",
    /// A CI hook or connection while the server has no CI settings.
    CiNotConfigured = "ci_not_configured",
    /// A delete without `confirm` naming what goes.
    ConfirmRequired = "confirm_required",
    /// A merge that conflicts (carries `paths`).
    Conflicts = "conflicts",
    /// Deleting or closing the default branch.
    DefaultBranch = "default_branch",
    /// A stale `base_version` (carries `current`).
    Edited = "edited",
    /// An email address another person has.
    EmailTaken = "email_taken",
    /// A repo with no commit yet.
    EmptyRepo = "empty_repo",
    /// The event stream is switched off.
    EventStreamOnHold = "event_stream_on_hold",
    /// Device flow: the code expired; start again.
    ExpiredToken = "expired_token",
    /// Not allowed for this caller's role.
    Forbidden = "forbidden",
    /// commitFiles with an `expected_head` the branch is no longer at; `current` names
    /// its head now. Nothing was written.
    HeadMoved = "head_moved",
    /// An `Idempotency-Key` sent again with a different request.
    IdempotencyKeyReused = "idempotency_key_reused",
    /// An import whose history could not come in (a bad or corrupt bundle, objects that
    /// fail the check, an unreachable URL): nothing of it is visible.
    ImportFailed = "import_failed",
    /// A bundle for an import that is not waiting for one.
    ImportNotWaiting = "import_not_waiting",
    /// A failure of the server's own; it has been logged.
    Internal = "internal",
    /// Device flow: a device code the server never gave out.
    InvalidGrant = "invalid_grant",
    /// Addressing a closed issue with an agent.
    IssueClosed = "issue_closed",
    /// A label of that name exists already.
    LabelExists = "label_exists",
    /// A change that would leave no owner.
    LastOwner = "last_owner",
    /// An upload without `Content-Length`.
    LengthRequired = "length_required",
    /// Main moved while a merge was made; try again.
    MainMoved = "main_moved",
    /// A method the path does not take.
    MethodNotAllowed = "method_not_allowed",
    /// A meta save naming a blob the server lacks (carries `paths`).
    MissingBlob = "missing_blob",
    /// A credential without the permission the operation needs (`write_builds`).
    MissingPermission = "missing_permission",
    /// A monorepo name taken.
    MonorepoExists = "monorepo_exists",
    /// A login taken by a person or an org.
    NamespaceTaken = "namespace_taken",
    /// A repo without a main branch yet.
    NoMain = "no_main",
    /// commitFiles deleting a path the branch does not hold.
    NoSuchPath = "no_such_path",
    /// Editing or deleting someone else's artifact comment.
    NotAuthor = "not_author",
    /// Unknown, forgotten, or not visible to the caller.
    NotFound = "not_found",
    /// A follow-up to an agent session from someone other than its launcher.
    NotLauncher = "not_launcher",
    /// A release commit that is not on main.
    NotOnMain = "not_on_main",
    /// A branch that is not open (merged or closed).
    NotOpen = "not_open",
    /// A namespace the caller may not act for.
    NotYourNamespace = "not_your_namespace",
    /// A merge of a branch main has already (its head is main's, or behind it): it
    /// would make an empty merge commit.
    NothingToMerge = "nothing_to_merge",
    /// A second repo in a plain repo.
    PlainRepo = "plain_repo",
    /// The sign-in provider answered with an error.
    ProviderError = "provider_error",
    /// The sign-in provider cannot be reached or is not set up.
    ProviderUnavailable = "provider_unavailable",
    /// Over a request rate of the server (per address or per credential); the answer's
    /// `Retry-After` says in how many seconds to try again.
    RateLimited = "rate_limited",
    /// A ref moved while a merge was being made; try again.
    RefMoved = "ref_moved",
    /// Creating a release for a tag that has one.
    ReleaseExists = "release_exists",
    /// A repo path taken.
    RepoExists = "repo_exists",
    /// An import into a repo that has history already.
    RepoNotEmpty = "repo_not_empty",
    /// A reserved name for a monorepo, org or person.
    ReservedName = "reserved_name",
    /// Bytes whose SHA-256 differs from the one sent.
    Sha256Mismatch = "sha256_mismatch",
    /// Device flow: polling too fast; add five seconds to the interval.
    SlowDown = "slow_down",
    /// Publishing where the tag names another commit, or a tag a published release locks.
    TagExists = "tag_exists",
    /// A body over its size limit.
    TooLarge = "too_large",
    /// A 21st file on a release.
    TooManyFiles = "too_many_files",
    /// Over 100 artifacts on a branch.
    TooManyArtifacts = "too_many_artifacts",
    /// Over 20 `@login` mentions in an artifact comment.
    TooManyMentions = "too_many_mentions",
    /// A 201st reply in an artifact comment thread.
    TooManyReplies = "too_many_replies",
    /// Over the server's or the person's number of agent runs going at once.
    TooManySessions = "too_many_sessions",
    /// A 501st thread on an artifact.
    TooManyThreads = "too_many_threads",
    /// A 501st label in a monorepo.
    TooManyLabels = "too_many_labels",
    /// Over the limit of statuses on one commit.
    TooManyStatuses = "too_many_statuses",
    /// No credential, or one that is revoked or expired.
    Unauthorized = "unauthorized",
    /// A branch with no history in common with main.
    Unrelated = "unrelated",
    /// A body in another content type than the route takes.
    UnsupportedMediaType = "unsupported_media_type",
    /// A URL the server may not fetch: not http or https, or an address outside
    /// `[hooks] allowed_hosts`.
    UrlNotAllowed = "url_not_allowed",
    /// A sign-in callback in a browser other than the one that began the sign-in (its
    /// `__Host-svc_login` cookie is missing or another's): nobody is signed in.
    WrongBrowser = "wrong_browser",
}

impl ErrorCode {
    /// The code named `code`, if this version knows it.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| c.as_str() == code)
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<ErrorCode> for String {
    fn eq(&self, code: &ErrorCode) -> bool {
        self == code.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    #[test]
    fn each_code_travels_as_its_name_and_parses_back() {
        for &code in ErrorCode::ALL {
            let json = serde_json::to_value(code).expect("serializes");
            assert_eq!(json, code.as_str());
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(ErrorCode::parse("no_such_code"), None);
    }

    #[test]
    fn codes_are_unique_and_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "{s} twice");
            assert!(
                s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            );
        }
    }
}
