//! Git children die with the server: a `kill -9` of the server must not leave a
//! `git receive-pack` running that lands refs after the restart has reconciled git and
//! the database.

use std::path::Path;

use tokio::process::Command;

/// A git over the server's own bare repository `dir`, sealed: none of the machine's
/// configuration (system, global), no hooks, no terminal prompt, only `PATH` from the
/// server's environment, and dying with the server. Every git the server runs over its
/// repositories starts here; callers add arguments and set the standard streams.
pub fn sealed_git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("--git-dir")
        .arg(dir)
        .args(["-c", "core.hooksPath=/dev/null"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0");
    dies_with_server(&mut cmd);
    cmd
}

/// Makes `cmd`'s process die with this one: dropped with its future (`kill_on_drop`),
/// and killed by the kernel when the server dies, however it dies (`PR_SET_PDEATHSIG`).
///
/// The death signal follows the thread that spawns: spawn from async code (the
/// runtime's worker threads live as long as the server), never from a blocking thread
/// that may exit while the child runs.
pub fn dies_with_server(cmd: &mut Command) -> &mut Command {
    cmd.kill_on_drop(true);
    #[cfg(target_os = "linux")]
    set_death_signal(cmd);
    cmd
}

/// The one unsafe function of the workspace. `pre_exec` is unsafe because its closure
/// runs in the forked child, where only async-signal-safe calls are allowed; this one
/// makes two syscalls (`prctl`, `getppid`), allocates nothing and takes no lock. If the server died between fork and `prctl`, the child has been reparented
/// already and the signal would never come, so it gives up instead of running.
#[cfg(target_os = "linux")]
#[expect(
    unsafe_code,
    reason = "pre_exec: prctl(PR_SET_PDEATHSIG) in the forked child"
)]
fn set_death_signal(cmd: &mut Command) {
    let server = std::process::id();
    // SAFETY: the closure makes only async-signal-safe syscalls (see above).
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if u32::try_from(libc::getppid()).ok() != Some(server) {
                return Err(std::io::Error::other("the server died while spawning git"));
            }
            Ok(())
        });
    }
}
