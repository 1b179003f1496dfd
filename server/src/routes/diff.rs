//! branchDiff: the three-dot diff of a branch, as JSON or as a stream of lines. A merged
//! branch keeps the diff its merge brought into main. commitDiff: a commit's own diff,
//! from its first parent, in the same forms.
//!
//! The streamed form sends `start` once the changed files are known, then the files as
//! they are diffed (gathered up to 64 KiB or 5 ms, then sent); a finished stream is kept by (main, head) and replayed with an
//! `ETag` of the two shas, while one being computed carries `Cache-Control: no-store`.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use svc_protocol::ErrorCode;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_protocol::ApiErrorBody;
use svc_protocol::branch::{BranchDiff, BranchDiffLine};
use tokio::sync::mpsc;

use crate::auth::Caller;
use crate::authz::Need;
use crate::cache::DiffKey;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Path, Query};
use crate::git::diff::{self, Options};
use crate::git::read::Repo;
use crate::git::storage;
use crate::paths::{BranchPath, CommitPath};
use crate::state::AppState;
use crate::store::repos::RepoRow;

/// Batches computed ahead of a slow reader.
const STREAM_AHEAD: usize = 64;
/// Bytes of lines gathered before they are sent...
const SEND_BYTES: usize = 64 * 1024;
/// ...unless the first of them has waited this long.
const SEND_WAIT: Duration = Duration::from_millis(5);
/// The default `max_bytes` of the plain form.
const DEFAULT_MAX_BYTES: usize = 1024 * 1024;

/// A diff's ends: main (None: from the empty tree) and the head.
type Ends = (Option<gix::ObjectId>, gix::ObjectId);

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct DiffQuery {
    /// `1`: a BranchDiff with a unified patch per file (1,000 files, 2 MiB of patches).
    #[serde(default, deserialize_with = "crate::extract::flag")]
    #[param(value_type = Option<String>, pattern = "^(0|1|true|false)?$")]
    pub(crate) patches: bool,
    /// With `patches=1`: `application/x-ndjson` lines (5,000 files, 32 MiB of patches).
    #[serde(default, deserialize_with = "crate::extract::flag")]
    #[param(value_type = Option<String>, pattern = "^(0|1|true|false)?$")]
    pub(crate) stream: bool,
    /// Plain form: bytes of patch text at most (default 1 MiB); files past it keep their
    /// entry with `patch_omitted: budget`.
    pub(crate) max_bytes: Option<usize>,
    /// Plain form: comma-separated paths (a file or a folder) to diff only.
    pub(crate) paths: Option<String>,
    /// Plain form: `0` lists files and counts without patches.
    pub(crate) hunks: Option<String>,
    /// Plain form: `json` (default) or `patch` (one unified diff as `text/x-diff`).
    pub(crate) format: Option<String>,
}

/// The three-dot diff from the merge base of main and the branch to its head.
///
/// A merged branch's is what its merge brought in: from the merge's first parent to the
/// merge commit.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/diff", operation_id = "branchDiff", tag = "branches",
    params(BranchPath, DiffQuery),
    responses((status = 200, description = "the diff; with `stream=1`, one `BranchDiffLine` a line",
        content((BranchDiff = "application/json"), (BranchDiffLine = "application/x-ndjson"))),
        (status = 304, description = "If-None-Match matched the two shas"), (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "no_main")))]
pub async fn diff(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(path): Path<BranchPath>,
    Query(q): Query<DiffQuery>,
) -> ApiResult<Response> {
    let (repo, row) = {
        let mut conn = state.store.read().await?;
        let (_, repo) = path.resolve(conn.h(), &caller, Need::Read).await?;
        let row = path.live(conn.h(), &repo).await?;
        (repo, row)
    };
    let Some(main) = repo.default_head.clone() else {
        return Err(ApiError::conflict(
            ErrorCode::NoMain,
            "the repo has no main to diff against yet",
        ));
    };
    // A merged branch shows what its merge brought in (main has its head, so a diff
    // against main now would be empty): from the merge's first parent to the merge.
    let (main, head) = match row.merge_sha.filter(|_| row.state == "merged") {
        Some(merge) => state.git(&repo, move |git| merge_ends(&git, merge)).await?,
        None => (main, row.head),
    };
    let etag = format!("\"{main}.{head}\"");
    let ends = move |git: &Repo| -> Result<_, diff::Error> {
        Ok((Some(commit_id(git, &main)?), commit_id(git, &head)?))
    };
    answer(state, &headers, &repo, q, etag, ends).await
}

