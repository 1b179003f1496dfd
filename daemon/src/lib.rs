//! The per-machine svc daemon, run by `svc daemon run`: follows every monorepo cloned on
//! the machine (one event socket each), keeps each repo's main checkout at main, says
//! hello with the machine's branch worktrees, and answers the CLI on a Unix socket.
//!
//! One runtime thread: the daemon mostly waits, so it stays small (idle RSS, no polling
//! loop faster than the registry rescan).

mod control;
mod follow;
mod git;
pub mod registry;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use svc_protocol::daemon::{Connection, Followed};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Answers the token for a server (`None` when not signed in), asked on every connect
/// so a new login is picked up.
pub type TokenSource = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Where the daemon keeps its files and who it is.
pub struct Options {
    /// The CLI's config dir: `clones.toml`, `worktrees.toml`.
    pub config_dir: PathBuf,
    /// The daemon's own files: lock, control socket, log.
    pub data_dir: PathBuf,
    /// This machine's name in hellos.
    pub machine: String,
    pub token: TokenSource,
}

#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("the svc daemon is already running for {0} (pid {1})")]
    AlreadyRunning(String, String),
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    #[error("cannot set up HTTP: {0}")]
    Http(#[from] reqwest::Error),
}

/// The lock file, the control socket and the log, under the data dir.
pub fn lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join("daemon.lock")
}
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join("daemon.sock")
}
pub fn log_path(data_dir: &Path) -> PathBuf {
    data_dir.join("daemon.log")
}

/// How often the registries' modification times are checked (the CLI also nudges the
/// daemon over the control socket when it changes them).
const RESCAN_EVERY: Duration = Duration::from_secs(2);

/// What the followers report, read by `status`.
pub(crate) struct State {
    pub followed: BTreeMap<String, Followed>,
}
pub(crate) type Shared = Arc<Mutex<State>>;

/// Runs the daemon until asked to stop (or killed). Holds the lock file for its life.
pub fn run(options: Options) -> Result<(), DaemonError> {
    let io = |what: &Path| {
        let what = what.display().to_string();
        move |e| DaemonError::Io(what, e)
    };
    std::fs::create_dir_all(&options.data_dir).map_err(io(&options.data_dir))?;
    let lock_file = lock_path(&options.data_dir);
    let mut lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_file)
        .map_err(io(&lock_file))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let pid = std::fs::read_to_string(&lock_file).unwrap_or_default();
            return Err(DaemonError::AlreadyRunning(
                options.data_dir.display().to_string(),
                pid.trim().to_owned(),
            ));
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io(&lock_file)(e)),
    }
    {
        use std::io::Write;
        lock.set_len(0).map_err(io(&lock_file))?;
        write!(lock, "{}", std::process::id()).map_err(io(&lock_file))?;
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(60))
        .user_agent(concat!("svc-daemon/", env!("CARGO_PKG_VERSION")))
        .build()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(io(Path::new("the runtime")))?;
    let result = runtime.block_on(serve(options, http));
    drop(lock);
    result
}

async fn serve(options: Options, http: reqwest::Client) -> Result<(), DaemonError> {
    let socket = socket_path(&options.data_dir);
    // The lock is ours, so a socket file left there is a dead daemon's.
    let _ = std::fs::remove_file(&socket);
    let listener = tokio::net::UnixListener::bind(&socket)
        .map_err(|e| DaemonError::Io(socket.display().to_string(), e))?;
    let shared: Shared = Arc::new(Mutex::new(State {
        followed: BTreeMap::new(),
    }));
    let (stop_tx, mut stop_rx) = watch::channel(false);
    let reload = Arc::new(tokio::sync::Notify::new());
    let context = control::Context {
        shared: shared.clone(),
        started: SystemTime::now(),
        machine: options.machine.clone(),
        stop: stop_tx,
        reload: reload.clone(),
    };
    tracing::info!(pid = std::process::id(), machine = %options.machine, "daemon started");
    let accept = tokio::spawn(control::accept(listener, context));
    let mut supervisor = Supervisor {
        options,
        http,
        shared,
        running: BTreeMap::new(),
        seen: None,
    };
    let mut rescan = tokio::time::interval(RESCAN_EVERY);
    rescan.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = rescan.tick() => supervisor.scan(false),
            () = reload.notified() => supervisor.scan(true),
            _ = stop_rx.changed() => break,
            _ = shutdown_signal() => break,
        }
    }
    tracing::info!("daemon stopping");
    for (_, running) in std::mem::take(&mut supervisor.running) {
        running.task.abort();
    }
    // Let the `stopping` answer go out before the process ends.
    tokio::time::sleep(Duration::from_millis(50)).await;
    accept.abort();
    let _ = std::fs::remove_file(&socket);
    Ok(())
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        _ => std::future::pending().await,
    }
}

/// A follower task and what it was started with.
struct Running {
    paths: Vec<String>,
    worktrees: watch::Sender<Vec<String>>,
    task: JoinHandle<()>,
}

/// Keeps one follower per cloned monorepo, in step with the registries.
struct Supervisor {
    options: Options,
    http: reqwest::Client,
    shared: Shared,
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
    /// Re-reads the registries when they changed (or when `force`d) and starts, stops or
    /// re-hellos followers to match.
    fn scan(&mut self, force: bool) {
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
                        error: None,
                        worktrees: w.worktrees.clone(),
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

/// Sends the logs to `daemon.log` under the data dir (`SVC_LOG` filters, default info).
pub fn init_logging(data_dir: &Path) -> Result<(), DaemonError> {
    std::fs::create_dir_all(data_dir)
        .map_err(|e| DaemonError::Io(data_dir.display().to_string(), e))?;
    let path = log_path(data_dir);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| DaemonError::Io(path.display().to_string(), e))?;
    let filter = tracing_subscriber::EnvFilter::try_from_env("SVC_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init();
    Ok(())
}
