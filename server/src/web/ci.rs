//! CI in the web. `/ci`: the monorepo's pipelines and builds, newest first.
//! `/ci/builds/{id}`: a build with its jobs, annotations and artifacts, and rebuild /
//! cancel / retry for those allowed. `/ci/builds/{id}/jobs/{job}`: a job's log tail with
//! its escape codes as colour (`ansi`), following live while the job runs (the script
//! reloads the log every few seconds; without it a link does).
//!
//! Everything comes from the API's handlers (getCi, listCiBuilds, getCiBuild, the job
//! log, annotations, artifacts), so their authorization decides; the forms are plain
//! POSTs with this service's `Origin` that call rebuild, cancel and retry, then redirect.

use askama::Template;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use svc_protocol::ci::{CiBuild, CiJob, CiState};

use super::ansi::{self, Line};
use super::checks::short;
use super::code::{q, seg};
use super::home::{human, rfc3339};
use super::markdown;
use super::page::{self, Layout, Viewer};
use crate::auth;
use crate::authz::Need;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Path, Query};
use crate::paths::{CiItemPath, CiJobPath, MonorepoPath};
use crate::routes::{ci as api, ci_builds};
use crate::state::AppState;

/// Bytes of a job's log a page shows: its last ones, from a line's start. The API's
/// tail is 1 MiB; a page stays under 100 KB with its colour.
const LOG_SHOWN: usize = 48 * 1024;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/{owner}/{monorepo}/ci", get(list))
        .route("/{owner}/{monorepo}/ci/builds/{id}", get(build))
        .route("/{owner}/{monorepo}/ci/builds/{id}/rebuild", post(rebuild))
        .route("/{owner}/{monorepo}/ci/builds/{id}/cancel", post(cancel))
        .route("/{owner}/{monorepo}/ci/builds/{id}/jobs/{job}", get(job))
        .route(
            "/{owner}/{monorepo}/ci/builds/{id}/jobs/{job}/retry",
            post(retry),
        )
}

/// The monorepo's CI pages' prefix.
fn ci_base(owner: &str, monorepo: &str) -> String {
    format!("/{}/{}/ci", seg(owner), seg(monorepo))
}

/// A build as a row of a list or the head of its page.
struct BuildRow {
    href: String,
    title: String,
    state: &'static str,
    branch: Option<String>,
    commit: Option<(String, String)>,
    message: Option<String>,
    repo: Option<String>,
    at: String,
    when: String,
    web_url: Option<String>,
}

impl BuildRow {
    fn of(b: &CiBuild, base: &str, monorepo_href: &str) -> BuildRow {
        let commit = match (&b.commit, &b.repo) {
            (Some(sha), Some(repo)) => Some((
                short(sha),
                format!("/{monorepo_href}/-/{}/commit/{}", seg(repo), seg(sha)),
            )),
            _ => None,
        };
        BuildRow {
            href: format!("{base}/builds/{}", seg(&b.id)),
            title: format!("{} #{}", b.pipeline, b.number),
            state: b.state.as_str(),
            branch: b.branch.clone(),
            commit,
            message: b.message.as_ref().map(|m| first_line(m)),
            repo: b.repo.clone(),
            at: rfc3339(b.created_at),
            when: human(b.created_at),
            web_url: b.web_url.clone(),
        }
    }
}

fn first_line(m: &str) -> String {
    m.lines().next().unwrap_or_default().to_owned()
}

#[derive(Template)]
#[template(path = "ci.html")]
struct ListPage {
    layout: Layout,
    full: String,
    base: String,
    pipelines: Vec<(String, String, bool)>,
    /// The pipeline the list is narrowed to.
    pipeline: Option<String>,
    connected: bool,
    builds: Vec<BuildRow>,
    older: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    pipeline: Option<String>,
    cursor: Option<String>,
}

/// `/ci`.
async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(at): Path<MonorepoPath>,
    Query(query): Query<ListQuery>,
) -> Response {
    page::answer(&viewer, build_list(&state, &viewer, at, query).await)
}

async fn build_list(
    state: &AppState,
    viewer: &Viewer,
    at: MonorepoPath,
    query: ListQuery,
) -> ApiResult<ListPage> {
    let monorepo = {
        let mut conn = state.store.read().await?;
        at.access(conn.h(), &viewer.0, Need::Read).await?.monorepo
    };
    let full = monorepo.label();
    let mut layout = Layout::new(format!("CI · {full}"), viewer);
    let follows = (full.as_str(), monorepo.id.as_str());
    layout
        .follow(state, follows, "ci_builds ci_connections", "builds")
        .await?;
    let monorepo_href = super::code::monorepo_href(&full);
    let (owner, name) = full.split_once('/').unwrap_or((&full, ""));
    let base = ci_base(owner, name);
    let overview = api::overview(State(state.clone()), viewer.0.clone(), Path(at.clone()))
        .await?
        .0;
    let pipeline = query.pipeline.filter(|p| !p.is_empty());
    let asked = api::BuildsQuery {
        pipeline: pipeline.clone(),
        number: None,
        cursor: query.cursor.filter(|c| !c.is_empty()),
    };
    let found = api::builds(
        State(state.clone()),
        viewer.0.clone(),
        Path(at),
        Query(asked),
    )
    .await?
    .0;
    let older = found.next_cursor.map(|c| {
        let narrowed = pipeline
            .as_deref()
            .map(|p| format!("pipeline={}&", q(p)))
            .unwrap_or_default();
        format!("{base}?{narrowed}cursor={}", q(&c))
    });
    Ok(ListPage {
        layout,
        pipelines: overview
            .pipelines
            .iter()
            .map(|p| {
                let on = pipeline.as_deref() == Some(p.slug.as_str());
                (
                    p.slug.clone(),
                    format!("{base}?pipeline={}", q(&p.slug)),
                    on,
                )
            })
            .collect(),
        connected: !overview.connections.is_empty(),
        builds: found
            .items
            .iter()
            .map(|b| BuildRow::of(b, &base, &monorepo_href))
            .collect(),
        pipeline,
        older,
        base,
        full,
    })
}

