//! `svc ci ...`: the monorepo's CI connections, and the builds and jobs they report.

pub mod builds;
pub mod cancel;
pub mod connect;
pub mod disconnect;
pub mod log;
pub mod rebuild;
pub mod retry;
pub mod start;
pub mod status;
pub mod view;

use reqwest::Method;
use reqwest::blocking::{RequestBuilder, Response};
use serde::de::DeserializeOwned;
use svc_protocol::ErrorCode;
use svc_protocol::ci::{CiBuild, CiBuildList, CiJob};

use super::Global;
use crate::error::{CommandError, Result};
use crate::target::{MonorepoTarget, encode};

/// Builds on the monorepo's CI service (Buildkite): connect, follow and steer builds
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Connect(connect::Args),
    Disconnect(disconnect::Args),
    Status(status::Args),
    Builds(builds::Args),
    View(view::Args),
    Log(log::Args),
    Start(start::Args),
    Rebuild(rebuild::Args),
    Cancel(cancel::Args),
    Retry(retry::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Connect(args) => connect::run(global, &args),
        Command::Disconnect(args) => disconnect::run(global, &args),
        Command::Status(args) => status::run(global, &args),
        Command::Builds(args) => builds::run(global, &args),
        Command::View(args) => view::run(global, &args),
        Command::Log(args) => log::run(global, &args),
        Command::Start(args) => start::run(global, &args),
        Command::Rebuild(args) => rebuild::run(global, &args),
        Command::Cancel(args) => cancel::run(global, &args),
        Command::Retry(args) => retry::run(global, &args),
    }
}

/// `{m}/ci`.
pub fn ci_path(target: &MonorepoTarget) -> String {
    format!("{}/ci", target.path())
}

/// `{m}/ci/builds/{id}` with the id as one path segment.
pub fn build_path(target: &MonorepoTarget, id: &str) -> String {
    format!("{}/builds/{}", ci_path(target), encode(id))
}

/// `{m}/ci/builds/{id}/jobs/{job}`.
pub fn job_path(target: &MonorepoTarget, build: &str, job: &str) -> String {
    format!("{}/jobs/{}", build_path(target, build), encode(job))
}

/// Sends, insisting on success; a refusal for want of the `write_builds` permission, or
/// for being no owner, says what would do.
pub fn send(target: &MonorepoTarget, request: RequestBuilder) -> Result<Response> {
    let session = &target.session;
    session.answer(request)?.map_err(|refusal| {
        let code = refusal.code();
        let error = session.refusal(refusal);
        match code {
            Some(ErrorCode::MissingPermission) => error.hint(
                "use a credential with the write_builds permission: your machine's \
                 (svc login) has it, a sandbox credential only when made with it",
            ),
            Some(ErrorCode::Forbidden) => error.hint(format!(
                "owners connect and disconnect CI, members start builds; svc monorepo view {} shows your role",
                target.label()
            )),
            Some(ErrorCode::CiConnectionExists) => {
                error.hint(format!("svc ci status -R {} shows it", target.label()))
            }
            _ => error,
        }
    })
}

/// [`send`], then decodes the JSON answer.
pub fn call<T: DeserializeOwned>(target: &MonorepoTarget, request: RequestBuilder) -> Result<T> {
    send(target, request)?
        .json()
        .map_err(|e| target.session.garbled(&e))
}

/// What a BUILD argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildRef {
    /// A build's id, as svc ci builds lists it.
    Id(String),
    /// `<pipeline>#<number>`.
    Number { pipeline: String, number: i64 },
}

/// The help line of every BUILD argument.
pub const BUILD_HELP: &str =
    "The build: its id (svc ci builds lists them), or <pipeline>#<number> like deploy#42";

