//! The web: server-rendered pages (askama templates in `server/templates/`, checked at
//! compile time and escaping by default), one stylesheet and one script served by the
//! binary itself (`server/assets/`). Pages read with JavaScript off; the script adds live
//! updates through the sockets and forms for writes, which go to the JSON API with the
//! session cookie and `Origin` like any other client.

mod assets;
mod home;
mod markdown;
mod page;
mod signin;

pub use signin::safe_return_to;

use axum::routing::get;

use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .merge(signin::router())
        .merge(assets::router())
        .route("/", get(home::page))
}
