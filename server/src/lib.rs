//! svc-server: monorepo hosting and collaboration.

pub mod accounts;
pub mod app;
pub mod auth;
pub mod authz;
pub mod checks;
pub mod config;
pub mod credential_cache;
pub mod error;
pub mod extract;
pub mod facts;
pub mod feed;
pub mod git;
pub mod live;
pub mod login_rule;
pub mod names;
pub mod needs;
pub mod oidc;
pub mod paths;
pub mod presence;
pub mod routes;
pub mod socket_gate;
pub mod store;
pub mod suggest;
pub mod token;
pub mod views;
pub mod web;

pub use app::{AppState, launch};
pub use config::Config;
