//! The stylesheet, the script and the icon, compiled into the binary. The stylesheet's
//! and the script's URLs carry a hash of their bytes, so browsers keep them for a year
//! and a new binary's assets load fresh; the icon is where browsers look for one,
//! `/favicon.ico`, kept for a day.

use std::sync::LazyLock;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sha2::Digest;

use crate::state::AppState;

const CSS: &str = include_str!("../../assets/svc.css");
const JS: &str = include_str!("../../assets/svc.js");
/// 16 × 16, a PNG inside an ICO (every browser reads it).
const ICON: &[u8] = include_bytes!("../../assets/favicon.ico");

/// `/assets/svc-<hash>.css` and `.js`, as the layout links them.
pub static CSS_PATH: LazyLock<String> = LazyLock::new(|| format!("/assets/svc-{}.css", hash(CSS)));
pub static JS_PATH: LazyLock<String> = LazyLock::new(|| format!("/assets/svc-{}.js", hash(JS)));

fn hash(text: &str) -> String {
    hex::encode(&sha2::Sha256::digest(text.as_bytes())[..6])
}

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/assets/{file}", get(asset))
        .route("/favicon.ico", get(icon))
}

async fn icon() -> Response {
    fixed(ICON, "image/x-icon", "public, max-age=86400")
}

async fn asset(axum::extract::Path(file): axum::extract::Path<String>) -> Response {
    let path = format!("/assets/{file}");
    let (body, kind) = if path == *CSS_PATH {
        (CSS, "text/css; charset=utf-8")
    } else if path == *JS_PATH {
        (JS, "text/javascript; charset=utf-8")
    } else {
        return StatusCode::NOT_FOUND.into_response();
    };
    fixed(body, kind, "public, max-age=31536000, immutable")
}

/// A file built into the server, with its type (never sniffed) and how long to keep it.
fn fixed(body: impl IntoResponse, kind: &'static str, cache: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// The stylesheet's path, for the layout.
pub fn css() -> &'static str {
    CSS_PATH.as_str()
}

/// The script's path, for the layout.
pub fn js() -> &'static str {
    JS_PATH.as_str()
}
