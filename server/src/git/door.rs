//! The git door: smart HTTP by spawning `git upload-pack|receive-pack --stateless-rpc`
//! per request, as Gitea and GitLab do; the ref advertisements and v2's `ls-refs` are
//! answered in process, as git would answer them ([`super::advertise`]).
//!
//! Fetches stream both ways. A push is spooled to a temp file first (never held in
//! memory), so it can be measured against the push limit (`[git] max_push_bytes`) and checked against the push
//! rules before git sees it; a refusal is answered in git's own protocol, so the user
//! reads it as `remote: ...` and `! [remote rejected] ... (reason)`.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use futures_util::StreamExt;
use serde::Deserialize;
use svc_protocol::monorepo::MonorepoKind;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tower_http::decompression::RequestDecompressionLayer;

use super::advertise::{self, Advertisement};
use super::pkt::{self, PushHead};
use super::push_options;
use super::record::{self, Actor};
use super::spool::SpoolDir;
use super::storage;
use crate::auth::{self, Caller};
use crate::authz::{self, Need};
use crate::error::ApiError;
use crate::hooks::tokens;
use crate::state::AppState;
use crate::store::monorepos;
use crate::store::releases;
use crate::store::repos::{self, RepoRow};
use crate::views;
use svc_protocol::user::CredentialKind;

/// Past the push limit (`[git] max_push_bytes`), the rest of a push is read and dropped
/// for this long after the refusal is sent, so that git reads it (a small excess is read
/// to its end); then the connection is cut. Git prints the refusal as `remote:` lines as
/// soon as it arrives, while it is still sending.
const DRAIN_AFTER_REFUSAL: Duration = Duration::from_millis(250);
/// A push declaring a length over the limit is refused after this much, enough to hold
/// its commands (the refusal names every ref).
const DECLARED_OVER_READ: u64 = 64 * 1024;
/// A fetch's request body (wants and haves) may not exceed this (after gzip).
const MAX_FETCH_REQUEST_BYTES: usize = 16 * 1024 * 1024;
/// How long a push waits for a free slot before it is refused as busy.
const PUSH_SLOT_WAIT: Duration = Duration::from_secs(10);

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/{owner}/{monorepo}/info/refs", get(info_refs))
        .route("/{owner}/{monorepo}/git-upload-pack", post(upload_pack))
        .route("/{owner}/{monorepo}/git-receive-pack", post(receive_pack))
        .route("/{owner}/{monorepo}/{repo}/info/refs", get(info_refs))
        .route(
            "/{owner}/{monorepo}/{repo}/git-upload-pack",
            post(upload_pack),
        )
        .route(
            "/{owner}/{monorepo}/{repo}/git-receive-pack",
            post(receive_pack),
        )
        .merge(page_named())
        .layer(RequestDecompressionLayer::new())
}

/// A repo named like a monorepo page (`issues`) is also reached without `.git`: the
/// page's `/{word}/{item}` route would otherwise take the pack POSTs (a route matches
/// by path before method), so these name the word outright.
fn page_named() -> Router<AppState> {
    let mut router = Router::new();
    for word in crate::paths::MONOREPO_PAGES {
        router = router
            .route(
                &format!("/{{owner}}/{{monorepo}}/{word}/git-upload-pack"),
                post(
                    move |State(state): State<AppState>,
                          headers: HeaderMap,
                          axum::extract::Path(p): axum::extract::Path<DoorPath>,
                          body: Body| async move {
                        upload(&state, &headers, &p.owner, &p.monorepo, Some(word), body).await
                    },
                ),
            )
            .route(
                &format!("/{{owner}}/{{monorepo}}/{word}/git-receive-pack"),
                post(
                    move |State(state): State<AppState>,
                          headers: HeaderMap,
                          axum::extract::Path(p): axum::extract::Path<DoorPath>,
                          body: Body| async move {
                        receive(&state, &headers, &p.owner, &p.monorepo, Some(word), body).await
                    },
                ),
            );
    }
    router
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Service {
    UploadPack,
    ReceivePack,
}

impl Service {
    fn name(self) -> &'static str {
        match self {
            Service::UploadPack => "upload-pack",
            Service::ReceivePack => "receive-pack",
        }
    }

    fn need(self) -> Need {
        match self {
            Service::UploadPack => Need::Read,
            Service::ReceivePack => Need::Write,
        }
    }
}