/// A commit's own diff: from its first parent (for a root commit, from the empty tree:
/// `base` and `merge_base` are the all-zero sha) to the commit, in branchDiff's forms.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/commits/{sha}/diff", operation_id = "commitDiff", tag = "code",
    params(CommitPath, DiffQuery),
    responses((status = 200, description = "the diff; with `stream=1`, one `BranchDiffLine` a line",
        content((BranchDiff = "application/json"), (BranchDiffLine = "application/x-ndjson"))),
        (status = 304, description = "If-None-Match matched the commit's sha"), (status = 404, body = ApiErrorBody)))]
pub async fn commit_diff(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(path): Path<CommitPath>,
    Query(q): Query<DiffQuery>,
) -> ApiResult<Response> {
    let sha = path.sha.clone();
    if !(sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())) {
        return Err(ApiError::not_found("commit"));
    }
    let repo = {
        let mut conn = state.store.read().await?;
        path.resolve(conn.h(), &caller, Need::Read).await?.1
    };
    let etag = format!("\"{sha}\"");
    let ends = move |git: &Repo| -> Result<_, diff::Error> {
        let commit = commit_id(git, &sha)?;
        let parents = git
            .first_parents(commit, None, 2)
            .map_err(|e| diff::Error::Git(e.to_string()))?;
        Ok((parents.get(1).copied(), commit))
    };
    answer(state, &headers, &repo, q, etag, ends).await
}

/// `sha` as a commit of `git`; NotFound (404) when it is none.
fn commit_id(git: &Repo, sha: &str) -> Result<gix::ObjectId, diff::Error> {
    git.commit_exists(sha)
        .map_err(|e| diff::Error::Git(e.to_string()))?
        .ok_or_else(|| diff::Error::NotFound(format!("commit {sha}")))
}

