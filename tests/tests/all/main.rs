//! The end-to-end tests, as one test binary with one module per file.
//!
//! One binary rather than one per file: the harness and every dependency are linked once
//! instead of once per file (a change to the harness relinked all of them), and the
//! tests of all files share one run, so every test thread stays busy to the end. A filter
//! picks one file: `cargo test -p svc-tests --test all cli::`.
//!
//! The price is one process: state of the process (environment, current dir, globals)
//! is shared by every test, so a test may only read it, and the harness installs
//! process-wide things (the TLS crypto provider) idempotently.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

mod activity;
mod agent_confinement;
mod agent_runner_env;
mod agents;
mod api_basics;
mod artifacts;
mod authz_matrix;
mod auto_merge;
mod branches;
mod browser;
mod changes;
mod ci;
mod ci_builds;
mod cli;
mod cli_agents;
mod cli_artifacts;
mod cli_branches;
mod cli_ci;
mod cli_gh;
mod cli_hooks;
mod cli_issues;
mod cli_orgs;
mod cli_output;
mod cli_releases;
mod code;
mod commit_files;
mod completions;
mod crashes;
mod daemon;
mod daemon_meta;
mod device_flow;
mod diffs;
mod door_partial;
mod door_refs;
mod events;
mod git_door;
mod hooks;
mod identity;
mod import;
mod issues;
mod maintenance;
mod mcp;
mod mcp_clients;
mod mcp_toolsets;
mod merge_queue;
mod merge_speed;
mod meta_sync;
mod monorepos;
mod needs;
mod org_access;
mod orgs;
mod people;
mod presence;
mod rate_limits;
mod readme;
mod real_agents;
mod releases;
mod server_binary;
mod slow_clients;
mod two_servers;
mod web_agents;
mod web_axe;
mod web_branch;
mod web_branches;
mod web_browser;
mod web_ci;
mod web_code;
mod web_forms;
mod web_home;
mod web_issues;
mod web_orgs;
mod web_person;
mod web_settings;

/// Checks on the layout of the test files themselves.
mod layout {
    use std::collections::BTreeSet;
    use std::path::Path;

    /// The modules `main.rs` declares, read from its source as compiled.
    fn declared() -> BTreeSet<String> {
        include_str!("main.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
            .map(str::to_owned)
            .collect()
    }

    /// The `.rs` files directly in `dir`, without their extension.
    fn rust_files(dir: &Path) -> BTreeSet<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "rs"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    /// A file here that `main.rs` does not declare is never compiled, so its tests would
    /// silently not run.
    #[test]
    fn every_file_is_a_declared_module() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/all");
        let mut files = rust_files(&dir);
        files.remove("main");
        let declared = declared();
        let forgotten: Vec<_> = files.difference(&declared).collect();
        assert!(
            forgotten.is_empty(),
            "tests/tests/all/main.rs does not declare {forgotten:?}: add `mod <name>;` for each"
        );
    }

    /// A file directly in `tests/tests/` would build as a test binary of its own.
    #[test]
    fn no_test_file_outside_the_one_binary() {
        let strays = rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"));
        assert!(
            strays.is_empty(),
            "move {strays:?} into tests/tests/all/ and declare each in main.rs"
        );
    }
}
