//! The committed completion scripts must match what `svc completions` prints.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::path::Path;
use std::process::Command;

#[test]
fn committed_completions_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../completions");
    for (shell, file) in [("bash", "svc.bash"), ("zsh", "_svc"), ("fish", "svc.fish")] {
        let out = Command::new(env!("CARGO_BIN_EXE_svc"))
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
