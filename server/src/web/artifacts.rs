//! `/{owner}/{monorepo}/-/{repo}/branches/{branch}/artifacts/{name}`: an artifact's
//! document in a sandboxed frame beside its comment threads, with forms to start a
//! thread (on a quoted passage, typed or taken from a selection in the frame) and to
//! reply, resolve and reopen.
//!
//! The frame shows the API's rendered document through this page's own address
//! (`.../artifacts/{name}/versions/{n}/document`), the same bytes under a policy for
//! being framed here: `sandbox allow-same-origin` without scripts (so nothing in the
//! document runs, while this page's script may read what the person selected in it),
//! its inline images and styles, nothing fetched, and `frame-ancestors 'self'`.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_protocol::artifact::{Artifact, ArtifactComment, ArtifactKind, ThreadState};

use super::home::{human, rfc3339};
use super::issues::{branch_href, markdown_capped, seg};
use super::page::{self, Layout, Viewer};
use crate::authz::Need;
use crate::error::ApiResult;
use crate::extract::{Path, Query};
use crate::paths::{ArtifactPath, ArtifactVersionPath, MonorepoPath};
use crate::routes::{artifact_comments, artifacts};
use crate::state::AppState;

/// The framed document's policy: no script, no fetch, no form, no navigation of this
/// origin; the same origin (without scripts that is only this page reading it); its own
/// inline images and styles; framed by this server's pages only.
const FRAMED: &str = "sandbox allow-same-origin; default-src 'none'; img-src data:; \
    style-src 'unsafe-inline'; frame-ancestors 'self'";

/// Rendered HTML the threads of one page may take; past it, the next threads are a
/// page further.
const THREADS_BUDGET: usize = 55_000;
/// What a thread costs beside its Markdown.
const THREAD_COST: usize = 1_200;
/// What a reply costs beside its Markdown.
const REPLY_COST: usize = 300;
/// A comment over this much HTML shows only its start.
const COMMENT_MAX: usize = 12_000;
/// A quoted passage shown in full up to this many characters.
const QUOTE_MAX: usize = 600;

#[derive(Debug, Default, Deserialize)]
pub struct ArtifactQuery {
    /// The version shown (default the newest).
    v: Option<String>,
    /// The first thread shown (0 from the oldest).
    from: Option<String>,
}

pub struct VersionLink {
    pub n: i64,
    pub href: String,
    pub current: bool,
}

pub struct CommentView {
    pub id: String,
    pub author: String,
    pub at: String,
    pub when: String,
    /// Rendered Markdown; empty for a deleted root that keeps its replies.
    pub html: String,
    pub deleted: bool,
    pub truncated: bool,
    pub raw: String,
    pub edited: bool,
}

pub struct ThreadView {
    pub root: CommentView,
    pub resolved: bool,
    /// The quoted passage, cut to a readable length.
    pub quote: Option<String>,
    pub version: i64,
    pub replies: Vec<CommentView>,
    /// The thread's state route in the API.
    pub state_path: String,
}

#[derive(Template)]
#[template(path = "artifact.html")]
struct ArtifactPage {
    layout: Layout,
    base: String,
    monorepo: String,
    repo: String,
    branch: String,
    branch_href: String,
    /// This page, at the newest version.
    here: String,
    artifact: Artifact,
    is_image: bool,
    /// The version shown.
    n: i64,
    newest: i64,
    created_by: String,
    created_at: String,
    created_when: String,
    size: String,
    versions: Vec<VersionLink>,
    /// The framed document (this server's page route) and the API's.
    frame_src: String,
    document_api: String,
    /// The artifact's comments route in the API.
    comments_api: String,
    /// `repo/branch/name`: the key of the artifact's own events.
    event_key: String,
    threads: Vec<ThreadView>,
    open_threads: usize,
    total_threads: usize,
    /// Earlier and later pages of threads.
    earlier: Option<String>,
    later: Option<String>,
}

fn size_text(bytes: i64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}

pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(path): Path<ArtifactPath>,
    Query(query): Query<ArtifactQuery>,
) -> Response {
    let wanted = match query.v.as_deref() {
        None | Some("") => None,
        Some(v) => match v.parse::<i64>() {
            Ok(n) if n > 0 => Some(n),
            _ => return page::not_found(&viewer),
        },
    };
    let from = match query.from.as_deref() {
        None | Some("") => 0,
        Some(f) => match f.parse::<usize>() {
            Ok(n) => n,
            Err(_) => return page::not_found(&viewer),
        },
    };
    match build(&state, &viewer, path, wanted, from).await {
        Ok(Some(p)) => page::ok(&p),
        Ok(None) => page::not_found(&viewer),
        Err(e) => page::failed(&viewer, e),
    }
}

fn comment_view(c: &ArtifactComment, raw: String) -> (CommentView, usize) {
    let (html, truncated, deleted) = match &c.body {
        Some(b) => {
            let (html, truncated) = markdown_capped(b, COMMENT_MAX);
            (html, truncated, false)
        }
        None => (String::new(), false, true),
    };
    let cost = html.len();
    (
        CommentView {
            id: c.id.clone(),
            author: c.author.clone(),
            at: rfc3339(c.created_at),
            when: human(c.created_at),
            html,
            deleted,
            truncated,
            raw,
            edited: c.body_version > 1,
        },
        cost,
    )
}

