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
    seal(Command::new("git"), dir)
}

/// A sealed git (`sealed_git`) whose own children die with it too. The death signal
/// reaches only the server's direct children: a `git repack` killed with the server
/// leaves its `pack-objects` writing a temporary pack for as long as that takes, and a
/// `receive-pack` its `unpack-objects` writing loose objects. So a git that starts
/// children (maintenance, the door, imports) runs as the first process of a
/// PID namespace of its own (`unshare --pid --fork --kill-child`): when it dies, the
/// kernel kills every process in that namespace. Where no namespace can be made (no
/// `unshare`, no privilege), it is a plain sealed git.
pub fn sealed_git_family(dir: &Path) -> Command {
    match namespace_args() {
        Some(args) => {
            let mut cmd = Command::new("unshare");
            cmd.args(args).arg("--").arg("git");
            seal(cmd, dir)
        }
        None => sealed_git(dir),
    }
}

/// `unshare`'s arguments that make a PID namespace here, found once by trying them:
/// as root a PID namespace alone, otherwise inside a user namespace of its own.
fn namespace_args() -> Option<&'static [&'static str]> {
    const TRIES: [&[&str]; 2] = [
        &["--pid", "--fork", "--kill-child"],
        &[
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--kill-child",
        ],
    ];
    static FOUND: std::sync::OnceLock<Option<&'static [&'static str]>> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        TRIES.into_iter().find(|args| {
            std::process::Command::new("unshare")
                .args(*args)
                .arg("true")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
    })
}

/// The sealing shared by both: `cmd` runs git (directly or through `unshare`).
fn seal(mut cmd: Command, dir: &Path) -> Command {
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    /// Processes whose command line holds `marker`.
    fn running(marker: &str) -> usize {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .filter(|c| String::from_utf8_lossy(c).contains(marker))
            .count()
    }

    /// A git's own child (here a shell alias's `sleep`; in maintenance a repack's
    /// `pack-objects`) dies when that git is killed, as when the server dies.
    #[tokio::test]
    async fn a_family_git_takes_its_children_along() {
        if namespace_args().is_none() {
            eprintln!("no PID namespace can be made here: nothing to test");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let marker = format!("4242.{}", std::process::id());
        let mut child = sealed_git_family(dir.path())
            .arg("-c")
            .arg(format!("alias.hold=!sleep {marker}"))
            .arg("hold")
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while running(&format!("sleep {marker}")) == 0 {
            assert!(Instant::now() < deadline, "the alias never started");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        child.kill().await.unwrap();
        // The namespace's processes are killed at once, but on a loaded machine they can
        // take seconds to be gone from /proc; the sleep itself would last 4242 s.
        let deadline = Instant::now() + Duration::from_secs(10);
        while running(&format!("sleep {marker}")) > 0 {
            assert!(Instant::now() < deadline, "git's child outlived it");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}
