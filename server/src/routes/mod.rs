//! The `/v1` API: one module per resource. Every route is registered through
//! [`api`], which also builds the OpenAPI document, so the document cannot miss one.

pub(crate) mod activity;
pub(crate) mod admin;
pub(crate) mod agents;
pub(crate) mod artifact_comments;
pub(crate) mod artifacts;
pub(crate) mod auto_merge;
pub(crate) mod branches;
pub(crate) mod changes;
pub(crate) mod ci;
pub(crate) mod ci_builds;
pub(crate) mod ci_webhook;
pub(crate) mod code;
pub(crate) mod commit_files;
pub(crate) mod credentials;
pub(crate) mod deployments;
pub(crate) mod device;
pub(crate) mod diff;
pub(crate) mod doc;
mod doc_unions;
pub(crate) mod events;
pub(crate) mod health;
pub(crate) mod hooks;
pub(crate) mod imports;
pub(crate) mod issues;
pub(crate) mod labels;
pub(crate) mod members;
pub(crate) mod merge;
pub(crate) mod meta;
pub(crate) mod monorepos;
pub(crate) mod needs;
pub(crate) mod orgs;
pub(crate) mod presence;
pub(crate) mod queue;
pub(crate) mod releases;
pub(crate) mod repos;
pub(crate) mod reviews;
pub(crate) mod session;
pub(crate) mod statuses;
pub(crate) mod summary;
pub(crate) mod tags;
pub(crate) mod users;

use std::sync::OnceLock;

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(title = "svc", description = "Monorepo hosting and collaboration service"),
    tags(
        (name = "admin", description = "The server's people, for its site admins: the first \
            person ever made on the server, and whoever was made with `admin: true` (or \
            `svc-server user add --admin`). Anyone else gets 404, as for a route that does not exist."),
        (name = "credentials", description = "A credential carries permissions beyond its person's role. \
            `write_builds` (rebuild and cancel CI builds, retry their jobs) is held by machine \
            credentials and browser sessions; a sandbox credential holds it only when made with \
            `permissions: [\"write_builds\"]`. A credential never holds a permission the one \
            making it lacks (403 `missing_permission`)."),
        (name = "ci", description = "Buildkite, spoken as Buildkite speaks it. Members read builds, \
            logs, annotations, artifacts and pipelines and start builds; rebuild, cancel and retry \
            also need the credential's `write_builds` permission (403 `missing_permission`); \
            owners connect and disconnect. States map onto the vocabulary of `CiState`; \
            `service_state` keeps Buildkite's word."),
        (name = "agents", description = "Coding agents the server runs as their user: the \
            runners and models of the server's `[agents.runners]` and `[[agents.models]]`. \
            Each run gets a fresh `cloud-<session>` sandbox credential, revoked when the run \
            ends; it acts only inside its monorepo and never does what only owners do, and a \
            review session's only reads and posts reviews (comments, change requests) on \
            its branch. A session's state \
            changes are `agent.updated` events (collection `agents`), except a chat's, which \
            stays its person's alone. Limits (server settings, defaults): `max_running` 8 \
            runs going on a server and `max_running_per_person` 3 (429 `too_many_sessions`), \
            `max_messages` 5,000 messages a transcript, `max_output_bytes` 32 MiB of output \
            a run, `max_run_seconds` 3,600 a run (over any of the last three the run is \
            killed and the session `failed`); prompts and messages at most 64 KiB. A server \
            that stops fails its running sessions (`the server stopped while it ran`); a \
            server that dies leaves a lapsed lease (60 s) and another fails them; a message \
            carries a failed or stopped session on, told the transcript so far."),
    ),
    // The WebSocket frames, which no response body names: the monorepo event socket's
    // (pullEvents upgraded), the activity socket's (listActivity upgraded), agentLive's.
    components(schemas(
        svc_protocol::event::ServerFrame,
        svc_protocol::event::ClientFrame,
        svc_protocol::feed::ActivityServerFrame,
        svc_protocol::feed::ActivityClientFrame,
        svc_protocol::agent::LiveFrame,
    )),
    modifiers(&SecuritySchemes),
    security(("bearer" = []), ("session" = []))
)]
struct ApiDoc;

