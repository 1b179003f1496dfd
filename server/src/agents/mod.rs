//! Agent sessions: coding agents run as their user, and their transcripts.

pub mod format;
pub mod run;
pub mod settings;