/// A refusal before git runs: plain text, as git prints it.
fn text(status: StatusCode, message: &str) -> Response {
    let mut r = (status, format!("{message}\n")).into_response();
    if status == StatusCode::UNAUTHORIZED {
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"svc\""),
        );
    }
    r
}

/// The credential of a git request: HTTP Basic's password (any user name) or Bearer.
fn presented(headers: &HeaderMap) -> Option<String> {
    if let Some(token) = auth::bearer(headers) {
        return Some(token.to_owned());
    }
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let (_, password) = std::str::from_utf8(&decoded).ok()?.split_once(':')?;
    Some(password.to_owned())
}

/// Who calls, and the repo they may use for `service`; 401 asks git for credentials,
/// 404 hides what a caller may not see. A hook delivery's read token fetches its one
/// repo and nothing else (no caller then).
async fn open(
    state: &AppState,
    headers: &HeaderMap,
    owner: &str,
    monorepo: &str,
    repo: Option<&str>,
    service: Service,
) -> Result<(Option<Caller>, RepoRow), Response> {
    let unauthorized = || {
        text(
            StatusCode::UNAUTHORIZED,
            "svc: sign in (svc login) or send a credential",
        )
    };
    let token = presented(headers).ok_or_else(unauthorized)?;
    let not_found = || text(StatusCode::NOT_FOUND, "svc: repository not found");
    let (monorepo, plain) = match repo {
        None => (monorepo.strip_suffix(".git").ok_or_else(not_found)?, true),
        Some(_) => (monorepo, false),
    };
    if token.starts_with(tokens::READ_PREFIX) {
        if service != Service::UploadPack {
            return Err(text(
                StatusCode::FORBIDDEN,
                "svc: a hook delivery's read token only fetches",
            ));
        }
        let found = async {
            let mut conn = state.store.read().await?;
            let Some(repo_id) = tokens::read_repo(conn.h(), &token, crate::store::now_ms()).await?
            else {
                return Ok(Err(unauthorized()));
            };
            let (owner, name) = (owner.to_ascii_lowercase(), monorepo.to_ascii_lowercase());
            let Some(m) = monorepos::by_label_with_role(conn.h(), &owner, &name, "").await? else {
                return Ok(Err(not_found()));
            };
            let rows = repos::all(conn.h(), &m.monorepo.id).await?;
            let row = named_repo(rows, &m.monorepo, repo, plain).filter(|r| r.id == repo_id);
            Ok::<_, ApiError>(row.ok_or_else(not_found))
        };
        return match found.await {
            Ok(row) => row.map(|r| (None, r)),
            Err(e) => Err(e.into_response()),
        };
    }
    let caller = match auth::authenticate(state, &token).await {
        Ok(Some(c)) if c.kind != CredentialKind::Browser => c,
        Ok(_) => return Err(unauthorized()),
        Err(e) => return Err(e.into_response()),
    };
    let resolved = async {
        let mut conn = state.store.read().await?;
        let access = authz::monorepo(conn.h(), &caller, owner, monorepo, service.need()).await?;
        let rows = repos::all(conn.h(), &access.monorepo.id).await?;
        named_repo(rows, &access.monorepo, repo, plain).ok_or_else(|| ApiError::not_found("repo"))
    };
    match resolved.await {
        Ok(row) => Ok((Some(caller), row)),
        Err(e) if e.status == StatusCode::NOT_FOUND => Err(not_found()),
        Err(e) if e.status == StatusCode::FORBIDDEN => {
            Err(text(StatusCode::FORBIDDEN, "svc: you may not push here"))
        }
        Err(e) => Err(e.into_response()),
    }
}

