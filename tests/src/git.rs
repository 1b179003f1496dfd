//! The real git client in a sealed environment: its own HOME and global config, pinned
//! identities and dates, and a credential helper that answers one token.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Git {
    pub home: tempfile::TempDir,
}

impl Git {
    /// A sealed git whose credential helper answers `token` (any user name).
    pub fn new(token: &str) -> Git {
        let home = tempfile::tempdir().expect("temp home");
        let token_file = home.path().join("token");
        std::fs::write(&token_file, token).expect("token file");
        let helper = format!(
            "!f() {{ test \"$1\" = get && echo username=svc && echo password=$(cat '{}'); }}; f",
            token_file.display()
        );
        let config = format!(
            "[user]\n\tname = Test Person\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n\
             [credential]\n\thelper = \"{}\"\n[advice]\n\tdetachedHead = false\n",
            helper.replace('\\', "\\\\").replace('"', "\\\"")
        );
        std::fs::write(home.path().join(".gitconfig"), config).expect("gitconfig");
        Git { home }
    }

    /// Makes this git answer another token from now on.
    pub fn set_token(&self, token: &str) {
        std::fs::write(self.home.path().join("token"), token).expect("token file");
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.home.path().join(name)
    }

    pub fn command(&self, dir: &Path) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("GIT_CONFIG_GLOBAL", self.home.path().join(".gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
            .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z");
        cmd
    }

    /// Runs git in `dir`; answers its output whatever the exit status.
    pub fn run(&self, dir: &Path, args: &[&str]) -> Output {
        self.command(dir).args(args).output().expect("git runs")
    }

    /// Runs git in `dir` and insists that it succeeds; answers stdout.
    pub fn ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.run(dir, args);
        assert!(
            out.status.success(),
            "git {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Writes `files` (path, content) under `dir` and commits them all.
    pub fn commit(&self, dir: &Path, message: &str, files: &[(&str, &[u8])]) -> String {
        for (path, content) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            std::fs::write(file, content).expect("write");
        }
        self.ok(dir, &["add", "-A"]);
        self.ok(dir, &["commit", "-q", "-m", message]);
        self.ok(dir, &["rev-parse", "HEAD"]).trim().to_owned()
    }
}

/// Both halves of a failed command's output, for asserting on git's messages.
pub fn all_output(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
