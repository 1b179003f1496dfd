//! What an agent session's credential is confined to. The server holds the line, not the
//! runner: a session's `cloud-` credential acts only inside its own monorepo, and a review
//! session's only reads and posts reviews on its one branch, whatever the runner tries;
//! none does what only owners do.
//!
//! Stored in the credential's `scope` column as words: `monorepo <monorepo id> <agent>`
//! (`chat <monorepo id> <agent>` for a chat's), or `review <monorepo id> <repo id> <branch> <agent>` (ids and branch names hold no
//! spaces; the agent, the session's runner, is the rest). The agent is what the server
//! records for whatever the credential does, whatever `X-Svc-Agent` says.

use svc_protocol::ErrorCode;

use crate::authz::Need;
use crate::error::{ApiError, ApiResult};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// All its person may do in one monorepo, nothing outside it (task sessions, and
    /// chats, which may also start their own `assistant/` branches).
    Monorepo {
        monorepo_id: String,
        agent: String,
        chat: bool,
    },
    /// Read one monorepo; post reviews (comments, change requests) on one branch.
    Review {
        monorepo_id: String,
        repo_id: String,
        branch: String,
        agent: String,
    },
}

impl Scope {
    pub fn parse(stored: &str) -> Option<Scope> {
        let (kind, rest) = stored.split_once(' ')?;
        let words: Vec<&str> = match kind {
            "monorepo" | "chat" => rest.splitn(2, ' ').collect(),
            "review" => rest.splitn(4, ' ').collect(),
            _ => return None,
        };
        let own = |w: &&str| (*w).to_owned();
        match words.as_slice() {
            [m, agent] if kind != "review" && !agent.is_empty() => Some(Scope::Monorepo {
                monorepo_id: own(m),
                agent: own(agent),
                chat: kind == "chat",
            }),
            [m, r, b, agent] if !agent.is_empty() => Some(Scope::Review {
                monorepo_id: own(m),
                repo_id: own(r),
                branch: own(b),
                agent: own(agent),
            }),
            _ => None,
        }
    }

    pub fn render(&self) -> String {
        match self {
            Scope::Monorepo {
                monorepo_id,
                agent,
                chat,
            } => {
                let kind = if *chat { "chat" } else { "monorepo" };
                format!("{kind} {monorepo_id} {agent}")
            }
            Scope::Review {
                monorepo_id,
                repo_id,
                branch,
                agent,
            } => format!("review {monorepo_id} {repo_id} {branch} {agent}"),
        }
    }

    pub fn monorepo_id(&self) -> &str {
        match self {
            Scope::Monorepo { monorepo_id, .. } | Scope::Review { monorepo_id, .. } => monorepo_id,
        }
    }

    /// The session's agent: recorded for everything its credential does.
    pub fn agent(&self) -> &str {
        match self {
            Scope::Monorepo { agent, .. } | Scope::Review { agent, .. } => agent,
        }
    }

    /// Whether the credential may act in `monorepo_id` at all (elsewhere it sees 404).
    pub fn reaches(&self, monorepo_id: &str) -> bool {
        self.monorepo_id() == monorepo_id
    }

    /// Refuses what a session may not do in its monorepo: what only owners do (members,
    /// hooks, settings, deleting it) and starting or steering sessions (its own
    /// included: only people drive agents), for any session; for a review session,
    /// anything beyond reading and posting a review.
    pub fn allows(&self, need: Need) -> ApiResult<()> {
        match (self, need) {
            (_, Need::Steer) => Err(ApiError::forbidden(
                ErrorCode::Forbidden,
                "only people start and steer agent sessions, not an agent session's credential",
            )),
            (Scope::Review { .. }, Need::Write | Need::Own) => Err(refused()),
            (Scope::Monorepo { .. }, Need::Own) => Err(ApiError::forbidden(
                ErrorCode::Forbidden,
                "an agent session's credential may not do what only owners do",
            )),
            _ => Ok(()),
        }
    }

    /// Whether a launch on `branch` is a chat starting its own branch (`assistant/…`):
    /// the one session a session's credential may start (a person asked the chat for a
    /// change; the task it starts can start none).
    pub fn starts_own_branch(&self, branch: &str) -> bool {
        matches!(self, Scope::Monorepo { chat: true, .. }) && branch.starts_with("assistant/")
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
            agent: "claude code".into(),
        };
        assert_eq!(Scope::parse(&review.render()), Some(review.clone()));
        assert_eq!(review.agent(), "claude code");
        let task = Scope::Monorepo {
            monorepo_id: "m_1".into(),
            agent: "codex".into(),
            chat: false,
        };
        assert_eq!(Scope::parse(&task.render()), Some(task.clone()));
        let chat = Scope::Monorepo {
            monorepo_id: "m_1".into(),
            agent: "claude".into(),
            chat: true,
        };
        assert_eq!(Scope::parse(&chat.render()), Some(chat.clone()));
        assert!(chat.starts_own_branch("assistant/fix"));
        assert!(!chat.starts_own_branch("fix"));
        assert!(!task.starts_own_branch("assistant/fix"));
        assert!(task.allows(Need::Write).is_ok());
        assert!(task.allows(Need::Own).is_err());
        assert!(task.allows(Need::Steer).is_err());
        assert!(review.allows(Need::Steer).is_err());
        assert_eq!(Scope::parse("review m_1 r_2"), None);
        assert_eq!(Scope::parse("review m_1 r_2 b"), None);
        // Without its agent a scope does not read back (and so confines to nothing).
        assert_eq!(Scope::parse("monorepo m_1"), None);
        assert!(review.allows(Need::Write).is_err());
        assert!(review.allows(Need::Review).is_ok());
        assert!(review.allows_review("r_2", "feature/x").is_ok());
        assert!(review.allows_review("r_2", "main").is_err());
    }
}
