//! svc-server: monorepo hosting and collaboration.

pub mod accounts;
pub mod app;
pub mod auth;
pub mod authz;
pub mod cache;
pub mod checks;
pub mod config;
pub mod credential_cache;
pub mod error;
pub mod extract;
pub mod facts;
pub mod feed;
pub mod git;
pub mod issues;
pub mod live;
pub mod login_rule;
pub mod middleware;
pub mod names;
pub mod needs;
pub mod oidc;
pub mod paths;
pub mod presence;
pub mod router;
pub mod routes;
pub mod search;
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
