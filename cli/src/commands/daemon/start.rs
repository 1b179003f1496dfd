//! `svc daemon start`: the daemon in the background, unless it runs already.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use svc_protocol::daemon::{DAEMON_PROTOCOL, Reply, Request};

use crate::error::{CommandError, Result};
use crate::terminal::outln;

/// Start the daemon in the background (does nothing if it runs)
#[derive(Debug, clap::Args)]
pub struct Args {}

fn running() -> Result<Option<u32>> {
    Ok(
        match super::ask(&Request::Status {
            protocol: DAEMON_PROTOCOL,
        })? {
            Some(Reply::Status(status)) => Some(status.pid),
            _ => None,
        },
    )
}

pub fn run(_: &Args) -> Result<()> {
    if let Some(pid) = running()? {
        outln!("The svc daemon is already running (pid {pid})")?;
        return Ok(());
    }
    let exe = std::env::current_exe()?;
    let mut command = Command::new(exe);
    command
        .args(["daemon", "run"])
        // Not holding on to wherever start was run (clone paths are absolute).
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    {
        use std::os::unix::process::CommandExt;
        // Its own process group: a Ctrl-C in this terminal does not reach it.
        command.process_group(0);
    }
    let mut child = command
        .spawn()
        .map_err(|e| CommandError::internal("cannot start the daemon").because(&e))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Some(pid) = running()? {
            outln!("Started the svc daemon (pid {pid})")?;
            return Ok(());
        }
        if let Some(status) = child.try_wait()? {
            let mut err = String::new();
            if let Some(mut stderr) = child.stderr.take() {
                use std::io::Read;
                let _ = stderr.read_to_string(&mut err);
            }
            return Err(CommandError::user(format!(
                "the daemon exited ({status}): {}",
                err.trim().trim_start_matches("svc: ")
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(
        CommandError::internal("the daemon did not answer within 10 s").hint(format!(
            "see its log: {}",
            svc_daemon::log_path(&super::data_dir()?).display()
        )),
    )
}