struct SecuritySchemes;

/// The security scheme of the session cookie (`doc.rs` reads it to tell cookie writes).
pub(crate) const SESSION: &str = "session";

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let bearer = |what: &str| {
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(what))
                    .build(),
            )
        };
        let header = |name: &str, what: &str| {
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(name, what)))
        };
        components.add_security_scheme(
            "bearer",
            bearer("A credential (`svc_…`): machine, sandbox or a browser session's token."),
        );
        components.add_security_scheme(
            SESSION,
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                crate::auth::SESSION_COOKIE,
                "The browser session cookie; writes also need this service's `Origin`.",
            ))),
        );
        components.add_security_scheme(
            "bootstrap",
            bearer("The server's bootstrap secret (`SVC_BOOTSTRAP_SECRET`), for the first user."),
        );
        components.add_security_scheme(
            "statusToken",
            bearer("A hook delivery's `status_token`: posts statuses for one commit of one repo."),
        );
        components.add_security_scheme(
            "hookReadToken",
            bearer(
                "A hook delivery's `read_token`: reads one repo through its `clone_url` \
                 (the git door), not the `/v1` routes.",
            ),
        );
        components.add_security_scheme(
            "ciWebhookToken",
            header(
                "X-Ci-Token",
                "The CI connection's webhook token, sent as itself.",
            ),
        );
        components.add_security_scheme(
            "ciWebhookSignature",
            header(
                "X-Ci-Signature",
                "`timestamp=<t>,signature=<hex>`: HMAC-SHA256 keyed by the CI connection's \
                 webhook token over `<t>.<body>`.",
            ),
        );
    }
}

/// The document as served: `servers` is the server's base URL, which only the running
/// server knows (the committed snapshot holds a placeholder there).
pub fn openapi_for(base_url: &str) -> serde_json::Value {
    let mut doc = openapi().clone();
    doc["servers"] = serde_json::json!([{
        "url": base_url.trim_end_matches('/'),
        "description": "this server (its base URL)"
    }]);
    doc
}

