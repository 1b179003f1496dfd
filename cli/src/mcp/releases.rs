//! The `releases` toolset: a repo's releases, one release with its notes and files, and
//! its tags.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;

use super::{Server, pretty};
use crate::target::encode;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReleasesArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReleaseArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// The release's tag, like `v1.2.0`.
    pub tag: String,
}

#[tool_router(router = releases_router, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "List a repo's releases, newest first, as JSON: tag, title, draft or published, target commit and files.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn releases(
        &self,
        Parameters(a): Parameters<ReleasesArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            Ok(pretty(&c.get_json(&format!("{r}/releases"))?))
        })
        .await
    }

    #[tool(
        description = "List a repo's tags, newest first, as JSON: name, commit, and the release made of it if any.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn tags(
        &self,
        Parameters(a): Parameters<ReleasesArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            Ok(pretty(&c.get_json(&format!("{r}/tags"))?))
        })
        .await
    }

    #[tool(
        description = "View one release as JSON: tag, title, notes, target commit, state and its files.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn release(
        &self,
        Parameters(a): Parameters<ReleaseArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            Ok(pretty(
                &c.get_json(&format!("{r}/releases/{}", encode(&a.tag)))?,
            ))
        })
        .await
    }
}
