//! The per-machine svc daemon, run by `svc daemon run`: follows every monorepo cloned on
//! the machine (one event socket each), keeps each repo's main checkout at main and each
//! clone's `.svc/` in sync with the meta layer, says hello with the machine's branch
//! worktrees, and answers the CLI on a Unix socket.
//!
//! One runtime thread: the daemon mostly waits, so it stays small (idle RSS). Files are
//! watched with notify; a slow rescan is the fallback.

mod control;
mod follow;
mod git;
mod meta;
pub mod registry;
mod supervisor;
mod watch;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use svc_protocol::daemon::{Followed, MetaChanges};
use tokio::sync::{mpsc, watch as state};

/// Answers the token for a server (`None` when not signed in), asked on every connect
/// so a new login is picked up.
pub type TokenSource = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// A clone whose `.svc/` is synced with its monorepo's meta layer.
#[derive(Debug, Clone)]
pub struct MetaClone {
    pub server: String,
    /// `<owner>/<name>`.
    pub monorepo: String,
    /// The clone (its `.svc/` is synced).
    pub path: PathBuf,
}

/// Syncs a clone's `.svc/` (what `svc sync` does): what changed, or why it failed. It
/// blocks, so the daemon runs it on a blocking thread.
pub type MetaSync = Arc<dyn Fn(&MetaClone) -> Result<MetaChanges, String> + Send + Sync>;

/// Where the daemon keeps its files and who it is.
pub struct Options {
    /// The CLI's config dir: `clones.toml`, `worktrees.toml`.
    pub config_dir: PathBuf,
    /// The daemon's own files: lock, control socket, log.
    pub data_dir: PathBuf,
    /// This machine's name in hellos.
    pub machine: String,
    pub token: TokenSource,
    pub meta_sync: MetaSync,
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

/// How often the registries' modification times are checked and lost watches set up
/// again: the fallback for notify (the CLI also nudges the daemon over the control
/// socket when it changes a registry).
const RESCAN_EVERY: Duration = Duration::from_secs(60);

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
        // The server closes a kept-alive connection idle for its header timeout (10 s
        // by default): one idle half that is not reused, so no request goes out on a
        // connection the server is closing.
        .pool_idle_timeout(Duration::from_secs(5))
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
    let (stop_tx, mut stop_rx) = state::channel(false);
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

    let (seen_tx, mut seen_rx) = mpsc::unbounded_channel();
    let mut files = watch::Watch::new(seen_tx);
    // The registries are written by renaming over them: watch their folder.
    let _ = std::fs::create_dir_all(&options.config_dir);
    files.add(&options.config_dir, false);
    let (nudge_tx, mut nudge_rx) = mpsc::unbounded_channel();
    let meta = meta::Meta::new(options.meta_sync.clone(), shared.clone(), files);
    let mut supervisor = supervisor::Supervisor::new(options, http, shared, meta, nudge_tx);
    let mut rescan = tokio::time::interval(RESCAN_EVERY);
    rescan.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        let due = supervisor.meta.due();
        let busy = supervisor.meta.busy();
        tokio::select! {
            _ = rescan.tick() => {
                supervisor.scan(false);
                supervisor.meta.rewatch();
            }
            () = reload.notified() => supervisor.scan(true),
            Some(seen) = seen_rx.recv() => supervisor.seen(seen),
            Some(nudge) = nudge_rx.recv() => supervisor.meta.nudge(nudge),
            () = supervisor.meta.finished(), if busy => {}
            () = tokio::time::sleep_until(due.unwrap_or_else(tokio::time::Instant::now)), if due.is_some() => {
                supervisor.meta.run_due();
            }
            _ = stop_rx.changed() => break,
            () = &mut shutdown => break,
        }
    }
    tracing::info!("daemon stopping");
    supervisor.stop();
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
