//! The web: server-rendered pages (askama templates in `server/templates/`, checked at
//! compile time and escaping by default), one stylesheet and one script served by the
//! binary itself (`server/assets/`). Pages read with JavaScript off; the script adds live
//! updates through the sockets and forms for writes, which go to the JSON API with the
//! session cookie and `Origin` like any other client. The agent sessions' forms are
//! plain POSTs to the pages themselves, which call the API's handlers (`agents`).

mod agents;
mod ansi;
mod artifacts;
mod assets;
mod branch;
mod branch_diff;
mod checks;
mod ci;
mod code;
mod commit;
mod diff_section;
mod home;
mod issues;
pub(crate) mod markdown;
mod monorepo;
mod page;
mod people;
mod releases;
mod signin;

pub use branch::branch_page;
pub use signin::safe_return_to;

use axum::routing::get;

use crate::state::AppState;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .merge(signin::router())
        .merge(people::router())
        .merge(assets::router())
        .merge(agents::router())
        .merge(ci::router())
        .route("/", get(home::page))
        .route("/{owner}/{monorepo}", get(monorepo::page))
        .route("/{owner}/{monorepo}/-/{repo}", get(code::repo_root))
        .route("/{owner}/{monorepo}/-/{repo}/tree/{ref}", get(code::tree))
        .route(
            "/{owner}/{monorepo}/-/{repo}/tree/{ref}/{*path}",
            get(code::tree),
        )
        .route(
            "/{owner}/{monorepo}/-/{repo}/blob/{ref}/{*path}",
            get(code::blob),
        )
        .route(
            "/{owner}/{monorepo}/-/{repo}/commits/{ref}",
            get(code::history),
        )
        .route(
            "/{owner}/{monorepo}/-/{repo}/commits/{ref}/{*path}",
            get(code::history),
        )
        .route(
            "/{owner}/{monorepo}/-/{repo}/commit/{sha}",
            get(commit::page),
        )
        .route("/{owner}/{monorepo}/-/{repo}/releases", get(releases::page))
        .route(
            "/{owner}/{monorepo}/-/{repo}/branches/{branch}",
            get(branch::page),
        )
        .route("/{owner}/{monorepo}/-/issues", get(issues::list))
        .route("/{owner}/{monorepo}/-/issues/{number}", get(issues::issue))
        .route(
            "/{owner}/{monorepo}/-/{repo}/branches/{branch}/artifacts/{name}",
            get(artifacts::page),
        )
        .route(
            "/{owner}/{monorepo}/-/{repo}/branches/{branch}/artifacts/{name}/versions/{n}/document",
            get(artifacts::document),
        )
}
