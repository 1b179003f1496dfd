//! The git layer: in-process reads with gix, and the smart-HTTP door.

pub mod advertise;
pub mod branch_name;
pub mod child;
pub mod diff;
pub mod door;
pub mod import;
pub mod last_commits;
pub mod maintain;
pub mod merge;
pub mod meta;
pub mod open_repos;
pub(crate) mod pkt;
pub mod push_options;
pub mod read;
pub mod record;
pub mod spool;
pub mod storage;
pub mod tags;
pub mod write;
