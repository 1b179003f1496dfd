//! A sealed machine with one monorepo cloned and its own `svc daemon run`, for the
//! daemon tests.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::KillOnDrop;
use crate::git::all_output;
use crate::machine::Machine;

/// A hang guard for `until`, not a measurement.
pub const WAIT: Duration = Duration::from_secs(20);

pub struct Laptop {
    pub m: Machine,
    env: Vec<(&'static str, String)>,
    pub daemon: Option<KillOnDrop>,
}

impl Laptop {
    /// A machine called `name` signed in to `server` with `token`, with `monorepo`
    /// (`<owner>/<name>`) cloned into its HOME.
    pub fn new(server: &str, token: &str, name: &str, monorepo: &str) -> Laptop {
        let laptop = Laptop {
            m: Machine::new(),
            env: vec![
                ("SVC_TOKEN", token.to_owned()),
                ("SVC_SERVER", server.to_owned()),
                ("SVC_MACHINE", name.to_owned()),
            ],
            daemon: None,
        };
        let out = laptop.svc(&["clone", monorepo]);
        assert!(out.status.success(), "{}", all_output(&out));
        laptop
    }

    /// `svc` with `args` on this machine.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = self.m.svc(args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    pub fn svc(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("svc runs")
    }

    /// Starts `svc daemon run`, killed when the laptop is dropped.
    pub fn start(&mut self) {
        let child = self
            .command(&["daemon", "run"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("svc daemon run starts");
        self.daemon = Some(KillOnDrop(child));
    }

    /// A path in the machine's HOME (the clone is `<HOME>/<name>`).
    pub fn path(&self, rel: &str) -> PathBuf {
        self.m.home.path().join(rel)
    }

    /// `svc daemon status --json`, or None before the daemon answers.
    pub fn status(&self) -> Option<Value> {
        let out = self.svc(&["daemon", "status", "--json"]);
        assert!(out.status.success(), "{}", all_output(&out));
        let v: Value = serde_json::from_slice(&out.stdout).expect("status is JSON");
        v["running"].as_bool().unwrap_or(false).then_some(v)
    }

    /// The daemon's status of `monorepo`, when it follows it.
    pub fn followed(&self, monorepo: &str) -> Option<Value> {
        self.status()?["monorepos"]
            .as_array()?
            .iter()
            .find(|m| m["monorepo"] == monorepo)
            .cloned()
    }

    /// True when the daemon's socket for `monorepo` is connected.
    pub fn connected(&self, monorepo: &str) -> bool {
        self.followed(monorepo)
            .is_some_and(|m| m["connection"] == "connected")
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.path(".local/share/svc/daemon/daemon.log")).unwrap_or_default()
    }
}

/// Polls `check` until it holds, failing with `what` after `WAIT`.
pub async fn until(what: &str, mut check: impl FnMut() -> bool) {
    until_within(WAIT, what, &mut check).await;
}

/// Polls `check` until it holds, failing with `what` after `limit`.
pub async fn until_within(limit: Duration, what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
