//! The committed completion scripts must match what `svc completions` prints.

use std::path::Path;
use std::process::Command;

use svc_tests::workspace_bin;

#[test]
fn committed_completions_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../completions");
    for (shell, file) in [("bash", "svc.bash"), ("zsh", "_svc"), ("fish", "svc.fish")] {
        let out = Command::new(workspace_bin("svc"))
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success());
        let committed = std::fs::read(dir.join(file)).unwrap_or_default();
        assert!(
            committed == out.stdout,
            "completions/{file} is stale: run `cargo run -p svc-cli -- completions {shell} > completions/{file}`"
        );
    }
}