#[derive(Template)]
#[template(path = "ci_build.html")]
struct BuildPage {
    layout: Layout,
    full: String,
    base: String,
    b: BuildRow,
    finished: bool,
    jobs: Vec<JobRow>,
    /// Sanitized HTML of each annotation, with its style; or why none could be read.
    annotations: Result<Vec<(String, String)>, String>,
    artifacts: Result<Vec<ArtifactRow>, String>,
}

struct JobRow {
    name: String,
    href: String,
    state: &'static str,
    exit_status: Option<i64>,
    retried: bool,
    retry_href: Option<String>,
}

impl JobRow {
    fn of(j: &CiJob, build_href: &str) -> JobRow {
        let href = format!("{build_href}/jobs/{}", seg(&j.id));
        let retryable = matches!(j.state, CiState::Failed | CiState::Canceled);
        JobRow {
            name: j.name.clone().unwrap_or_else(|| j.id.clone()),
            state: j.state.as_str(),
            exit_status: j.exit_status,
            retried: j.retried_by.is_some(),
            retry_href: (retryable && j.retried_by.is_none()).then(|| format!("{href}/retry")),
            href,
        }
    }
}

struct ArtifactRow {
    path: String,
    size: Option<String>,
    href: String,
}

/// `/ci/builds/{id}`.
async fn build(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(at): Path<CiItemPath>,
) -> Response {
    page::answer(&viewer, build_build(&state, &viewer, at).await)
}

/// What the CI service would not tell, as a line on the page instead of a failed page.
fn or_unread<T>(r: ApiResult<T>) -> ApiResult<Result<T, String>> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(e) if e.status.is_server_error() || e.status.as_u16() == 400 => Ok(Err(e.message)),
        Err(e) => Err(e),
    }
}

async fn build_build(state: &AppState, viewer: &Viewer, at: CiItemPath) -> ApiResult<BuildPage> {
    let (full, monorepo_id) = canonical(state, viewer, &at.owner, &at.monorepo).await?;
    let mut layout = Layout::new(String::new(), viewer);
    let follows = (full.as_str(), monorepo_id.as_str());
    layout
        .follow(
            state,
            follows,
            "ci_builds ci_jobs",
            "build jobs annotations artifacts",
        )
        .await?;
    let b = api::build(State(state.clone()), viewer.0.clone(), Path(at.clone()))
        .await?
        .0;
    let monorepo_href = super::code::monorepo_href(&full);
    let (owner, name) = full.split_once('/').unwrap_or((&full, ""));
    let base = ci_base(owner, name);
    let row = BuildRow::of(&b, &base, &monorepo_href);
    let annotations = or_unread(
        ci_builds::annotations(State(state.clone()), viewer.0.clone(), Path(at.clone()))
            .await
            .map(|l| {
                l.0.items
                    .into_iter()
                    .map(|a| {
                        let style = a.style.unwrap_or_else(|| "info".into());
                        (style, markdown::sanitize(&a.body_html))
                    })
                    .collect()
            }),
    )?;
    let artifacts = or_unread(
        ci_builds::artifacts(State(state.clone()), viewer.0.clone(), Path(at))
            .await
            .map(|l| {
                l.0.items
                    .into_iter()
                    .map(|a| ArtifactRow {
                        size: a
                            .file_size
                            .and_then(|s| u64::try_from(s).ok())
                            .map(super::code::size_text),
                        path: a.path,
                        href: a.download_url,
                    })
                    .collect()
            }),
    )?;
    let jobs = b
        .jobs
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|j| JobRow::of(j, &row.href))
        .collect();
    layout.title = format!("{} · CI · {full}", row.title);
    Ok(BuildPage {
        layout,
        finished: b.state.is_finished(),
        b: row,
        jobs,
        annotations,
        artifacts,
        base,
        full,
    })
}

