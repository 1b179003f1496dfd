//! Agent sessions: coding agents run as their user, and their transcripts.

pub mod checkout;
pub mod format;
pub mod live;
pub mod network;
pub mod run;
pub mod scope;
pub mod secrets;
pub mod sessions;
pub mod settings;
pub mod supervise;

pub use supervise::Agents;

/// Whether a stored session state is one in which a run is going (or about to).
pub fn is_live(state: &str) -> bool {
    svc_protocol::agent::SessionState::parse(state).is_some_and(|s| s.is_live())
}
