//! Keeping one follower per cloned monorepo, and the meta syncs of its clones, in step
//! with the registries in the config dir.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

use svc_protocol::daemon::{Connection, Followed};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::meta::{Meta, Nudge};
use crate::watch::Seen;
use crate::{MetaClone, Options, Shared, follow, registry};

/// A follower task and what it was started with.
struct Running {
    paths: Vec<String>,
    worktrees: watch::Sender<Vec<String>>,
    task: JoinHandle<()>,
}

/// Keeps one follower per cloned monorepo, and the meta syncs of its clones, in step
/// with the registries.
pub struct Supervisor {
    options: Options,
    http: reqwest::Client,
    shared: Shared,
    pub meta: Meta,
    /// Given to each follower, for the meta syncs.
    nudges: mpsc::UnboundedSender<Nudge>,
    running: BTreeMap<String, Running>,
    /// The registries' modification times at the last scan: unchanged files are not
    /// read again.
    seen: Option<[Option<SystemTime>; 2]>,
}

/// What a scan of the registries wants followed: by `<server> <monorepo_id>`.
#[derive(Default)]
struct Wanted {
    server: String,
    monorepo: String,
    monorepo_id: String,
    paths: Vec<String>,
    worktrees: Vec<String>,
}

impl Supervisor {
    pub fn new(
        options: Options,
        http: reqwest::Client,
        shared: Shared,
        meta: Meta,
        nudges: mpsc::UnboundedSender<Nudge>,
    ) -> Supervisor {
        Supervisor {
            options,
            http,
            shared,
            meta,
            nudges,
            running: BTreeMap::new(),
            seen: None,
        }
    }

    /// Routes what the watches saw: a registry changed, or a file under a `.svc/`.
    pub fn seen(&mut self, seen: Seen) {
        match seen {
            Seen::Rescan => {
                self.scan(true);
                self.meta.rescan();
            }
            Seen::Paths(paths) => {
                let mut registries = false;
                for path in paths {
                    let in_config = path.parent() == Some(self.options.config_dir.as_path());
                    let name = path.file_name().and_then(|n| n.to_str());
                    if in_config && matches!(name, Some(registry::CLONES | registry::WORKTREES)) {
                        registries = true;
                    } else {
                        self.meta.changed(&path);
                    }
                }
                if registries {
                    self.scan(true);
                }
            }
        }
    }

    /// Stops every follower.
    pub fn stop(&mut self) {
        for (_, running) in std::mem::take(&mut self.running) {
            running.task.abort();
        }
    }

    /// Re-reads the registries when they changed (or when `force`d) and starts, stops or
    /// re-hellos followers to match.
    pub fn scan(&mut self, force: bool) {
        let dir = &self.options.config_dir;
        let stamps = [registry::CLONES, registry::WORKTREES].map(|name| {
            std::fs::metadata(dir.join(name))
                .and_then(|m| m.modified())
                .ok()
        });
        if !force && self.seen == Some(stamps) {
            return;
        }
        self.seen = Some(stamps);
        let clones: registry::Clones =
            match registry::load(&self.options.config_dir.join(registry::CLONES)) {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!("{e}");
                    return;
                }
            };
        let worktrees: registry::Worktrees =
            match registry::load(&self.options.config_dir.join(registry::WORKTREES)) {
                Ok(w) => w,
                Err(e) => {
                    tracing::warn!("{e}");
                    registry::Worktrees::default()
                }
            };
        let mut wanted: BTreeMap<String, Wanted> = BTreeMap::new();
        for (path, clone) in clones.clones {
            let w = wanted
                .entry(format!("{} {}", clone.server, clone.monorepo_id))
                .or_default();
            w.server = clone.server;
            w.monorepo = clone.monorepo;
            w.monorepo_id = clone.monorepo_id;
            w.paths.push(path);
        }
        for (id, wt) in worktrees.worktrees {
            if let Some(w) = wanted.get_mut(&format!("{} {}", wt.server, wt.monorepo_id)) {
                w.worktrees.push(id);
            }
        }
        self.meta.set_clones(
            wanted
                .iter()
                .flat_map(|(key, w)| {
                    w.paths.iter().map(|path| {
                        let clone = MetaClone {
                            server: w.server.clone(),
                            monorepo: w.monorepo.clone(),
                            path: PathBuf::from(path),
                        };
                        (key.clone(), clone)
                    })
                })
                .collect(),
        );
        // Gone, or cloned elsewhere: stop (and maybe restart below).
        let stale: Vec<String> = self
            .running
            .iter()
            .filter(|(key, r)| wanted.get(*key).is_none_or(|w| w.paths != r.paths))
            .map(|(key, _)| key.clone())
            .collect();
        for key in stale {
            if let Some(running) = self.running.remove(&key) {
                running.task.abort();
            }
            if let Ok(mut state) = self.shared.lock() {
                state.followed.remove(&key);
            }
        }
        for (key, w) in wanted {
            if let Some(running) = self.running.get(&key) {
                running.worktrees.send_if_modified(|ids| {
                    let changed = *ids != w.worktrees;
                    ids.clone_from(&w.worktrees);
                    changed
                });
                continue;
            }
            tracing::info!(monorepo = %w.monorepo, server = %w.server, "following");
            if let Ok(mut state) = self.shared.lock() {
                state.followed.insert(
                    key.clone(),
                    Followed {
                        server: w.server.clone(),
                        monorepo: w.monorepo.clone(),
                        monorepo_id: w.monorepo_id.clone(),
                        paths: w.paths.clone(),
                        connection: Connection::Connecting,
                        seq: None,
                        last_main_move: None,
                        held: Vec::new(),
                        laid_out: Vec::new(),
                        error: None,
                        worktrees: w.worktrees.clone(),
                        syncs: Vec::new(),
                    },
                );
            }
            let (tx, rx) = watch::channel(w.worktrees);
            let follower = follow::Follower {
                server: w.server,
                monorepo: w.monorepo,
                key: key.clone(),
                paths: w.paths.iter().map(PathBuf::from).collect(),
                machine: self.options.machine.clone(),
                worktrees: rx,
                shared: self.shared.clone(),
                token: self.options.token.clone(),
                http: self.http.clone(),
                meta: self.nudges.clone(),
            };
            let task = tokio::spawn(follower.run());
            self.running.insert(
                key,
                Running {
                    paths: w.paths,
                    worktrees: tx,
                    task,
                },
            );
        }
    }
}
