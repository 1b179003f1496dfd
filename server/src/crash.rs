//! Crash points: named places inside a change where a server built with the
//! `crash-points` feature kills itself with SIGKILL when `SVC_CRASH_AT` names the place,
//! so the end-to-end tests can prove that dying there half-lands nothing (git and the
//! database agree after the restart, no event is missing, no delivery is lost). The
//! test crate turns the feature on for the workspace's debug binaries; a server built on
//! its own (`cargo build -p svc-server`, the release build) has none and the calls are
//! empty.

/// Dies here, at once and without unwinding or flushing anything, when this build has
/// crash points and `SVC_CRASH_AT` is `name`.
#[cfg(feature = "crash-points")]
pub fn point(name: &str) {
    static AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let at = AT.get_or_init(|| std::env::var("SVC_CRASH_AT").ok());
    if at.as_deref() == Some(name) {
        #[cfg(target_os = "linux")]
        let _ =
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
        std::process::abort();
    }
}

/// No crash points in this build.
#[cfg(not(feature = "crash-points"))]
#[inline(always)]
pub fn point(_name: &str) {}