/// Every documented route with its handler.
pub fn api() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health::healthz))
        .routes(routes!(health::openapi_json))
        .routes(routes!(users::create_user))
        .routes(routes!(users::get_user, users::update_user))
        .routes(routes!(credentials::list, credentials::create))
        .routes(routes!(credentials::revoke))
        .routes(routes!(device::start))
        .routes(routes!(device::poll))
        .routes(routes!(device::approve))
        .routes(routes!(session::browser))
        .routes(routes!(session::callback))
        .routes(routes!(session::password))
        .routes(routes!(session::logout))
        .routes(routes!(admin::create, admin::list))
        .routes(routes!(admin::disable))
        .routes(routes!(admin::enable))
        .routes(routes!(monorepos::create, monorepos::list))
        .routes(routes!(
            monorepos::get,
            monorepos::rename,
            monorepos::delete
        ))
        .routes(routes!(members::list))
        .routes(routes!(members::put, members::remove))
        .routes(routes!(members::invite, members::list_invites))
        .routes(routes!(members::revoke_invite))
        .routes(routes!(orgs::create))
        .routes(routes!(orgs::list_mine))
        .routes(routes!(orgs::get, orgs::update))
        .routes(routes!(orgs::list_members))
        .routes(routes!(orgs::put_member, orgs::remove_member))
        .routes(routes!(orgs::invite, orgs::list_invites))
        .routes(routes!(orgs::revoke_invite))
        .routes(routes!(repos::list, repos::create))
        .routes(routes!(repos::get, repos::update))
        .routes(routes!(repos::heads))
        .routes(routes!(imports::create))
        .routes(routes!(imports::get))
        .routes(routes!(imports::bundle))
        .routes(routes!(events::pull))
        .routes(routes!(activity::list))
        .routes(routes!(code::tree))
        .routes(routes!(code::file))
        .routes(routes!(code::history))
        .routes(routes!(code::last_commits))
        .routes(routes!(code::commit))
        .routes(routes!(diff::commit_diff))
        .routes(routes!(statuses::post))
        .routes(routes!(statuses::checks))
        .routes(routes!(branches::list, branches::create))
        .routes(routes!(branches::get, branches::update, branches::delete))
        .routes(routes!(diff::diff))
        .routes(routes!(merge::merge))
        .routes(routes!(changes::get))
        .routes(routes!(changes::merge))
        .routes(routes!(auto_merge::enable, auto_merge::disable))
        .routes(routes!(queue::list))
        .routes(routes!(queue::leave))
        .routes(routes!(reviews::list, reviews::create))
        .routes(routes!(issues::list, issues::create))
        .routes(routes!(issues::get, issues::update))
        .routes(routes!(issues::timeline))
        .routes(routes!(issues::add_comment))
        .routes(routes!(
            issues::get_comment,
            issues::update_comment,
            issues::delete_comment
        ))
        .routes(routes!(issues::add_reaction, issues::remove_reaction))
        .routes(routes!(
            issues::add_comment_reaction,
            issues::remove_comment_reaction
        ))
        .routes(routes!(releases::list, releases::create))
        .routes(routes!(releases::get, releases::update, releases::delete))
        .routes(routes!(releases::publish))
        .routes(routes!(releases::get_notes))
        .routes(routes!(releases::notes_to_be))
        .routes(routes!(
            releases::upload,
            releases::download,
            releases::delete_file
        ))
        .routes(routes!(tags::list))
        .routes(routes!(summary::get))
        .routes(routes!(deployments::list, deployments::create))
        .routes(routes!(labels::list, labels::create))
        .routes(routes!(labels::update, labels::delete))
        .routes(routes!(hooks::list, hooks::create))
        .routes(routes!(hooks::delete))
        .routes(routes!(hooks::deliveries))
        .routes(routes!(hooks::redeliver))
        .routes(routes!(hooks::replay))
        .routes(routes!(agents::models))
        .routes(routes!(agents::launch, agents::list))
        .routes(routes!(agents::get))
        .routes(routes!(agents::transcript))
        .routes(routes!(agents::send))
        .routes(routes!(agents::stop))
        .routes(routes!(agents::live))
        .routes(routes!(agents::review))
        .routes(routes!(agents::new_chat, agents::list_chats))
        .routes(routes!(agents::address_issue))
        .routes(routes!(ci::overview))
        .routes(routes!(ci::connect))
        .routes(routes!(ci::disconnect))
        .routes(routes!(ci::builds))
        .routes(routes!(ci::build))
        .routes(routes!(ci::start))
        .routes(routes!(ci::pipeline))
        .routes(routes!(ci_builds::rebuild))
        .routes(routes!(ci_builds::cancel))
        .routes(routes!(ci_builds::retry))
        .routes(routes!(ci_builds::log))
        .routes(routes!(ci_builds::annotations))
        .routes(routes!(ci_builds::artifacts))
        .routes(routes!(ci_builds::download))
        .routes(routes!(ci_webhook::receive))
        .merge(
            // Files written as a commit come as JSON under the push limit, not the JSON one.
            OpenApiRouter::new()
                .routes(routes!(branches::commits, commit_files::commit_files))
                .layer(axum::extract::DefaultBodyLimit::max(commit_files::BODY_MAX)),
        )
        .merge(
            // Multipart uploads are read under their own limit, not the JSON one.
            OpenApiRouter::new()
                .routes(routes!(artifacts::list, artifacts::add))
                .layer(axum::extract::DefaultBodyLimit::max(
                    crate::artifacts::upload::TOTAL_MAX + crate::artifacts::upload::FRAMING_MAX,
                )),
        )
        .routes(routes!(artifacts::get, artifacts::delete))
        .routes(routes!(artifacts::file))
        .routes(routes!(artifacts::document))
        .routes(routes!(artifact_comments::add))
        .routes(routes!(
            artifact_comments::get,
            artifact_comments::update,
            artifact_comments::delete
        ))
        .routes(routes!(artifact_comments::list))
        .routes(routes!(artifact_comments::branch))
        .routes(routes!(needs::list))
        .routes(routes!(presence::machines))
        .routes(routes!(presence::list))
        .routes(routes!(presence::put, presence::remove))
        .routes(routes!(meta::files))
        .routes(routes!(meta::missing))
        .routes(routes!(meta::put_blob))
        .routes(routes!(meta::save))
        .routes(routes!(meta::history))
}