async fn build(
    state: &AppState,
    viewer: &Viewer,
    path: ArtifactPath,
    wanted: Option<i64>,
    from: usize,
) -> ApiResult<Option<ArtifactPage>> {
    let caller = &viewer.0;
    let label_of = {
        let mut conn = state.store.read().await?;
        let at = MonorepoPath {
            owner: path.owner.clone(),
            monorepo: path.monorepo.clone(),
        };
        at.access(conn.h(), caller, Need::Read)
            .await?
            .monorepo
            .label()
    };
    let artifact = artifacts::get(State(state.clone()), caller.clone(), Path(path.clone()))
        .await?
        .0;
    let threads = artifact_comments::list(State(state.clone()), caller.clone(), Path(path.clone()))
        .await?
        .0
        .items;
    let Some(newest) = artifact.versions.last().map(|v| v.n) else {
        return Ok(None);
    };
    let n = wanted.unwrap_or(newest);
    let Some(version) = artifact.versions.iter().find(|v| v.n == n) else {
        return Ok(None);
    };
    let base = format!("/{label_of}");
    let here = format!(
        "{}/artifacts/{}",
        branch_href(&label_of, &artifact.repo, &artifact.branch),
        seg(&artifact.name)
    );
    let api_monorepo = format!("/v1/monorepos/{}/{}", seg(&path.owner), seg(&path.monorepo));
    let api = format!(
        "{api_monorepo}/repos/{}/branches/{}/artifacts/{}",
        seg(&artifact.repo),
        seg(&artifact.branch),
        seg(&artifact.name)
    );
    let comment_api = |id: &str| {
        format!(
            "{api_monorepo}/repos/{}/artifact-comments/{}",
            seg(&artifact.repo),
            seg(id)
        )
    };
    let version_href = |v: i64| {
        if v == newest {
            here.clone()
        } else {
            format!("{here}?v={v}")
        }
    };

    // The threads of this page, within the budget.
    let total_threads = threads.len();
    let open_threads = threads
        .iter()
        .filter(|t| t.root.state != Some(ThreadState::Resolved))
        .count();
    let mut left = THREADS_BUDGET;
    let mut shown = Vec::new();
    for t in threads.iter().skip(from) {
        let (root, mut cost) = comment_view(&t.root, comment_api(&t.root.id));
        cost += THREAD_COST;
        let mut replies = Vec::new();
        for r in &t.replies {
            let (reply, c) = comment_view(r, comment_api(&r.id));
            cost += c + REPLY_COST;
            replies.push(reply);
        }
        if cost > left && !shown.is_empty() {
            break;
        }
        left = left.saturating_sub(cost);
        let quote = t.root.anchor.as_ref().map(|a| {
            let mut q: String = a.exact.chars().take(QUOTE_MAX).collect();
            if a.exact.chars().count() > QUOTE_MAX {
                q.push('…');
            }
            q
        });
        shown.push(ThreadView {
            resolved: t.root.state == Some(ThreadState::Resolved),
            quote,
            version: t.root.version,
            state_path: comment_api(&t.root.id),
            root,
            replies,
        });
    }
    let with_v = |from: usize| {
        let mut href = format!("{here}?");
        if n != newest {
            href.push_str(&format!("v={n}&"));
        }
        href.push_str(&format!("from={from}#threads"));
        href
    };
    let after = from + shown.len();
    let earlier = (from > 0).then(|| with_v(0));
    let later = (after < total_threads).then(|| with_v(after));

    Ok(Some(ArtifactPage {
        layout: Layout {
            monorepo: Some(label_of.clone()),
            ..Layout::new(
                format!(
                    "{} · {}:{} · {label_of}",
                    artifact.name, artifact.repo, artifact.branch
                ),
                viewer,
            )
        },
        branch_href: branch_href(&label_of, &artifact.repo, &artifact.branch),
        is_image: artifact.kind == ArtifactKind::Image,
        created_by: version.created_by.clone(),
        created_at: rfc3339(version.created_at),
        created_when: human(version.created_at),
        size: size_text(version.size),
        versions: artifact
            .versions
            .iter()
            .rev()
            .map(|v| VersionLink {
                n: v.n,
                href: version_href(v.n),
                current: v.n == n,
            })
            .collect(),
        frame_src: format!("{here}/versions/{n}/document"),
        document_api: format!("{api}/versions/{n}/document"),
        comments_api: format!("{api}/comments"),
        event_key: format!("{}/{}/{}", artifact.repo, artifact.branch, artifact.name),
        repo: artifact.repo.clone(),
        branch: artifact.branch.clone(),
        threads: shown,
        open_threads,
        total_threads,
        earlier,
        later,
        here,
        n,
        newest,
        monorepo: label_of,
        base,
        artifact,
    }))
}

/// The API's rendered document under the policy for this server's frame.
pub async fn document(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(path): Path<ArtifactVersionPath>,
) -> Response {
    match artifacts::document(State(state), viewer.0.clone(), Path(path)).await {
        Ok(mut response) => {
            response.headers_mut().insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(FRAMED),
            );
            response
        }
        Err(e) => e.into_response(),
    }
}