/// The diff between the `ends` in the form `q` asks for, `etag` naming them.
async fn answer(
    state: AppState,
    headers: &HeaderMap,
    repo: &RepoRow,
    q: DiffQuery,
    etag: String,
    ends: impl FnOnce(&Repo) -> Result<Ends, diff::Error> + Send + 'static,
) -> ApiResult<Response> {
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let patches = q.patches;
    if patches && q.stream {
        let key = (repo.id.clone(), etag.clone(), String::new());
        if let Some(bytes) = state.diff_streams.get(&key) {
            if matches {
                return Ok(not_modified(&etag));
            }
            return Ok(ndjson(Body::from(bytes), Some(&etag)));
        }
        let dir = storage::repo_dir(&state.config.data_dir, &repo.id);
        return stream(state, key, dir, ends).await;
    }
    if patches && matches {
        return Ok(not_modified(&etag));
    }
    let options = if patches {
        Options::patches()
    } else {
        Options {
            max_bytes: Some(q.max_bytes.unwrap_or(DEFAULT_MAX_BYTES)),
            paths: q
                .paths
                .as_deref()
                .map(|p| {
                    p.split(',')
                        .map(|s| s.trim().trim_matches('/').to_owned())
                        .filter(|s| !s.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            patches: q.hunks.as_deref() != Some("0"),
            ..Options::patches()
        }
    };
    let whole = state
        .git(repo, move |git| {
            let (main, head) = ends(&git)?;
            diff::diff_from(&git, main, head, options)
        })
        .await?;
    if !patches && q.format.as_deref() == Some("patch") {
        let text = unified(&whole);
        return Ok(([(header::CONTENT_TYPE, "text/x-diff; charset=utf-8")], text).into_response());
    }
    let mut response = axum::Json(whole).into_response();
    if patches && let Ok(v) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(header::ETAG, v);
    }
    Ok(response)
}

/// The first parent of the merge commit `merge` (main before the merge) and `merge`.
fn merge_ends(git: &Repo, merge: String) -> Result<(String, String), diff::Error> {
    let id = git
        .commit_exists(&merge)
        .map_err(|e| diff::Error::Git(e.to_string()))?
        .ok_or_else(|| diff::Error::NotFound(format!("merge commit {merge}")))?;
    let parents = git
        .first_parents(id, None, 2)
        .map_err(|e| diff::Error::Git(e.to_string()))?;
    let parent = parents
        .get(1)
        .ok_or_else(|| diff::Error::Git(format!("merge commit {merge} has no parent")))?;
    Ok((parent.to_string(), merge))
}

fn not_modified(etag: &str) -> Response {
    let mut r = StatusCode::NOT_MODIFIED.into_response();
    if let Ok(v) = HeaderValue::from_str(etag) {
        r.headers_mut().insert(header::ETAG, v);
    }
    r
}

fn ndjson(body: Body, etag: Option<&str>) -> Response {
    let mut r = Response::new(body);
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    match etag.and_then(|e| HeaderValue::from_str(e).ok()) {
        Some(v) => {
            h.insert(header::ETAG, v);
        }
        None => {
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        }
    }
    r
}

fn line(l: &BranchDiffLine) -> Bytes {
    let mut v = serde_json::to_vec(l).unwrap_or_default();
    v.push(b'\n');
    Bytes::from(v)
}

/// Streams a diff being computed, keeping the whole answer for replay once it ends.
async fn stream(
    state: AppState,
    key: DiffKey,
    dir: std::path::PathBuf,
    ends: impl FnOnce(&Repo) -> Result<Ends, diff::Error> + Send + 'static,
) -> ApiResult<Response> {
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(STREAM_AHEAD);
    // The plan (the tree diff) is made before answering, so a bad end is still a 404.
    let (plan_tx, plan_rx) = tokio::sync::oneshot::channel();
    let cache = state.clone();
    tokio::task::spawn_blocking(move || {
        let planned = Repo::open(&dir)
            .map_err(|e| diff::Error::Git(e.to_string()))
            .and_then(|git| {
                let (main, head) = ends(&git)?;
                Ok((diff::plan(&git, main, head, Options::stream())?, git))
            });
        let (plan, git) = match planned {
            Ok(p) => p,
            Err(e) => {
                let _ = plan_tx.send(Err(e));
                return;
            }
        };
        if plan_tx.send(Ok(())).is_err() {
            return;
        }
        let mut out = Batch::new(tx);
        if !out.push(&plan.start_line(), true) {
            return;
        }
        let outcome = plan.files(&git, |file| {
            if out.push(&BranchDiffLine::File(file), false) {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        });
        match outcome {
            Ok(o) => {
                if out.push(&o.end_line(), true) {
                    cache.diff_streams.put(key, Bytes::from(out.kept));
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "branch diff failed while streaming");
                let error = BranchDiffLine::Error {
                    message: "the diff failed; it has been logged".into(),
                };
                let _ = out.push(&error, true);
            }
        }
    });
    plan_rx.await.map_err(ApiError::internal)??;
    let body = Body::from_stream(tokio_stream(rx));
    Ok(ndjson(body, None))
}

/// The lines of a stream: sent in batches, since a write and a wake-up per file cost
/// more than diffing a small file; kept whole for replay.
struct Batch {
    tx: mpsc::Sender<Result<Bytes, std::io::Error>>,
    kept: Vec<u8>,
    /// Where the lines not sent yet start in `kept`.
    sent: usize,
    /// When the first line not sent yet was added.
    since: Instant,
}

impl Batch {
    fn new(tx: mpsc::Sender<Result<Bytes, std::io::Error>>) -> Batch {
        Batch {
            tx,
            kept: Vec::new(),
            sent: 0,
            since: Instant::now(),
        }
    }

    /// Adds a line and sends the batch when `flush`, or when it is over [`SEND_BYTES`]
    /// or older than [`SEND_WAIT`]; false once the reader is gone.
    fn push(&mut self, l: &BranchDiffLine, flush: bool) -> bool {
        if self.sent == self.kept.len() {
            self.since = Instant::now();
        }
        self.kept.extend_from_slice(&line(l));
        if !flush && self.kept.len() - self.sent < SEND_BYTES && self.since.elapsed() < SEND_WAIT {
            return true;
        }
        let batch = Bytes::copy_from_slice(&self.kept[self.sent..]);
        self.sent = self.kept.len();
        self.tx.blocking_send(Ok(batch)).is_ok()
    }
}

/// The receiver as a body stream.
fn tokio_stream(
    mut rx: mpsc::Receiver<Result<Bytes, std::io::Error>>,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

/// One unified diff of every file, as `git diff` prints it.
fn unified(d: &BranchDiff) -> String {
    let mut out = String::new();
    for f in &d.files {
        let old = f.old_path.as_deref().unwrap_or(&f.path);
        out.push_str(&format!("diff --git a/{old} b/{}\n", f.path));
        match (&f.old_mode, &f.new_mode) {
            (None, Some(m)) => out.push_str(&format!("new file mode {m}\n")),
            (Some(m), None) => out.push_str(&format!("deleted file mode {m}\n")),
            (Some(a), Some(b)) if a != b => out.push_str(&format!("old mode {a}\nnew mode {b}\n")),
            _ => {}
        }
        if f.old_path.is_some() {
            out.push_str(&format!("rename from {old}\nrename to {}\n", f.path));
        }
        if f.binary {
            out.push_str(&format!("Binary files a/{old} and b/{} differ\n", f.path));
            continue;
        }
        if let Some(patch) = &f.patch {
            let a = if f.old_sha.is_some() {
                format!("a/{old}")
            } else {
                "/dev/null".into()
            };
            let b = if f.new_sha.is_some() {
                format!("b/{}", f.path)
            } else {
                "/dev/null".into()
            };
            out.push_str(&format!("--- {a}\n+++ {b}\n{patch}"));
        }
    }
    out
}
