//! The `issues` toolset: search, view, create, comment, label, assign, close and reopen
//! the monorepo's issues.

use reqwest::Method;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;
use svc_protocol::issue::{CommentBody, CreateIssue, SetChange, UpdateIssue};

use super::{Context, Server, pretty, query};
use crate::error::{CommandError, Result};

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct IssuesArgs {
    /// Search words that must all appear in the title or body (the last may be the start of a word).
    #[serde(default)]
    pub q: Option<String>,
    /// `open` (default), `closed` or `all`.
    #[serde(default)]
    pub state: Option<String>,
    /// Comma-separated label names: only issues with all of them.
    #[serde(default)]
    pub labels: Option<String>,
    /// Only issues assigned to this login.
    #[serde(default)]
    pub assignee: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct IssueArgs {
    /// The issue's number, as in `#12`.
    #[schemars(range(min = 1))]
    pub number: u64,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CreateIssueArgs {
    /// The title, 1 to 256 characters.
    pub title: String,
    /// The body (Markdown).
    #[serde(default)]
    pub body: Option<String>,
    /// Names of existing labels to put on it.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Logins of the monorepo's people to assign.
    #[serde(default)]
    pub assignees: Vec<String>,
    /// The repo it is about, by name.
    #[serde(default)]
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CommentArgs {
    /// The issue's number.
    #[schemars(range(min = 1))]
    pub number: u64,
    /// The comment (Markdown).
    pub body: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ChangeArgs {
    /// The issue's number.
    #[schemars(range(min = 1))]
    pub number: u64,
    /// Names to add.
    #[serde(default)]
    pub add: Vec<String>,
    /// Names to take off.
    #[serde(default)]
    pub remove: Vec<String>,
}

/// Why an issue is closed.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    Completed,
    NotPlanned,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CloseArgs {
    /// The issue's number.
    #[schemars(range(min = 1))]
    pub number: u64,
    /// `completed` (default) or `not_planned`.
    #[serde(default)]
    pub reason: Option<Reason>,
    /// A comment to leave first, saying why.
    #[serde(default)]
    pub comment: Option<String>,
}

impl Context {
    fn issue_path(&self, number: u64) -> String {
        format!("{}/issues/{number}", self.m())
    }

    fn update_issue(&self, number: u64, update: &UpdateIssue) -> Result<String> {
        let issue = self.send_json(Method::PATCH, &self.issue_path(number), update)?;
        Ok(pretty(&issue))
    }

    fn comment(&self, number: u64, body: String) -> Result<serde_json::Value> {
        if body.trim().is_empty() {
            return Err(CommandError::user("the comment is empty"));
        }
        self.send_json(
            Method::POST,
            &format!("{}/comments", self.issue_path(number)),
            &CommentBody { body },
        )
    }
}

fn change(a: ChangeArgs) -> Result<SetChange<String>> {
    if a.add.is_empty() && a.remove.is_empty() {
        return Err(CommandError::user(
            "nothing to change: give `add` or `remove`",
        ));
    }
    Ok(SetChange {
        add: a.add,
        remove: a.remove,
    })
}

#[tool_router(router = issues_router, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "List or search the monorepo's issues (30 at most, newest first) as JSON. `q` searches titles and bodies for words.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn issues(
        &self,
        Parameters(a): Parameters<IssuesArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let list = c.get_json(&format!(
                "{}/issues{}",
                c.m(),
                query(&[
                    ("q", a.q.as_deref()),
                    ("state", a.state.as_deref()),
                    ("labels", a.labels.as_deref()),
                    ("assignee", a.assignee.as_deref()),
                ])
            ))?;
            Ok(pretty(&list))
        })
        .await
    }

    #[tool(
        description = "Read one issue by number as JSON: title, body, state, labels, assignees, linked branches, and its timeline (comments and events, oldest first).",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn issue(
        &self,
        Parameters(a): Parameters<IssueArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = c.issue_path(a.number);
            let issue = c.get_json(&path)?;
            let timeline = c.get_json(&format!("{path}/timeline?limit=250"))?;
            Ok(pretty(&json!({"issue": issue, "timeline": timeline})))
        })
        .await
    }

    #[tool(
        description = "List the monorepo's labels (name, color, description): the names label_issue and create_issue take.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn labels(&self) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(|c| Ok(pretty(&c.get_json(&format!("{}/labels", c.m()))?)))
            .await
    }

    #[tool(
        description = "Open an issue in the monorepo, optionally with labels, assignees and the repo it is about; answers it as JSON, with its number.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn create_issue(
        &self,
        Parameters(a): Parameters<CreateIssueArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let body = CreateIssue {
                title: a.title,
                body: a.body,
                labels: a.labels,
                assignees: a.assignees,
                project: a.project,
                link: Vec::new(),
            };
            Ok(pretty(&c.send_json(
                Method::POST,
                &format!("{}/issues", c.m()),
                &body,
            )?))
        })
        .await
    }

    #[tool(
        description = "Comment on an issue; answers the comment as JSON.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn comment_issue(
        &self,
        Parameters(a): Parameters<CommentArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| Ok(pretty(&c.comment(a.number, a.body)?)))
            .await
    }

    #[tool(
        description = "Add labels to an issue or take them off (by name; the labels tool lists them); answers the issue.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn label_issue(
        &self,
        Parameters(a): Parameters<ChangeArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let number = a.number;
            let update = UpdateIssue {
                labels: Some(change(a)?),
                ..UpdateIssue::default()
            };
            c.update_issue(number, &update)
        })
        .await
    }

    #[tool(
        description = "Assign people to an issue or unassign them (by login); answers the issue.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn assign_issue(
        &self,
        Parameters(a): Parameters<ChangeArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let number = a.number;
            let update = UpdateIssue {
                assignees: Some(change(a)?),
                ..UpdateIssue::default()
            };
            c.update_issue(number, &update)
        })
        .await
    }

    #[tool(
        description = "Close an issue as `completed` (default) or `not_planned`, after an optional comment saying why; answers the issue.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn close_issue(
        &self,
        Parameters(a): Parameters<CloseArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            if let Some(comment) = a.comment {
                c.comment(a.number, comment)?;
            }
            let update = json!({
                "state": "closed",
                "state_reason": a.reason.unwrap_or(Reason::Completed),
            });
            let issue = c.send_json(Method::PATCH, &c.issue_path(a.number), &update)?;
            Ok(pretty(&issue))
        })
        .await
    }

    #[tool(
        description = "Reopen a closed issue; answers the issue.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn reopen_issue(
        &self,
        Parameters(a): Parameters<IssueArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let issue = c.send_json(
                Method::PATCH,
                &c.issue_path(a.number),
                &json!({"state": "open"}),
            )?;
            Ok(pretty(&issue))
        })
        .await
    }
}
