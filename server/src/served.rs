//! The headers of files served as they are, whatever they hold (raw files, getFile,
//! artifact files, release downloads): no type sniffing, and a policy under which a file
//! opened as a page runs nothing, fetches nothing and is framed by no page.

use axum::http::{HeaderMap, HeaderValue, header};

/// A served file's policy: a sandbox (no script, an origin of its own), nothing
/// fetched, framed by no page. The artifact viewer's frame answers its own
/// (`web/artifacts.rs`), framed by this server's pages only.
pub const POLICY: &str = "sandbox; default-src 'none'; frame-ancestors 'none'";

/// Adds the served files' headers.
pub fn protect(headers: &mut HeaderMap) {
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
}
