//! The `checks` toolset: the checks (statuses) of a commit or branch, the monorepo's CI
//! builds, and the tail of a job's log.

use reqwest::Method;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, schemars, tool, tool_router};
use serde::Deserialize;
use svc_protocol::branch::Branch;

use super::{Server, pretty, query};
use crate::target::encode;

/// Log lines of a job by default, and at most.
const LOG_LINES: usize = 200;
const LOG_LINES_MAX: usize = 5000;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ChecksArgs {
    /// The repo: its name or its path in the monorepo.
    pub repo: String,
    /// A branch name (its head) or a full commit sha.
    #[serde(rename = "ref")]
    pub git_ref: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BuildsArgs {
    /// Only this pipeline's builds (its slug).
    #[serde(default)]
    pub pipeline: Option<String>,
    /// With `pipeline`: the build of this number.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub number: Option<u64>,
    /// The `next_cursor` of a previous answer, for older builds.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct BuildArgs {
    /// The build's id, as ci_builds lists it.
    pub id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct JobArgs {
    /// The build's id.
    pub build: String,
    /// The job's id, as ci_build lists it.
    pub job: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct JobLogArgs {
    /// The build's id.
    pub build: String,
    /// The job's id, as ci_build lists it.
    pub job: String,
    /// Lines from the end of the log, 1 to 5,000; 200 by default.
    #[serde(default)]
    #[schemars(range(min = 1, max = 5000))]
    pub lines: Option<u32>,
}

/// A full commit sha, which names itself.
fn is_sha(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[tool_router(router = checks_router, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "The checks of a commit or a branch's head as JSON: the combined state (success, pending, failure, missing), the required contexts that are missing or failing, and every status with its target URL. This is what gates a merge.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn checks(
        &self,
        Parameters(a): Parameters<ChecksArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let r = c.r(&a.repo)?;
            let wanted = a.git_ref.trim();
            let sha = if is_sha(wanted) {
                wanted.to_owned()
            } else {
                let branch: Branch = c.session.get(&format!("{r}/branches/{}", encode(wanted)))?;
                branch.head
            };
            let checks = c.get_json(&format!("{r}/commits/{sha}/checks"))?;
            Ok(pretty(
                &serde_json::json!({"commit": sha, "checks": checks}),
            ))
        })
        .await
    }

    #[tool(
        description = "List the monorepo's CI builds, newest first (30 a page), as JSON: id, pipeline, number, state, branch, commit, message and link. Needs the monorepo's CI connected.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn ci_builds(
        &self,
        Parameters(a): Parameters<BuildsArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let number = a.number.map(|n| n.to_string());
            Ok(pretty(&c.get_json(&format!(
                "{}/ci/builds{}",
                c.m(),
                query(&[
                    ("pipeline", a.pipeline.as_deref()),
                    ("number", number.as_deref()),
                    ("cursor", a.cursor.as_deref()),
                ])
            ))?))
        })
        .await
    }

    #[tool(
        description = "View one CI build as JSON with its jobs: each job's id (for ci_job_log), name, state and exit status.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn ci_build(
        &self,
        Parameters(a): Parameters<BuildArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            Ok(pretty(&c.get_json(&format!(
                "{}/ci/builds/{}",
                c.m(),
                encode(&a.id)
            ))?))
        })
        .await
    }

    #[tool(
        description = "A CI build's annotations as JSON (the first 100): what its steps reported, such as test failures, with style and context.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn ci_annotations(
        &self,
        Parameters(a): Parameters<BuildArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            Ok(pretty(&c.get_json(&format!(
                "{}/ci/builds/{}/annotations",
                c.m(),
                encode(&a.id)
            ))?))
        })
        .await
    }

    #[tool(
        description = "Start a new CI build of the same commit and branch as a build (after a flaky failure, say); answers the new build as JSON. Needs a credential allowed to write builds.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn rebuild_ci_build(
        &self,
        Parameters(a): Parameters<BuildArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = format!("{}/ci/builds/{}/rebuild", c.m(), encode(&a.id));
            let request = c.session.request(Method::POST, &path)?;
            Ok(pretty(&c.session.call(request)?))
        })
        .await
    }

    #[tool(
        description = "Run a CI job again (a job is retried once); answers the new job as JSON, and the build's check goes back to pending. Needs a credential allowed to write builds.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn retry_ci_job(
        &self,
        Parameters(a): Parameters<JobArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = format!(
                "{}/ci/builds/{}/jobs/{}/retry",
                c.m(),
                encode(&a.build),
                encode(&a.job)
            );
            let request = c.session.request(Method::POST, &path)?;
            Ok(pretty(&c.session.call(request)?))
        })
        .await
    }

    #[tool(
        description = "The tail of a CI job's log as text (200 lines by default): where a failing build says why.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn ci_job_log(
        &self,
        Parameters(a): Parameters<JobLogArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        self.call(move |c| {
            let path = format!(
                "{}/ci/builds/{}/jobs/{}/log",
                c.m(),
                encode(&a.build),
                encode(&a.job)
            );
            let response = c.session.send(c.session.request(Method::GET, &path)?)?;
            let size = response
                .headers()
                .get("x-ci-log-size")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let bytes = response.bytes().map_err(|e| c.session.garbled(&e))?;
            let wanted = a
                .lines
                .map_or(LOG_LINES, |n| n as usize)
                .clamp(1, LOG_LINES_MAX);
            Ok(tail(
                &String::from_utf8_lossy(&bytes),
                wanted,
                size.as_deref(),
            ))
        })
        .await
    }
}

/// The last `wanted` lines of a log, said to be a tail when it is one.
fn tail(log: &str, wanted: usize, size: Option<&str>) -> String {
    let lines: Vec<&str> = log.lines().collect();
    let from = lines.len().saturating_sub(wanted);
    let mut out = String::new();
    if from > 0 {
        out.push_str(&format!(
            "[the last {} lines of the log{}]\n",
            lines.len() - from,
            size.map(|s| format!(" of {s} bytes")).unwrap_or_default()
        ));
    }
    for line in &lines[from..] {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::tail;

    #[test]
    fn a_tail_keeps_the_last_lines_and_says_so() {
        assert_eq!(tail("a\nb\nc\n", 5, None), "a\nb\nc\n");
        assert_eq!(
            tail("a\nb\nc\n", 2, Some("6")),
            "[the last 2 lines of the log of 6 bytes]\nb\nc\n"
        );
    }
}
