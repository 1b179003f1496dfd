//! The web: server-rendered pages (askama templates in `server/templates/`, checked at
//! compile time and escaping by default), one stylesheet and one script served by the
//! binary itself (`server/assets/`). Pages read and write with JavaScript off: every form
//! is a plain POST to a route of its page, which calls the API's handler and redirects
//! back (`forms`); the script adds live updates through the sockets and sends the same
//! forms to the JSON API with the session cookie and `Origin` like any other client.
//! The monorepo's own pages are `/{owner}/{monorepo}/{word}` (`paths::MONOREPO_PAGES`),
//! a repo's `/{owner}/{monorepo}/-/{repo}`, so any repo name has pages. A namespace's
//! page is `/{owner}`, an org's own pages `/{owner}/-/{word}`; the person's `/settings`.

mod agents;
mod ansi;
mod artifact_forms;
mod artifacts;
mod assets;
mod branch;
mod branch_diff;
mod branch_forms;
mod branches;
mod checks;
mod ci;
mod code;
mod commit;
mod diff_section;
mod forms;
mod home;
mod issue_forms;
mod issues;
pub(crate) mod markdown;
mod monorepo;
mod orgs;
mod page;
mod people;
mod person;
mod queue;
mod releases;
mod settings;
mod settings_forms;
mod settings_hooks;
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
        .merge(issue_forms::router())
        .merge(branch_forms::router())
        .merge(artifact_forms::router())
        .merge(branches::router())
        .merge(queue::router())
        .merge(ci::router())
        .merge(person::router())
        .merge(orgs::router())
        .merge(settings::router())
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
        .route("/{owner}/{monorepo}/issues", get(issues::list))
        .route("/{owner}/{monorepo}/issues/{number}", get(issues::issue))
        .route("/{owner}/{monorepo}/-/{repo}/{item}", get(code::old_item))
        .route(
            "/{owner}/{monorepo}/-/{repo}/branches/{branch}/artifacts/{name}",
            get(artifacts::page),
        )
        .route(
            "/{owner}/{monorepo}/-/{repo}/branches/{branch}/artifacts/{name}/versions/{n}/document",
            get(artifacts::document),
        )
        .layer(axum::middleware::from_fn(forms::clear_flash))
}