/// The repo a door URL names among the monorepo's: `<monorepo>.git` for a plain repo,
/// `<monorepo>/<repo>.git` for a monorepo's.
fn named_repo(
    rows: Vec<RepoRow>,
    monorepo: &crate::store::monorepos::MonorepoRow,
    repo: Option<&str>,
    plain: bool,
) -> Option<RepoRow> {
    let is_plain = views::kind(&monorepo.kind) == MonorepoKind::Repo;
    let wanted = repo.map(|r| r.strip_suffix(".git").unwrap_or(r).to_ascii_lowercase());
    match (&wanted, plain, is_plain) {
        (None, true, true) => rows.into_iter().next(),
        (Some(name), false, false) => rows.into_iter().find(|r| &r.name == name),
        _ => None,
    }
}

/// The `Git-Protocol` header, only when it is plain `key=value` pairs (it becomes an
/// environment variable of git).
fn git_protocol(headers: &HeaderMap) -> Option<String> {
    let value = headers.get("git-protocol")?.to_str().ok()?;
    let ok = !value.is_empty()
        && value.len() <= 256
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"=:._-,".contains(&b));
    ok.then(|| value.to_owned())
}

fn git(service: Service, dir: &std::path::Path, protocol: Option<&str>) -> Command {
    // A family: receive-pack's `unpack-objects`/`index-pack` and upload-pack's
    // `pack-objects` die with the server too, not only git itself.
    let mut cmd = super::child::sealed_git_family(dir);
    match service {
        // Partial clone: filters (`blob:none`, `blob:limit=`, `tree:<depth>`) and the lazy
        // fetches they cause later, which want objects by id. Any object of this repo may
        // be wanted: the caller may read the whole repo.
        Service::UploadPack => cmd.args([
            "-c",
            "uploadpack.allowFilter=true",
            "-c",
            "uploadpack.allowAnySHA1InWant=true",
        ]),
        // `git push -o ...`: the options reach the server and are used (see `push_options`).
        // No `gc --auto` after a push: the server's own maintenance packs (`maintenance.rs`).
        Service::ReceivePack => cmd.args([
            "-c",
            "receive.advertisePushOptions=true",
            "-c",
            "receive.autogc=false",
        ]),
    };
    cmd.args([service.name(), "--stateless-rpc"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(p) = protocol {
        cmd.env("GIT_PROTOCOL", p);
    }
    cmd
}

/// `/{owner}/{monorepo}.git/...` (a plain repo) or `/{owner}/{monorepo}/{repo}.git/...`.
#[derive(Deserialize)]
struct DoorPath {
    owner: String,
    monorepo: String,
    repo: Option<String>,
}

#[derive(Deserialize)]
struct InfoRefsQuery {
    service: Option<String>,
}

async fn info_refs(
    State(state): State<AppState>,
    headers: HeaderMap,
    axum::extract::Path(p): axum::extract::Path<DoorPath>,
    Query(q): Query<InfoRefsQuery>,
) -> Response {
    advertise(
        &state,
        &headers,
        &p.owner,
        &p.monorepo,
        p.repo.as_deref(),
        q.service.as_deref(),
    )
    .await
}

/// `GET .../info/refs?service=...`: the ref advertisement (v0) or capabilities (v2).
async fn advertise(
    state: &AppState,
    headers: &HeaderMap,
    owner: &str,
    monorepo: &str,
    repo: Option<&str>,
    service: Option<&str>,
) -> Response {
    let service = match service {
        Some("git-upload-pack") => Service::UploadPack,
        Some("git-receive-pack") => Service::ReceivePack,
        _ => {
            return text(
                StatusCode::FORBIDDEN,
                "svc: only smart HTTP is served; use git 1.6.6 or later",
            );
        }
    };
    let (_, row) = match open(state, headers, owner, monorepo, repo, service).await {
        Ok(found) => found,
        Err(r) => return r,
    };
    let protocol = git_protocol(headers);
    let dir = storage::repo_dir(&state.config.data_dir, &row.id);
    let version = advertise::protocol_version(protocol.as_deref());
    let v2 = service == Service::UploadPack && version == 2;
    // receive-pack serves v0 when asked for v2; v1 (rare) is left to git.
    let which = match (service, version) {
        (Service::UploadPack, 0) => Some(Advertisement::UploadPack),
        (Service::UploadPack, 2) => Some(Advertisement::V2),
        (Service::ReceivePack, 0 | 2) => Some(Advertisement::ReceivePack),
        _ => None,
    };
    let answered = match (which, learned(state).await) {
        (Some(which), Some(learned)) => advertise::advertise(dir.clone(), learned, which).await,
        _ => None,
    };
    let stdout = match answered {
        Some(answered) => answered,
        None => {
            let mut cmd = git(service, &dir, protocol.as_deref());
            cmd.arg("--http-backend-info-refs").stdin(Stdio::null());
            match cmd.output().await {
                Ok(out) if out.status.success() => out.stdout,
                Ok(out) => return git_failed(&String::from_utf8_lossy(&out.stderr)),
                Err(e) => return git_failed(&e.to_string()),
            }
        }
    };
    let mut body = Vec::with_capacity(stdout.len() + 64);
    if !v2 {
        body.extend(pkt::line(
            format!("# service=git-{}\n", service.name()).as_bytes(),
        ));
        body.extend_from_slice(pkt::FLUSH);
    }
    body.extend(stdout);
    let content_type = format!("application/x-git-{}-advertisement", service.name());
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache".into()),
        ],
        body,
    )
        .into_response()
}

