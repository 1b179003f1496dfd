//! The MCP clients' own tools from npm (ajv, MCP Inspector) and axe-core, installed by
//! `.ci/mcp-clients.sh`. A machine without them fails these tests with the fix, unless
//! `SVC_TEST_NO_NODE_TOOLS=1` says it runs without them on purpose.

use std::path::PathBuf;

/// Where `.ci/mcp-clients.sh` installs: `$SVC_NPM_TOOLS_DIR`, else `target/npm-tools`.
pub struct NpmTools {
    pub dir: PathBuf,
}

impl NpmTools {
    /// The installed tools; `None` (the caller skips) only when `SVC_TEST_NO_NODE_TOOLS=1`.
    pub fn find() -> Option<NpmTools> {
        if std::env::var_os("SVC_TEST_NO_NODE_TOOLS").is_some_and(|v| v == "1") {
            eprintln!(
                "SVC_TEST_NO_NODE_TOOLS=1: skipping a test that needs node, ajv and MCP Inspector"
            );
            return None;
        }
        let dir = match std::env::var_os("SVC_NPM_TOOLS_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => {
                let exe = std::env::current_exe().expect("test binary path");
                // target/debug/deps/all-<hash> → target
                let target = exe
                    .ancestors()
                    .nth(3)
                    .expect("the target dir")
                    .to_path_buf();
                target.join("npm-tools")
            }
        };
        let node = std::process::Command::new("node").arg("--version").output();
        assert!(
            node.is_ok_and(|o| o.status.success()),
            "this test needs node on PATH (Debian: apt-get install -y nodejs npm); \
             set SVC_TEST_NO_NODE_TOOLS=1 to skip the MCP client tests instead"
        );
        let tools = NpmTools { dir };
        assert!(
            tools.dir.join("node_modules/ajv/package.json").exists() && tools.inspector().exists(),
            "this test needs ajv and MCP Inspector in {}: run .ci/mcp-clients.sh \
             (or set SVC_NPM_TOOLS_DIR to where it installed them); \
             set SVC_TEST_NO_NODE_TOOLS=1 to skip the MCP client tests instead",
            tools.dir.display()
        );
        Some(tools)
    }

    /// MCP Inspector's launcher (`--cli` for its command line).
    pub fn inspector(&self) -> PathBuf {
        self.dir.join("node_modules/.bin/mcp-inspector")
    }
}
