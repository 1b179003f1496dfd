//! The isolated network of a sandbox (`[agents] network = "isolated"`): the sandbox gets
//! a network namespace of its own, connected by `pasta` (Debian package `passt`). It
//! reaches the network as the host does (model APIs), but not the host's loopback
//! services (PostgreSQL, Redis...): its own `127.0.0.1` is its own, and pasta forwards
//! there only svc's port and the runner's `host_ports` (`-T`), nothing else (`-t`,
//! `-u`, `-U none`), and does not map the gateway's address to the host (`--no-map-gw`).
//!
//! How: `unshare` makes the user and network namespaces and stays the sandbox's first
//! process (its pid holds them); pasta attaches to that pid; a few lines of shell
//! inside wait for pasta's routes and forwarded ports, then start bubblewrap sharing
//! that network. (pasta's own way of starting a command cannot map the user of a
//! server running as root on current kernels.) pasta is the server's child: it dies with
//! the server and is killed when the run ends.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use crate::git::child::dies_with_server;

/// A sandbox's network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Net {
    /// The host's network, shared.
    Host,
    /// No network at all (loopback only), for steps that need none.
    Offline,
    /// A namespace of its own that reaches the host's loopback only on `ports`.
    Isolated { ports: Vec<u16> },
}

/// The user the sandbox runs as when the server runs as root: pasta, which runs with
/// few capabilities, may only attach to a namespace whose first process holds none,
/// which root in it would. Files the server owns show as this user's in the sandbox.
const ROOTLESS_ID: u32 = 1000;

/// How long the sandbox waits for its network (and the server for its namespace).
const READY_WITHIN: Duration = Duration::from_secs(10);

/// Whether the programs an isolated network needs are installed; a clear error if not.
pub fn check_installed() -> Result<(), String> {
    for (program, package) in [("pasta", "passt"), ("unshare", "util-linux")] {
        if !on_path(program) {
            return Err(format!(
                "[agents] network = \"isolated\" needs `{program}` (Debian: apt-get install -y {package}), or set network = \"host\""
            ));
        }
    }
    Ok(())
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| is_executable(&dir.join(program)))
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `sandbox` (bubblewrap's command, with `--share-net`) inside a network namespace of
/// its own, which [`connect`] connects once it has started.
pub fn wrap(ports: &[u16], sandbox: Vec<String>) -> Vec<String> {
    let (uid, gid) = ids();
    let mut out: Vec<String> = vec![
        "unshare".into(),
        "--user".into(),
        format!("--map-user={uid}"),
        format!("--map-group={gid}"),
        "--net".into(),
        "--".into(),
        "sh".into(),
        "-c".into(),
        wait_script(ports),
        "sh".into(),
    ];
    out.extend(sandbox);
    out
}

/// The sandbox's user and group: the server's own, or [`ROOTLESS_ID`] for root.
fn ids() -> (u32, u32) {
    let uid = rustix::process::geteuid().as_raw();
    let gid = rustix::process::getegid().as_raw();
    let rootless = |id: u32| if id == 0 { ROOTLESS_ID } else { id };
    (rootless(uid), rootless(gid))
}

/// Shell that waits until pasta has given the namespace a default route and listens on
/// the forwarded ports, then runs its arguments.
fn wait_script(ports: &[u16]) -> String {
    let tries = READY_WITHIN.as_millis() / 10;
    let mut ready = String::from(
        "{ grep -q '^[^\t]*\t00000000\t' /proc/net/route || grep -q '^0\\{32\\} 00 ' /proc/net/ipv6_route; }",
    );
    for port in ports {
        ready.push_str(&format!(
            " && grep -qE ':{port:04X} [0-9A-F]+:0000 0A ' /proc/net/tcp /proc/net/tcp6"
        ));
    }
    format!(
        "i=0; until {ready} 2>/dev/null; do i=$((i+1)); if [ $i -gt {tries} ]; then \
         echo 'svc: the sandbox network did not come up (pasta)' >&2; exit 125; fi; \
         sleep 0.01; done; exec \"$@\""
    )
}

/// Connects the namespace of `pid` (a command [`wrap`] made) with pasta; the answer is
/// pasta, to kill when the run ends (it dies with the server too).
pub async fn connect(pid: u32, ports: &[u16]) -> std::io::Result<Child> {
    namespaced(pid).await?;
    let (uid, gid) = (
        rustix::process::geteuid().as_raw(),
        rustix::process::getegid().as_raw(),
    );
    let forwarded = if ports.is_empty() {
        "none".to_owned()
    } else {
        ports
            .iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut cmd = Command::new("pasta");
    cmd.args(["--config-net", "--no-map-gw", "-q", "-f"])
        .args(["-t", "none", "-u", "none", "-U", "none", "-T", &forwarded])
        .arg("--runas")
        .arg(format!("{uid}:{gid}"))
        .arg(pid.to_string())
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    dies_with_server(&mut cmd);
    cmd.spawn()
}

/// Waits until `pid` has its own network namespace and has shed its capabilities (so
/// pasta may attach to it, and never to the server's own namespace).
async fn namespaced(pid: u32) -> std::io::Result<()> {
    let ours = std::fs::read_link("/proc/self/ns/net")?;
    let started = Instant::now();
    loop {
        let theirs = std::fs::read_link(format!("/proc/{pid}/ns/net"))?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
        let capless = status.lines().any(|l| {
            l.strip_prefix("CapEff:")
                .is_some_and(|c| c.trim().trim_start_matches('0').is_empty())
        });
        if theirs != ours && capless {
            return Ok(());
        }
        if started.elapsed() > READY_WITHIN {
            return Err(std::io::Error::other(
                "the sandbox did not make its network namespace",
            ));
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_looks_for_each_forwarded_port_in_hex() {
        let script = wait_script(&[8640, 4000]);
        assert!(script.contains(":21C0 "), "{script}");
        assert!(script.contains(":0FA0 "), "{script}");
        let wrapped = wrap(&[8640], vec!["bwrap".into(), "--share-net".into()]);
        assert_eq!(wrapped[0], "unshare");
        assert_eq!(wrapped[wrapped.len() - 2..], ["bwrap", "--share-net"]);
    }
}
