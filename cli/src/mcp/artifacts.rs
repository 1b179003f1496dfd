//! The `artifacts` toolset: a branch's artifacts (documents, images, reports), their
//! files' text, their comment threads, and commenting on them.

use reqwest::Method;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;
use serde_json::json;
use svc_protocol::artifact::{Artifact, NewArtifactComment};

use super::branches::BranchArgs;
use super::{FILE_CAP, Server, pretty, render};
use crate::error::CommandError;
use crate::target::encode;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ArtifactArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The branch the artifact is on.
    pub branch: String,
    /// The artifact's name, like `design.md`.
    pub name: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ArtifactFileArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The branch the artifact is on.
    pub branch: String,
    /// The artifact's name, like `design.md`.
    pub name: String,
    /// The version, from 1; the newest by default.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub version: Option<u64>,
    /// One of the version's files (as artifact lists them); the artifact's own file by default.
    #[serde(default)]
    pub file: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ArtifactCommentArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The branch the artifact is on.
    pub branch: String,
    /// The artifact's name, like `design.md`.
    pub name: String,
    /// The comment (Markdown).
    pub body: String,
    /// Words of the artifact the comment is about, quoted exactly.
    #[serde(default)]
    pub quote: Option<String>,
    /// The version it is about; the newest by default.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub version: Option<u64>,
    /// The id of a comment whose thread this one replies in.
    #[serde(default)]
    pub in_reply_to: Option<String>,
}

#[tool_router(router = artifacts_router, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "List a branch's artifacts (documents, images, reports attached to it), newest first, as JSON with their newest version and its files.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn artifacts(
        &self,
        Parameters(a): Parameters<BranchArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let b = c.b(&a.repo, &a.branch)?;
            Ok(pretty(&c.get_json(&format!("{b}/artifacts"))?))
        })
        .await
    }

    #[tool(
        description = "View an artifact as JSON: every version with its files, and its comment threads (quotes, comments, state).",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn artifact(
        &self,
        Parameters(a): Parameters<ArtifactArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = format!("{}/artifacts/{}", c.b(&a.repo, &a.branch)?, encode(&a.name));
            let artifact = c.get_json(&path)?;
            let threads = c.get_json(&format!("{path}/threads"))?;
            Ok(pretty(&json!({"artifact": artifact, "threads": threads})))
        })
        .await
    }

    #[tool(
        description = "Read an artifact's file as text (its own file of the newest version by default); a binary file such as an image is described, not shown.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn artifact_file(
        &self,
        Parameters(a): Parameters<ArtifactFileArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = format!("{}/artifacts/{}", c.b(&a.repo, &a.branch)?, encode(&a.name));
            let version = match a.version {
                Some(n) => n,
                None => {
                    let artifact: Artifact = c.session.get(&path)?;
                    let newest = artifact
                        .versions
                        .last()
                        .ok_or_else(|| CommandError::user(format!("{} has no version", a.name)))?;
                    u64::try_from(newest.n).unwrap_or(1)
                }
            };
            let file = a.file.unwrap_or_else(|| a.name.clone());
            let request = c.session.request(
                Method::GET,
                &format!("{path}/versions/{version}/files/{}", encode(&file)),
            )?;
            let response = c.session.send(request)?;
            let bytes = response.bytes().map_err(|e| c.session.garbled(&e))?;
            Ok(render::file(&file, &bytes, 0, FILE_CAP))
        })
        .await
    }

    #[tool(
        description = "Comment on an artifact: about words of it (`quote`), as a reply in a thread (`in_reply_to`), or on the whole; answers the comment as JSON.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn comment_artifact(
        &self,
        Parameters(a): Parameters<ArtifactCommentArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = format!(
                "{}/artifacts/{}/comments",
                c.b(&a.repo, &a.branch)?,
                encode(&a.name)
            );
            let body = NewArtifactComment {
                body: a.body,
                version: a.version.map(|v| i64::try_from(v).unwrap_or(i64::MAX)),
                anchor: None,
                quote: a.quote,
                in_reply_to: a.in_reply_to,
            };
            Ok(pretty(&c.send_json(Method::POST, &path, &body)?))
        })
        .await
    }
}