/// What git advertises, learned once (see [`advertise`]). The probe repository it is
/// learned from lives in this process's spool folder, so a process killed while
/// learning leaves nothing that the next start does not remove.
async fn learned(state: &AppState) -> Option<&'static advertise::Learned> {
    match spools(state).await {
        Ok(spools) => advertise::learned(spools.path(), command).await,
        Err(e) => {
            tracing::error!(error = %e, "no spool folder to learn git's advertisement in");
            None
        }
    }
}

/// This process's spool folder, made on first use (pushes, imports, the probe).
pub async fn spools(state: &AppState) -> std::io::Result<&SpoolDir> {
    let data_dir = state.config.data_dir.clone();
    state
        .push_spools
        .get_or_try_init(|| async move {
            tokio::task::spawn_blocking(move || SpoolDir::create(&data_dir))
                .await
                .map_err(std::io::Error::other)?
        })
        .await
}

/// The door's git for `receive-pack` or `upload-pack`, as the advertisements are learned.
pub(super) fn command(receive: bool, dir: &std::path::Path, protocol: Option<&str>) -> Command {
    let service = match receive {
        true => Service::ReceivePack,
        false => Service::UploadPack,
    };
    git(service, dir, protocol)
}

fn git_failed(stderr: &str) -> Response {
    tracing::error!(stderr = stderr.trim(), "git failed at the door");
    text(
        StatusCode::INTERNAL_SERVER_ERROR,
        "svc: the server's git failed; it has been logged",
    )
}

async fn upload_pack(
    State(state): State<AppState>,
    headers: HeaderMap,
    axum::extract::Path(p): axum::extract::Path<DoorPath>,
    body: Body,
) -> Response {
    upload(
        &state,
        &headers,
        &p.owner,
        &p.monorepo,
        p.repo.as_deref(),
        body,
    )
    .await
}

