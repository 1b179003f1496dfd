//! Writes from pages with JavaScript off: a form POSTs to a route of the page itself,
//! which checks the `Origin` (the session cookie's rule for writes, the same as the
//! API's), calls the JSON API's own handler (so the API's authorization and events
//! decide) and answers 303 See Other back to the page. A write the API refuses goes back
//! too, with its reason in a flash: a cookie for that page alone that the page shows
//! once (the next page answer on that path clears it). What the person may not see is
//! the 404 page, as everywhere. With JavaScript on, the script sends the same forms to
//! the JSON API instead and updates the page in place.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

use super::page::{self, Viewer};
use crate::auth;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The cookie carrying a refused write's reason back to its page.
pub const FLASH_COOKIE: &str = "svc_flash";
/// A flash not shown within this many seconds is dropped.
const FLASH_SECONDS: u32 = 60;
/// The characters of a reason a flash carries at most.
const FLASH_MAX: usize = 500;

/// Runs a form's write `run` (after the `Origin` check) and answers: back to `back`
/// (a path from the root, with its query) when done or refused, the 404 page when the
/// person may not see what it writes to.
pub async fn post(
    state: &AppState,
    viewer: &Viewer,
    headers: &HeaderMap,
    back: &str,
    run: impl std::future::Future<Output = ApiResult<()>>,
) -> Response {
    let run = async { run.await.map(|()| back.to_owned()) };
    post_then(state, viewer, headers, back, run).await
}

/// [`post`] for a write whose page is elsewhere once done: `run` answers where.
pub async fn post_then(
    state: &AppState,
    viewer: &Viewer,
    headers: &HeaderMap,
    back: &str,
    run: impl std::future::Future<Output = ApiResult<String>>,
) -> Response {
    match post_shown(state, viewer, headers, back, run).await {
        Ok(to) => Redirect::to(&to).into_response(),
        Err(response) => response,
    }
}

/// [`post`] for a write whose answer the page shows this once, in the POST's own answer
/// (a secret or sign-in link made for it, which no later read gives, so it never rides
/// a redirect or a cookie): `run`'s answer, else the answer for its refusal.
pub async fn post_shown<T>(
    state: &AppState,
    viewer: &Viewer,
    headers: &HeaderMap,
    back: &str,
    run: impl std::future::Future<Output = ApiResult<T>>,
) -> Result<T, Response> {
    let done = match auth::check_origin(headers, state) {
        Ok(()) => run.await,
        Err(e) => Err(e),
    };
    done.map_err(|e| failed(viewer, back, &e))
}

/// The answer to a form whose write failed: the 404 page when the person may not see
/// what it writes to, else back to `back` with the reason in a flash.
pub fn failed(viewer: &Viewer, back: &str, e: &ApiError) -> Response {
    if e.status == StatusCode::NOT_FOUND {
        page::not_found(viewer)
    } else {
        refused(back, &e.message)
    }
}

/// 303 back to `back` with `reason` in a flash for that page.
pub fn refused(back: &str, reason: &str) -> Response {
    let reason: String = reason.chars().take(FLASH_MAX).collect();
    let value = url::form_urlencoded::byte_serialize(reason.as_bytes()).collect::<String>();
    let path = back.split(['?', '#']).next().unwrap_or("/");
    let cookie = format!(
        "{FLASH_COOKIE}={value}; Path={path}; Secure; HttpOnly; SameSite=Strict; Max-Age={FLASH_SECONDS}"
    );
    let mut response = Redirect::to(back).into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, v);
    }
    response
}

/// The flash a request carries, as text.
pub fn flash(headers: &HeaderMap) -> Option<String> {
    let raw = auth::cookie(headers, FLASH_COOKIE)?;
    let text: String = url::form_urlencoded::parse(format!("m={raw}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())?;
    let text: String = text.chars().take(FLASH_MAX).collect();
    (!text.trim().is_empty()).then_some(text)
}

/// Middleware: a page answered to a request that carried a flash has shown it, so the
/// answer clears it (the cookie's path is the page's own).
pub async fn clear_flash(request: Request, next: Next) -> Response {
    let shown = request.method() == axum::http::Method::GET
        && auth::cookie(request.headers(), FLASH_COOKIE).is_some();
    let path = request.uri().path().to_owned();
    let mut response = next.run(request).await;
    if shown && response.status() == StatusCode::OK {
        let cookie =
            format!("{FLASH_COOKIE}=; Path={path}; Secure; HttpOnly; SameSite=Strict; Max-Age=0");
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue, header};

    #[test]
    fn a_flash_travels_encoded_and_reads_back() {
        let r = super::refused("/a/b/issues/1?after=2", "no; <b>“that”</b>");
        let set = r.headers()[header::SET_COOKIE].to_str().unwrap().to_owned();
        assert!(set.contains("; Path=/a/b/issues/1;"), "{set}");
        let value = set.split(';').next().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_str(value).unwrap());
        assert_eq!(super::flash(&headers).as_deref(), Some("no; <b>“that”</b>"));
        assert_eq!(r.status(), axum::http::StatusCode::SEE_OTHER);
    }
}
