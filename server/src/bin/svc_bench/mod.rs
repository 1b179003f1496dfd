//! The modules of `svc-bench`: one per benchmark, and what they share.

pub mod agent_start;
pub mod agents;
pub mod artifacts;
pub mod auth;
pub mod branch_diff;
pub mod branches;
pub mod change_merge;
pub mod ci_webhooks;
pub mod common;
pub mod daemon;
pub mod diff_engine;
pub mod door;
pub mod door_fixed;
pub mod events;
pub mod far_merge;
pub mod hooks;
pub mod issues;
pub mod last_commits;
pub mod merge_queue;
pub mod org_access;
pub mod real_repo;
pub mod releases;
pub mod soak;
pub mod stand_in_buildkite;
pub mod web;
