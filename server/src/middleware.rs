//! The layers every request passes: request ids, tracing, panic catching, the body
//! limit, and the encoding of raw slashes in branch names before routing.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::Body;
use axum::extract::DefaultBodyLimit;
use axum::http::{Request, Uri};
use axum::response::IntoResponse;
use tower::Layer;
use tower::util::{MapRequest, MapRequestLayer};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::{DefaultOnResponse, TraceLayer};

use crate::error::ApiError;
use crate::state::AppState;

/// JSON request bodies above this are refused with 413 `too_large`.
pub const JSON_BODY_LIMIT: usize = 1024 * 1024;

/// Wraps every route (and the fallbacks) in the layers, innermost first: the body
/// limit, panic catching, tracing, then request ids.
pub fn layers(router: Router<AppState>) -> Router<AppState> {
    router
        .layer(DefaultBodyLimit::max(JSON_BODY_LIMIT))
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::internal("a handler panicked").into_response()
        }))
        .layer(
            TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
                let id = req
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("-");
                tracing::info_span!("request", id, method = %req.method(), path = %req.uri().path())
            })
            .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(RequestIds::default()))
}

/// Request ids: a per-process random prefix and a counter, cheap and unique enough to
/// follow one request through the logs (an incoming `x-request-id` is kept).
#[derive(Clone)]
struct RequestIds {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl Default for RequestIds {
    fn default() -> Self {
        Self {
            prefix: crate::token::new_id("")
                .chars()
                .take(6)
                .collect::<String>()
                .into(),
            next: Arc::default(),
        }
    }
}

impl MakeRequestId for RequestIds {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("{}-{n}", self.prefix)
            .parse()
            .ok()
            .map(RequestId::new)
    }
}

/// The router with [`before_routing`]'s rewrite in front: what the server serves.
pub type App = MapRequest<Router, fn(Request<Body>) -> Request<Body>>;

/// The router behind the one layer that must run before routing: branch names with raw
/// slashes are encoded, so the router sees one path segment either way.
pub fn before_routing(router: Router) -> App {
    MapRequestLayer::new(branch_slashes as fn(Request<Body>) -> Request<Body>).layer(router)
}

fn branch_slashes(mut req: Request<Body>) -> Request<Body> {
    if let Some(uri) = encode_branch_slashes(req.uri()) {
        *req.uri_mut() = uri;
    }
    req
}

/// Rewrites raw slashes in a branch name to `%2F` (`.../branches/a/b/diff` →
/// `.../branches/a%2Fb/diff`) before routing, so both spellings reach the same route. A
/// last segment naming a sub-resource is taken as that sub-resource.
fn encode_branch_slashes(uri: &Uri) -> Option<Uri> {
    const SUB: [&str; 7] = [
        "commits",
        "diff",
        "merge",
        "auto-merge",
        "queue",
        "reviews",
        "review-agent",
    ];
    let path = uri.path();
    let rest = path.strip_prefix("/v1/monorepos/")?;
    let parts: Vec<&str> = rest.splitn(6, '/').collect();
    let [_, _, "repos", _, "branches", tail] = parts.as_slice() else {
        return None;
    };
    let segments: Vec<&str> = tail.split('/').collect();
    if segments.len() < 2 {
        return None;
    }
    if let Some(at) = segments
        .iter()
        .position(|s| *s == "artifacts" || *s == "artifact-threads")
        .filter(|at| *at > 0)
    {
        return artifact_path(uri, &path[..path.len() - tail.len()], &segments, at);
    }
    let (name, sub) = match segments.split_last() {
        Some((last, init)) if SUB.contains(last) && init.len() > 1 => {
            (init.join("%2F"), Some(*last))
        }
        Some((last, _)) if SUB.contains(last) => return None,
        _ => (segments.join("%2F"), None),
    };
    let prefix = &path[..path.len() - tail.len()];
    let mut new = format!("{prefix}{name}");
    if let Some(sub) = sub {
        new.push('/');
        new.push_str(sub);
    }
    if let Some(q) = uri.query() {
        new.push('?');
        new.push_str(q);
    }
    new.parse().ok()
}

/// The artifact routes under a branch: the branch is what comes before `artifacts` (or
/// `artifact-threads`), and a file's path after `files/` is one segment too.
fn artifact_path(uri: &Uri, prefix: &str, segments: &[&str], at: usize) -> Option<Uri> {
    let mut rest: Vec<String> = segments[at..].iter().map(|s| (*s).to_owned()).collect();
    if rest.len() > 6 && rest[0] == "artifacts" && rest[2] == "versions" && rest[4] == "files" {
        let file = rest[5..].join("%2F");
        rest.truncate(5);
        rest.push(file);
    }
    if at == 1 && rest.len() == segments.len() - 1 {
        return None;
    }
    let mut new = format!("{prefix}{}/{}", segments[..at].join("%2F"), rest.join("/"));
    if let Some(q) = uri.query() {
        new.push('?');
        new.push_str(q);
    }
    new.parse().ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn raw_slashes_become_encoded() {
        let r = |s: &str| encode_branch_slashes(&s.parse().unwrap()).map(|u| u.to_string());
        let base = "/v1/monorepos/o/m/repos/api/branches/";
        assert_eq!(r(&format!("{base}a/b")), Some(format!("{base}a%2Fb")));
        assert_eq!(
            r(&format!("{base}a/b/c/diff?x=1")),
            Some(format!("{base}a%2Fb%2Fc/diff?x=1"))
        );
        assert_eq!(r(&format!("{base}a/diff")), None);
        assert_eq!(r(&format!("{base}a%2Fb")), None);
        assert_eq!(r("/v1/monorepos/o/m/repos/api/tree"), None);
    }

    #[test]
    fn artifact_paths_take_the_branch_before_artifacts_and_a_file_after_files() {
        let r = |s: &str| encode_branch_slashes(&s.parse().unwrap()).map(|u| u.to_string());
        let base = "/v1/monorepos/o/m/repos/api/branches/";
        assert_eq!(
            r(&format!("{base}feat/x/artifacts/d.md")),
            Some(format!("{base}feat%2Fx/artifacts/d.md"))
        );
        assert_eq!(
            r(&format!("{base}feat/x/artifact-threads")),
            Some(format!("{base}feat%2Fx/artifact-threads"))
        );
        assert_eq!(
            r(&format!(
                "{base}f/artifacts/d.md/versions/2/files/img/a.png"
            )),
            Some(format!(
                "{base}f/artifacts/d.md/versions/2/files/img%2Fa.png"
            ))
        );
        assert_eq!(
            r(&format!("{base}f/artifacts/d.md/versions/2/document")),
            None
        );
        assert_eq!(r(&format!("{base}f/artifacts")), None);
    }
}
