//! svc-server: monorepo hosting and collaboration.

pub mod accounts;
pub mod agents;
pub mod app;
pub mod artifacts;
pub mod auth;
pub mod authz;
pub mod auto_merge;
pub mod branches;
pub mod cache;
pub mod changes;
pub mod checks;
pub mod ci;
pub mod config;
pub mod connections;
pub mod crash;
pub mod credential_cache;
pub mod error;
pub mod extract;
pub mod facts;
pub mod feed;
pub mod git;
pub mod hooks;
pub mod imports;
pub mod issues;
pub mod live;
pub mod login_rule;
pub mod maintenance;
pub mod member_events;
pub mod merge_queue;
pub mod merging;
pub mod middleware;
pub mod names;
pub mod needs;
pub mod oidc;
pub mod paths;
pub mod people;
pub mod pokes;
pub mod presence;
pub mod queued_changes;
pub mod rate_limit;
pub mod releases;
pub mod repo_lock;
pub mod router;
pub mod routes;
pub mod search;
pub mod served;
pub mod socket_gate;
pub mod state;
pub mod store;
pub mod suggest;
pub mod token;
pub mod views;
pub mod web;

pub use app::launch;
pub use config::Config;
pub use state::AppState;

/// What the fuzz targets in `fuzz/` reach that is not public otherwise; not an API.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::git::pkt::{FLUSH, PushHead, RefUpdate, line, read_push_head, refusal};
    pub use crate::git::read::walk::{history_cursor, parse_history_cursor};
    pub use crate::routes::branches::parse_cursor;
    pub use crate::web::markdown::to_html as markdown_to_html;
}