/// Raw file routes, outside `/v1`.
pub fn raw() -> axum::Router<AppState> {
    axum::Router::new()
        .route(
            "/{owner}/{monorepo}/raw/{*path}",
            axum::routing::get(code::raw_meta),
        )
        .route(
            "/{owner}/{monorepo}/projects/{project}/raw/{*path}",
            axum::routing::get(code::raw_project),
        )
}

/// The OpenAPI document, built once from [`api`] and completed with the shared error
/// statuses ([`doc::complete`]) and its tagged unions' members named
/// ([`doc_unions::name_members`]).
pub fn openapi() -> &'static serde_json::Value {
    static DOC: OnceLock<serde_json::Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let mut doc = serde_json::to_value(api().into_openapi()).unwrap_or_default();
        doc::complete(&mut doc);
        doc_unions::name_members(&mut doc);
        doc
    })
}

/// The module layout: route modules share nothing with each other, and domain modules
/// never reach into routes, so a handler's logic can be found in one file and a
/// domain module reused without the HTTP layer.
#[cfg(test)]
mod layout {
    #![allow(clippy::unwrap_used)]

    use std::path::{Path, PathBuf};

    fn src() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
    }

    /// The `.rs` files under `dir`, at any depth.
    fn rust_files(dir: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.extend(rust_files(&path));
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
        files
    }

    /// The first segment of each path `text` names after `super::`, looking into
    /// `{...}` groups: `use super::{a::b, c}` names `a` and `c`.
    fn after_super(text: &str) -> Vec<String> {
        let ident = |s: &str| -> String {
            s.trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        let mut names = Vec::new();
        for (at, _) in text.match_indices("super::") {
            let rest = &text[at + "super::".len()..];
            match rest.strip_prefix('{') {
                Some(group) => {
                    let group = &group[..group.find('}').unwrap_or(group.len())];
                    names.extend(group.split(',').map(ident));
                }
                None => names.push(ident(rest)),
            }
        }
        names
    }

    #[test]
    fn route_modules_import_no_sibling() {
        let dir = src().join("routes");
        let files = rust_files(&dir);
        let modules: Vec<String> = files
            .iter()
            .filter_map(|f| f.file_stem()?.to_str().map(str::to_owned))
            .filter(|m| m != "mod")
            .collect();
        assert!(modules.len() > 5, "no route modules in {}", dir.display());
        let mut found = Vec::new();
        for file in files.iter().filter(|f| !f.ends_with("mod.rs")) {
            let text = std::fs::read_to_string(file).unwrap();
            let name = file.file_name().unwrap().to_string_lossy();
            for sibling in after_super(&text) {
                if modules.contains(&sibling) {
                    found.push(format!("{name}: super::{sibling}"));
                }
            }
            if text.contains("crate::routes") {
                found.push(format!("{name}: crate::routes"));
            }
        }
        assert!(
            found.is_empty(),
            "route modules import siblings (shared helpers belong in domain modules): {found:?}"
        );
    }

    #[test]
    fn only_the_router_reaches_into_routes() {
        let root = src();
        let mut found = Vec::new();
        for file in rust_files(&root) {
            let relative = file
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            // The web's pages answer through the API's own handlers, so a page and the
            // route it shows never disagree; lib.rs names a cursor parser for the fuzz
            // targets (`fuzzing`).
            if relative.starts_with("routes")
                || relative.starts_with("web")
                || relative == "app.rs"
                || relative == "lib.rs"
                || relative == "router.rs"
            {
                continue;
            }
            if std::fs::read_to_string(&file)
                .unwrap()
                .contains("crate::routes")
            {
                found.push(relative);
            }
        }
        assert!(
            found.is_empty(),
            "modules outside routes/ use crate::routes (only app.rs, router.rs and web/ may): {found:?}"
        );
    }
}