/// The monorepo's `owner/name` as it is now (the URL may hold an old name or any case),
/// and its id.
async fn canonical(
    state: &AppState,
    viewer: &Viewer,
    owner: &str,
    monorepo: &str,
) -> ApiResult<(String, String)> {
    let at = MonorepoPath {
        owner: owner.to_owned(),
        monorepo: monorepo.to_owned(),
    };
    let mut conn = state.store.read().await?;
    let found = at.access(conn.h(), &viewer.0, Need::Read).await?.monorepo;
    Ok((found.label(), found.id))
}

#[derive(Template)]
#[template(path = "ci_job.html")]
struct JobPage {
    layout: Layout,
    full: String,
    base: String,
    b: BuildRow,
    job: JobRow,
    lines: Vec<Line>,
    /// The whole log's size, when more of it than is shown.
    cut: Option<String>,
    raw_href: String,
    /// The job runs: the script reloads the log.
    live: bool,
}

/// `/ci/builds/{id}/jobs/{job}`.
async fn job(State(state): State<AppState>, viewer: Viewer, Path(at): Path<CiJobPath>) -> Response {
    page::answer(&viewer, build_job(&state, &viewer, at).await)
}

async fn build_job(state: &AppState, viewer: &Viewer, at: CiJobPath) -> ApiResult<JobPage> {
    let item = CiItemPath {
        owner: at.owner.clone(),
        monorepo: at.monorepo.clone(),
        id: at.id.clone(),
    };
    let b = api::build(State(state.clone()), viewer.0.clone(), Path(item))
        .await?
        .0;
    let job = b
        .jobs
        .as_deref()
        .unwrap_or_default()
        .iter()
        .find(|j| j.id == at.job)
        .cloned()
        .ok_or_else(|| ApiError::not_found(&format!("job {}", at.job)))?;
    let (full, _) = canonical(state, viewer, &at.owner, &at.monorepo).await?;
    let monorepo_href = super::code::monorepo_href(&full);
    let (owner, name) = full.split_once('/').unwrap_or((&full, ""));
    let base = ci_base(owner, name);
    let row = BuildRow::of(&b, &base, &monorepo_href);
    let raw_href = format!(
        "/v1/monorepos/{monorepo_href}/ci/builds/{}/jobs/{}/log",
        seg(&b.id),
        seg(&job.id)
    );
    let response = ci_builds::log(State(state.clone()), viewer.0.clone(), Path(at)).await?;
    let size: Option<u64> = response
        .headers()
        .get("x-ci-log-size")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .map_err(ApiError::internal)?;
    let (shown, cut) = tail(&bytes);
    let whole = size.unwrap_or(bytes.len() as u64);
    let job_row = JobRow::of(&job, &row.href);
    Ok(JobPage {
        layout: Layout::new(format!("{} · {} · CI", job_row.name, row.title), viewer),
        lines: ansi::render(shown),
        cut: (cut || whole > bytes.len() as u64).then(|| super::code::size_text(whole)),
        raw_href,
        live: !job.state.is_finished(),
        b: row,
        job: job_row,
        base,
        full,
    })
}

/// The last `LOG_SHOWN` bytes of `log` from a line's start, and whether any was left out.
fn tail(log: &[u8]) -> (&[u8], bool) {
    if log.len() <= LOG_SHOWN {
        return (log, false);
    }
    let from = log.len() - LOG_SHOWN;
    let start = log[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(from, |i| from + i + 1);
    (&log[start..], true)
}

/// "Rebuild": a new build of the same commit (rebuildCiBuild), then to its page.
async fn rebuild(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<CiItemPath>,
) -> Response {
    let base = ci_base(&at.owner, &at.monorepo);
    let back = format!("{base}/builds/{}", seg(&at.id));
    let done = async {
        auth::check_origin(&headers, &state)?;
        let (_, made) =
            ci_builds::rebuild(State(state.clone()), viewer.0.clone(), Path(at)).await?;
        Ok(format!("{base}/builds/{}", seg(&made.0.id)))
    }
    .await;
    super::agents::answered(&viewer, done, "The build was not started again", back)
}

/// "Cancel": asks the service to cancel the build (cancelCiBuild), then back.
async fn cancel(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<CiItemPath>,
) -> Response {
    let back = format!(
        "{}/builds/{}",
        ci_base(&at.owner, &at.monorepo),
        seg(&at.id)
    );
    let done = async {
        auth::check_origin(&headers, &state)?;
        ci_builds::cancel(State(state.clone()), viewer.0.clone(), Path(at)).await?;
        Ok(back.clone())
    }
    .await;
    super::agents::answered(&viewer, done, "The build was not canceled", back)
}

/// "Retry": runs a failed job again (retryCiJob), then to the new job's page.
async fn retry(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<CiJobPath>,
) -> Response {
    let build_href = format!(
        "{}/builds/{}",
        ci_base(&at.owner, &at.monorepo),
        seg(&at.id)
    );
    let back = format!("{build_href}/jobs/{}", seg(&at.job));
    let done = async {
        auth::check_origin(&headers, &state)?;
        let (_, made) = ci_builds::retry(State(state.clone()), viewer.0.clone(), Path(at)).await?;
        Ok(format!("{build_href}/jobs/{}", seg(&made.0.id)))
    }
    .await;
    super::agents::answered(&viewer, done, "The job was not retried", back)
}
