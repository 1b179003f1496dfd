//! What an agent session's credential is confined to. The server holds the line, not the
//! runner: a session's `cloud-` credential acts only inside its own monorepo, and a review
//! session's only reads and posts reviews on its one branch, whatever the runner tries;
//! none does what only owners do.
//!
//! Stored in the credential's `scope` column as words: `monorepo <monorepo id>` or
//! `review <monorepo id> <repo id> <branch>` (ids and branch names hold no spaces).

use svc_protocol::ErrorCode;

use crate::authz::Need;
use crate::error::{ApiError, ApiResult};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// All its person may do in one monorepo, nothing outside it (task sessions and chats).
    Monorepo { monorepo_id: String },
    /// Read one monorepo; post reviews (comments, change requests) on one branch.
    Review {
        monorepo_id: String,
        repo_id: String,
        branch: String,
    },
}

impl Scope {
    pub fn parse(stored: &str) -> Option<Scope> {
        let words: Vec<&str> = stored.split(' ').collect();
        match words.as_slice() {
            ["monorepo", m] => Some(Scope::Monorepo {
                monorepo_id: (*m).to_owned(),
            }),
            ["review", m, r, b] => Some(Scope::Review {
                monorepo_id: (*m).to_owned(),
                repo_id: (*r).to_owned(),
                branch: (*b).to_owned(),
            }),
            _ => None,
        }
    }

    pub fn render(&self) -> String {
        match self {
            Scope::Monorepo { monorepo_id } => format!("monorepo {monorepo_id}"),
            Scope::Review {
                monorepo_id,
                repo_id,
                branch,
            } => format!("review {monorepo_id} {repo_id} {branch}"),
        }
    }

    pub fn monorepo_id(&self) -> &str {
        match self {
            Scope::Monorepo { monorepo_id } | Scope::Review { monorepo_id, .. } => monorepo_id,
        }
    }

    /// Whether the credential may act in `monorepo_id` at all (elsewhere it sees 404).
    pub fn reaches(&self, monorepo_id: &str) -> bool {
        self.monorepo_id() == monorepo_id
    }

    /// Refuses what a session may not do in its monorepo: what only owners do (members,
    /// hooks, settings, deleting it), for any session; for a review session, anything
    /// beyond reading and posting a review.
    pub fn allows(&self, need: Need) -> ApiResult<()> {
        match (self, need) {
            (Scope::Review { .. }, Need::Write | Need::Own) => Err(refused()),
            (Scope::Monorepo { .. }, Need::Own) => Err(ApiError::forbidden(
                ErrorCode::Forbidden,
                "an agent session's credential may not do what only owners do",
            )),
            _ => Ok(()),
        }
    }

    /// Refuses a review anywhere but the review session's own branch.
    pub fn allows_review(&self, repo_id: &str, branch: &str) -> ApiResult<()> {
        match self {
            Scope::Review {
                repo_id: r,
                branch: b,
                ..
            } if r != repo_id || b != branch => Err(refused()),
            _ => Ok(()),
        }
    }

    /// Whether the credential reviews (and so may not approve).
    pub fn is_review(&self) -> bool {
        matches!(self, Scope::Review { .. })
    }
}

fn refused() -> ApiError {
    ApiError::forbidden(
        ErrorCode::Forbidden,
        "a review session's credential may only read and post reviews on its branch",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_read_back_as_written() {
        let review = Scope::Review {
            monorepo_id: "m_1".into(),
            repo_id: "r_2".into(),
            branch: "feature/x".into(),
        };
        assert_eq!(Scope::parse(&review.render()), Some(review.clone()));
        let task = Scope::Monorepo {
            monorepo_id: "m_1".into(),
        };
        assert_eq!(Scope::parse(&task.render()), Some(task.clone()));
        assert!(task.allows(Need::Write).is_ok());
        assert!(task.allows(Need::Own).is_err());
        assert_eq!(Scope::parse("review m_1 r_2"), None);
        assert!(review.allows(Need::Write).is_err());
        assert!(review.allows(Need::Review).is_ok());
        assert!(review.allows_review("r_2", "feature/x").is_ok());
        assert!(review.allows_review("r_2", "main").is_err());
    }
}