impl BuildRef {
    /// `<pipeline>#<number>` (the last `#` splits), else an id.
    pub fn parse(arg: &str) -> Result<BuildRef> {
        let arg = arg.trim();
        if arg.is_empty() {
            return Err(CommandError::user("no build given")
                .hint("name it by its id, or as <pipeline>#<number>"));
        }
        let Some((pipeline, number)) = arg.rsplit_once('#') else {
            return Ok(BuildRef::Id(arg.to_owned()));
        };
        match number.parse::<i64>() {
            Ok(number) if !pipeline.is_empty() && number > 0 => Ok(BuildRef::Number {
                pipeline: pipeline.to_owned(),
                number,
            }),
            _ => Err(
                CommandError::user(format!("{arg} is not <pipeline>#<number>"))
                    .hint("like deploy#42, or the build's id (svc ci builds lists them)"),
            ),
        }
    }
}

/// The id of the build `arg` names: as given, or found by its pipeline and number.
pub fn resolve(target: &MonorepoTarget, arg: &str) -> Result<String> {
    match BuildRef::parse(arg)? {
        BuildRef::Id(id) => Ok(id),
        BuildRef::Number { pipeline, number } => {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            query.append_pair("pipeline", &pipeline);
            query.append_pair("number", &number.to_string());
            let path = format!("{}/builds?{}", ci_path(target), query.finish());
            let list: CiBuildList = call(target, target.session.request(Method::GET, &path)?)?;
            list.items.into_iter().next().map(|b| b.id).ok_or_else(|| {
                CommandError::user(format!(
                    "no such build: {} has no build {pipeline}#{number}",
                    target.label()
                ))
                .code(ErrorCode::NotFound.as_str())
                .hint(format!(
                    "svc ci builds -R {} --pipeline {pipeline} lists its builds",
                    target.label()
                ))
            })
        }
    }
}

/// The build `arg` names, with its jobs.
pub fn fetch(target: &MonorepoTarget, arg: &str) -> Result<CiBuild> {
    let id = resolve(target, arg)?;
    call(
        target,
        target
            .session
            .request(Method::GET, &build_path(target, &id))?,
    )
}

/// `<pipeline> #<number>`, for messages.
pub fn label(build: &CiBuild) -> String {
    format!("{} #{}", build.pipeline, build.number)
}

/// The state, with the service's own word when it says more: `running (failing)`.
pub fn state(state: svc_protocol::ci::CiState, service_state: &str) -> String {
    if service_state.is_empty() || service_state == state.as_str() {
        state.as_str().to_owned()
    } else {
        format!("{} ({service_state})", state.as_str())
    }
}

/// The first 7 characters of a sha, or `-`.
pub fn short_sha(commit: Option<&str>) -> String {
    commit.map_or_else(|| "-".to_owned(), |c| super::branch::short(c).to_owned())
}

/// The value, or `-`.
pub fn dash(value: Option<&str>) -> String {
    value
        .filter(|v| !v.is_empty())
        .map_or_else(|| "-".to_owned(), str::to_owned)
}

/// A job's name, or `-`.
pub fn job_name(job: &CiJob) -> String {
    job.name
        .clone()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "-".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_is_an_id_or_pipeline_and_number() {
        assert_eq!(
            BuildRef::parse("0190b7c2-aaaa-bbbb-cccc-123456789abc").unwrap(),
            BuildRef::Id("0190b7c2-aaaa-bbbb-cccc-123456789abc".into())
        );
        assert_eq!(
            BuildRef::parse("deploy#42").unwrap(),
            BuildRef::Number {
                pipeline: "deploy".into(),
                number: 42
            }
        );
        assert_eq!(
            BuildRef::parse(" odd#slug#7 ").unwrap(),
            BuildRef::Number {
                pipeline: "odd#slug".into(),
                number: 7
            }
        );
        for bad in ["", "#42", "deploy#", "deploy#x", "deploy#0", "deploy#-3"] {
            assert!(BuildRef::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_state_shows_the_service_word_when_it_says_more() {
        use svc_protocol::ci::CiState;
        assert_eq!(state(CiState::Running, "failing"), "running (failing)");
        assert_eq!(state(CiState::Passed, "passed"), "passed");
        assert_eq!(state(CiState::Queued, ""), "queued");
    }
}
