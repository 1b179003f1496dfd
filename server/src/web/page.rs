//! What every page shares: who is signed in (the session cookie, else to the sign-in
//! page), rendering with the layout and the pages' Content-Security-Policy, and the one
//! 404 page, the same for what is missing and what the person may not see.

use askama::Template;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};

use crate::auth::{self, Caller};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Scripts and styles only from this server, no inline ones; frames only of this server
/// (the artifact viewer's sandboxed document); sockets and fetches to this server.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; form-action 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The person a page is for, from the session cookie, and the flash of a write of theirs
/// just refused (`forms`), which the page shows.
pub struct Viewer(pub Caller, pub Option<String>);

impl FromRequestParts<AppState> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Viewer, Response> {
        let session = match auth::cookie(&parts.headers, auth::SESSION_COOKIE) {
            Some(token) => auth::authenticate(state, token).await.ok().flatten(),
            None => None,
        };
        match session {
            Some(caller) if caller.kind == svc_protocol::user::CredentialKind::Browser => {
                Ok(Viewer(
                    Caller {
                        via_cookie: true,
                        ..caller
                    },
                    super::forms::flash(&parts.headers),
                ))
            }
            _ => {
                let here = parts
                    .uri
                    .path_and_query()
                    .map_or("/", |p| p.as_str())
                    .to_owned();
                let back =
                    url::form_urlencoded::byte_serialize(here.as_bytes()).collect::<String>();
                Err(Redirect::to(&format!("/v1/login/browser?return_to={back}")).into_response())
            }
        }
    }
}

/// The layout's own fields, which every page template carries as `layout`.
pub struct Layout {
    pub title: String,
    /// The signed-in person's login.
    pub login: String,
    /// The monorepo the page is in, as `owner/name`, for the live socket.
    pub monorepo: Option<String>,
    /// What the page follows live on the monorepo's socket (see [`Follow`]).
    pub follow: Option<Follow>,
    /// Why a write from this page was just refused.
    pub flash: Option<String>,
    pub css: &'static str,
    pub js: &'static str,
}

impl Layout {
    pub fn new(title: impl Into<String>, viewer: &Viewer) -> Layout {
        Layout {
            title: title.into(),
            login: viewer.0.login.clone(),
            monorepo: None,
            follow: None,
            flash: viewer.1.clone(),
            css: super::assets::css(),
            js: super::assets::js(),
        }
    }
}

/// A page that follows collections of its monorepo's events: on an event of one of
/// `collections` (or when events may have been missed), the script fetches the page
/// again and swaps the elements of `ids`. `since` is the monorepo's last event when the
/// page was read (read before the page's data), so what changes while the page is on its
/// way still shows.
pub struct Follow {
    pub collections: &'static str,
    pub ids: &'static str,
    pub since: i64,
}

impl Layout {
    /// The page is in the monorepo `label` (id `monorepo_id`) and follows `collections`,
    /// swapping `ids` (both space-separated).
    pub async fn follow(
        &mut self,
        state: &AppState,
        (label, monorepo_id): (&str, &str),
        collections: &'static str,
        ids: &'static str,
    ) -> ApiResult<()> {
        let since = {
            let mut conn = state.store.read().await?;
            crate::store::events::last_seq(conn.h(), monorepo_id).await?
        };
        self.monorepo = Some(label.to_owned());
        self.follow = Some(Follow {
            collections,
            ids,
            since,
        });
        Ok(())
    }
}

/// A rendered page with the pages' headers.
pub fn render(status: StatusCode, page: &impl Template) -> Response {
    match page.render() {
        Ok(html) => with_headers((status, Html(html)).into_response()),
        Err(e) => render_error(e),
    }
}

/// A page that could not be rendered: the API's 500.
pub fn render_error(e: impl std::fmt::Display) -> Response {
    ApiError::internal(e).into_response()
}

/// A page sent as it is made (`body` yields its parts), with the pages' headers.
pub fn streamed(body: axum::body::Body) -> Response {
    with_headers(Html(body).into_response())
}

pub fn ok(page: &impl Template) -> Response {
    render(StatusCode::OK, page)
}

fn with_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    headers.insert("referrer-policy", HeaderValue::from_static("same-origin"));
    response
}

#[derive(Template)]
#[template(path = "not_found.html")]
struct NotFound {
    layout: Layout,
}

/// The 404 page: the same whether the thing is missing or hidden from the person.
pub fn not_found(viewer: &Viewer) -> Response {
    let page = NotFound {
        layout: Layout::new("Not found", viewer),
    };
    render(StatusCode::NOT_FOUND, &page)
}

/// A built page, or the answer for what stopped it being built.
pub fn answer(viewer: &Viewer, built: ApiResult<impl Template>) -> Response {
    match built {
        Ok(page) => ok(&page),
        Err(e) => failed(viewer, e),
    }
}

/// A page's answer for an API error on the way: 404 (and 403, which would tell that
/// the thing exists) as the 404 page, the rest as the API's error.
pub fn failed(viewer: &Viewer, e: ApiError) -> Response {
    if e.status == StatusCode::NOT_FOUND || e.status == StatusCode::FORBIDDEN {
        not_found(viewer)
    } else {
        e.into_response()
    }
}