/// `POST .../git-upload-pack`: the request streams into git, the pack streams out.
async fn upload(
    state: &AppState,
    headers: &HeaderMap,
    owner: &str,
    monorepo: &str,
    repo: Option<&str>,
    body: Body,
) -> Response {
    let (_, row) = match open(state, headers, owner, monorepo, repo, Service::UploadPack).await {
        Ok(found) => found,
        Err(r) => return r,
    };
    // Read whole before git starts, so a body that cannot be read is a 400, not a
    // fetch cut short.
    let mut request = Vec::new();
    let mut input = body.into_data_stream();
    while let Some(chunk) = input.next().await {
        let Ok(chunk) = chunk else {
            return unreadable_body();
        };
        if request.len() + chunk.len() > MAX_FETCH_REQUEST_BYTES {
            return text(
                StatusCode::PAYLOAD_TOO_LARGE,
                "svc: this fetch request is over 16 MiB",
            );
        }
        request.extend_from_slice(&chunk);
    }
    let dir = storage::repo_dir(&state.config.data_dir, &row.id);
    let protocol = git_protocol(headers);
    if advertise::protocol_version(protocol.as_deref()) == 2
        && let Some(learned) = learned(state).await
        && let Some(refs) = advertise::ls_refs(dir.clone(), learned, &request).await
    {
        return (
            [
                (header::CONTENT_TYPE, "application/x-git-upload-pack-result"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            refs,
        )
            .into_response();
    }
    let mut child = match git(Service::UploadPack, &dir, protocol.as_deref()).spawn() {
        Ok(child) => child,
        Err(e) => return git_failed(&e.to_string()),
    };
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return git_failed("no pipes to git");
    };
    tokio::spawn(async move {
        let _ = stdin.write_all(&request).await;
    });
    tokio::spawn(async move {
        let mut err = String::new();
        let _ = tokio::io::BufReader::new(stderr)
            .take(64 * 1024)
            .read_to_string(&mut err)
            .await;
        if let Ok(status) = child.wait().await
            && !status.success()
            && !err.trim().is_empty()
        {
            tracing::warn!(stderr = err.trim(), "upload-pack ended badly");
        }
    });
    let stream = tokio_util::io::ReaderStream::with_capacity(stdout, 64 * 1024);
    (
        [
            (header::CONTENT_TYPE, "application/x-git-upload-pack-result"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}

async fn receive_pack(
    State(state): State<AppState>,
    headers: HeaderMap,
    axum::extract::Path(p): axum::extract::Path<DoorPath>,
    body: Body,
) -> Response {
    receive(
        &state,
        &headers,
        &p.owner,
        &p.monorepo,
        p.repo.as_deref(),
        body,
    )
    .await
}

fn push_result(body: Vec<u8>) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                "application/x-git-receive-pack-result",
            ),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// A spooled push, removed from disk when dropped.
struct Spool(PathBuf);

impl Drop for Spool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// How spooling a push's body ended.
enum Spooled {
    Within,
    /// Over the limit: the rest of the body, not read.
    OverLimit(axum::body::BodyDataStream),
    /// The body could not be read: not gzip although it says so, cut short, or gone.
    Unreadable,
}

/// The answer to a request body that cannot be read. Git prints `error: RPC failed;
/// HTTP 400` for it; the text is for other clients.
fn unreadable_body() -> Response {
    text(
        StatusCode::BAD_REQUEST,
        "svc: the request body could not be read (bad or cut-short gzip?); nothing was done",
    )
}

/// Writes the body to `spool`, up to `limit` bytes; a body declaring a length over
/// the limit stops at once, with its commands read.
async fn spool_body(
    body: Body,
    path: &std::path::Path,
    limit: u64,
    declared: Option<u64>,
) -> std::io::Result<Spooled> {
    let limit = match declared {
        Some(len) if len > limit => DECLARED_OVER_READ.min(limit),
        _ => limit,
    };
    let mut file = tokio::fs::File::create(path).await?;
    let mut input = body.into_data_stream();
    let mut total = 0u64;
    while let Some(chunk) = input.next().await {
        let Ok(chunk) = chunk else {
            return Ok(Spooled::Unreadable);
        };
        total += chunk.len() as u64;
        file.write_all(&chunk).await?;
        if total > limit {
            file.flush().await?;
            return Ok(Spooled::OverLimit(input));
        }
    }
    file.flush().await?;
    Ok(Spooled::Within)
}

/// The refusal of a push over the limit, sent while the rest of the push still comes:
/// the rest is read and dropped for [`DRAIN_AFTER_REFUSAL`], then the answer ends (and
/// with it the connection, the body unread).
fn refuse_oversized(head: &PushHead, limit: u64, rest: axum::body::BodyDataStream) -> Response {
    let size = if limit.is_multiple_of(1024 * 1024) {
        format!("{} MiB", limit / (1024 * 1024))
    } else {
        format!("{limit} bytes")
    };
    let refusal = pkt::refusal(
        head,
        &format!("push over {size}"),
        &format!(
            "svc: this push is over {size} and was refused; nothing landed.\nsvc: push in steps: a few commits at a time (git push origin <commit>:refs/heads/<branch>),\nsvc: or bring a whole project in with svc repo import (no size limit)."
        ),
    );
    let drained = futures_util::stream::once(async move {
        let deadline = tokio::time::Instant::now() + DRAIN_AFTER_REFUSAL;
        let mut rest = rest;
        while let Ok(Some(Ok(_))) = tokio::time::timeout_at(deadline, rest.next()).await {}
        Ok::<_, std::io::Error>(axum::body::Bytes::new())
    });
    let body = futures_util::stream::once(async move {
        Ok::<_, std::io::Error>(axum::body::Bytes::from(refusal))
    })
    .chain(drained);
    (
        [
            (
                header::CONTENT_TYPE,
                "application/x-git-receive-pack-result",
            ),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// `POST .../git-receive-pack`: spool, check the push rules, let git take it, record.
async fn receive(
    state: &AppState,
    headers: &HeaderMap,
    owner: &str,
    monorepo: &str,
    repo: Option<&str>,
    body: Body,
) -> Response {
    let (caller, row) =
        match open(state, headers, owner, monorepo, repo, Service::ReceivePack).await {
            Ok((Some(caller), row)) => (caller, row),
            Ok((None, _)) => return text(StatusCode::FORBIDDEN, "svc: you may not push here"),
            Err(r) => return r,
        };
    let spool = match spools(state).await {
        Ok(spools) => Spool(spools.file()),
        Err(e) => return git_failed(&e.to_string()),
    };
    let limit = state.config.git.max_push_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
        .filter(|_| !headers.contains_key(header::CONTENT_ENCODING));
    let over = match spool_body(body, &spool.0, limit, declared).await {
        Ok(Spooled::Within) => None,
        Ok(Spooled::OverLimit(rest)) => Some(rest),
        Ok(Spooled::Unreadable) => return unreadable_body(),
        Err(e) => return git_failed(&e.to_string()),
    };
    let within = over.is_none();
    let head = {
        let path = spool.0.clone();
        let read = tokio::task::spawn_blocking(move || {
            std::fs::File::open(path)
                .ok()
                .and_then(|f| pkt::read_push_head(std::io::BufReader::new(f)))
        });
        match read.await {
            Ok(Some(head)) => head,
            _ if !within => PushHead::default(),
            _ => return text(StatusCode::BAD_REQUEST, "svc: that is not a git push"),
        }
    };
    if let Some(rest) = over {
        return refuse_oversized(&head, limit, rest);
    }
    let (options, notes) = push_options::parse(&head.options);
    if let Some(refusal) = check_rules(state, &row, &head).await {
        return push_result(refusal);
    }
    if let Some(refusal) = check_clashes(state, &row, &head).await {
        return push_result(refusal);
    }
    if let Some(refusal) = check_locked_tags(state, &row, &head).await {
        return push_result(refusal);
    }
    let Ok(_slot) =
        tokio::time::timeout(PUSH_SLOT_WAIT, state.push_slots.clone().acquire_owned()).await
    else {
        return push_result(pkt::refusal(
            &head,
            "busy, push again",
            "svc: the server is busy with other pushes; push again in a moment.",
        ));
    };
    let dir = storage::repo_dir(&state.config.data_dir, &row.id);
    let output = async {
        let mut spooled = tokio::fs::File::open(&spool.0).await?;
        let mut child =
            git(Service::ReceivePack, &dir, git_protocol(headers).as_deref()).spawn()?;
        // The push reaches git through a pipe the server feeds, not the spool file
        // itself: git's own children (unpack-objects, index-pack) read the same input,
        // and a pipe ends with the server, so they stop when it dies instead of
        // unpacking the rest on their own.
        if let Some(mut stdin) = child.stdin.take() {
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut spooled, &mut stdin).await;
            });
        }
        child.wait_with_output().await
    };
    let out = match output.await {
        Ok(out) => out,
        Err(e) => return git_failed(&e.to_string()),
    };
    if !out.status.success() {
        tracing::warn!(stderr = %String::from_utf8_lossy(&out.stderr).trim(), "receive-pack failed");
    }
    // An agent session's push records its agent, whatever the header says.
    let agent = match caller.session_agent() {
        Some(agent) => Some(agent.to_owned()),
        None => crate::extract::header_agent(headers).ok().flatten(),
    };
    let actor = Actor {
        login: Some(caller.login.clone()),
        agent,
    };
    let recorded = record::record_push(
        &state.store,
        &state.config.data_dir,
        &row.id,
        &actor,
        &options,
    );
    match recorded.await {
        Ok(recorded) => state.facts.after_record(&row.id, &recorded).await,
        // Git has the refs; the next recording (or start-up) brings the DB in line.
        Err(e) => tracing::error!(repo = %row.id, error = %e, "cannot record a push"),
    }
    // The pushing machine's last action, off the push's path.
    let (store, monorepo_id) = (state.store.clone(), row.monorepo_id.clone());
    tokio::spawn(async move {
        crate::presence::pushed(
            &store,
            &monorepo_id,
            &caller.user_id,
            &caller.login,
            &caller.credential_name,
        )
        .await;
    });
    state.maintenance.after_write(&row.id);
    let mut answer = pkt::remote_lines(&head, &notes.join("\n"));
    answer.extend(out.stdout);
    push_result(answer)
}

/// The push rules: the default branch moves only by merges, once it exists.
async fn check_rules(state: &AppState, repo: &RepoRow, head: &PushHead) -> Option<Vec<u8>> {
    let main_ref = format!("refs/heads/{}", repo.default_branch);
    if !head.updates.iter().any(|u| u.refname == main_ref) {
        return None;
    }
    let dir = storage::repo_dir(&state.config.data_dir, &repo.id);
    let exists = match record::branch_heads(&dir).await {
        Ok(heads) => heads.contains_key(&repo.default_branch),
        Err(e) => {
            tracing::error!(error = %e, "cannot read refs for the push rules");
            true
        }
    };
    exists.then(|| {
        pkt::refusal(
            head,
            &format!("{} moves only by merges", repo.default_branch),
            &format!(
                "svc: pushes to {0} are refused: push a branch and merge it (svc branch merge).\nsvc: nothing from this push landed.",
                repo.default_branch
            ),
        )
    })
}

/// A published release's tag is locked: a push that moves or deletes it is refused whole,
/// before git sees it (a store that cannot answer refuses too: nothing is lost by
/// pushing again).
async fn check_locked_tags(state: &AppState, repo: &RepoRow, head: &PushHead) -> Option<Vec<u8>> {
    let names: Vec<String> = head
        .updates
        .iter()
        .filter_map(|u| u.refname.strip_prefix("refs/tags/"))
        .map(str::to_owned)
        .collect();
    if names.is_empty() {
        return None;
    }
    let found = match state.store.read().await {
        Ok(mut conn) => releases::of_tags(conn.h(), &repo.id, &names).await,
        Err(e) => Err(e),
    };
    let locked: Vec<String> = match found {
        Ok(rows) => rows
            .into_iter()
            .filter(|r| !r.draft)
            .map(|r| r.tag)
            .collect(),
        Err(e) => {
            tracing::error!(error = %e, "cannot read releases for the tag rule");
            names
        }
    };
    let first = locked.first()?;
    Some(pkt::refusal(
        head,
        "tag of a published release",
        &format!(
            "svc: {first} is the tag of a published release: it cannot be moved or deleted.\nsvc: nothing from this push landed."
        ),
    ))
}

/// A new branch whose ref cannot live beside an existing one (`a` and `a/b`): refused
/// with the name of the one in the way, where git would only say "failed to update ref".
async fn check_clashes(state: &AppState, repo: &RepoRow, head: &PushHead) -> Option<Vec<u8>> {
    let created: Vec<&str> = head
        .updates
        .iter()
        .filter(|u| u.old.bytes().all(|b| b == b'0'))
        .filter_map(|u| u.refname.strip_prefix("refs/heads/"))
        .collect();
    if created.is_empty() {
        return None;
    }
    let dir = storage::repo_dir(&state.config.data_dir, &repo.id);
    let heads = record::branch_heads(&dir).await.ok()?;
    let (name, existing) = created.iter().find_map(|name| {
        heads
            .keys()
            .find(|b| name.starts_with(&format!("{b}/")) || b.starts_with(&format!("{name}/")))
            .map(|b| (*name, b))
    })?;
    Some(pkt::refusal(
        head,
        &format!("{name} clashes with the branch {existing}"),
        &format!(
            "svc: {name} clashes with the existing branch {existing} (git cannot hold both).\nsvc: pick another name or delete {existing}; nothing from this push landed."
        ),
    ))
}
