//! The per-machine svc daemon, run by `svc daemon`: it reports worktrees (presence),
//! follows every repo's `main` and syncs the meta layer. Built in its own issue.
