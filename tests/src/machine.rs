//! A sealed "machine" for the real `svc` binary: its own HOME, config dir and global git
//! config, no D-Bus session, pinned git identities and dates.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::workspace_bin;

pub struct Machine {
    pub home: tempfile::TempDir,
}

impl Default for Machine {
    fn default() -> Self {
        Self::new()
    }
}

impl Machine {
    pub fn new() -> Machine {
        let home = tempfile::tempdir().expect("temp home");
        std::fs::write(
            home.path().join(".gitconfig"),
            "[user]\n\tname = Test Person\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n",
        )
        .expect("gitconfig");
        Machine { home }
    }

    pub fn config_dir(&self) -> PathBuf {
        self.home.path().join("config")
    }

    fn seal(&self, cmd: &mut Command, dir: &Path) {
        cmd.current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("SVC_CONFIG_DIR", self.config_dir())
            .env("GIT_CONFIG_GLOBAL", self.home.path().join(".gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
            .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z");
    }

    /// `svc` with `args`, run in the machine's HOME.
    pub fn svc(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(workspace_bin("svc"));
        self.seal(&mut cmd, self.home.path());
        cmd.args(args);
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.svc(args).output().expect("svc runs")
    }

    /// Runs `svc`, insisting on success; answers stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "svc {args:?} failed: {}",
            crate::git::all_output(&out)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs `git` in `dir` on this machine, insisting on success; answers stdout.
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        self.git_env(dir, &[], args)
    }

    /// `git` as `git` does, with `env` set too (e.g. `SVC_AGENT` for the commit hook).
    pub fn git_env(&self, dir: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
        let mut cmd = Command::new("git");
        self.seal(&mut cmd, dir);
        cmd.envs(env.iter().copied());
        let out = cmd.args(args).output().expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            crate::git::all_output(&out)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}
