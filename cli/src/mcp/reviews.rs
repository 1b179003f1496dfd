//! The `reviews` toolset: a branch's reviews, and posting a comment or a request for
//! changes. An agent never approves: the tool has no such state to send.

use reqwest::Method;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::branches::BranchArgs;
use super::{Server, pretty};
use crate::error::CommandError;

/// What a review by an agent may say.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Comment,
    RequestChanges,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReviewArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The branch under review.
    pub branch: String,
    /// `comment`, or `request_changes` when the branch must change before it merges.
    pub state: Verdict,
    /// The review (Markdown): what you found, file and line where it helps.
    pub body: String,
}

#[tool_router(router = reviews_router, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "List a branch's reviews, oldest first, as JSON: state (comment, approve, request_changes), body, author, the agent that wrote it, and the head it was written on.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn reviews(
        &self,
        Parameters(a): Parameters<BranchArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let b = c.b(&a.repo, &a.branch)?;
            Ok(pretty(&c.get_json(&format!("{b}/reviews?limit=100"))?))
        })
        .await
    }

    #[tool(
        description = "Post a review on a branch at its current head: a `comment`, or `request_changes`. Approving is for people, not this tool. Answers the review as JSON.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn review_branch(
        &self,
        Parameters(a): Parameters<ReviewArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            if a.body.trim().is_empty() {
                return Err(CommandError::user(
                    "the review is empty: say what you found",
                ));
            }
            let b = c.b(&a.repo, &a.branch)?;
            let body = json!({"state": a.state, "body": a.body});
            Ok(pretty(&c.send_json(
                Method::POST,
                &format!("{b}/reviews"),
                &body,
            )?))
        })
        .await
    }
}
