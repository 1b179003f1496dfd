//! The one router: the `/v1` API, the web pages, the git door, the raw file routes and
//! the fallbacks, wrapped in the middleware layers.

use axum::Router;
use axum::http::StatusCode;
use svc_protocol::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;

pub fn router(state: AppState) -> Router {
    let api: Router<AppState> = crate::routes::api().into();
    let routes = api
        .merge(crate::web::router())
        .merge(crate::git::door::router())
        .merge(crate::routes::raw())
        .fallback(|| async { ApiError::not_found("route") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                ErrorCode::MethodNotAllowed,
                "this route does not take that method",
            )
        });
    let routes = routes.layer(axum::middleware::from_fn_with_state(
        state.clone(),
        crate::rate_limit::limit,
    ));
    crate::middleware::layers(routes).with_state(state)
}
