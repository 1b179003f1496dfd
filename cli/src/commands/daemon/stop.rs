//! `svc daemon stop`.

use std::time::{Duration, Instant};

use svc_protocol::daemon::{DAEMON_PROTOCOL, Request};

use crate::error::{CommandError, Result};
use crate::terminal::outln;

/// Stop the daemon and wait until it is gone
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_: &Args) -> Result<()> {
    if super::ask(&Request::Stop {
        protocol: DAEMON_PROTOCOL,
    })?
    .is_none()
    {
        outln!("The svc daemon is not running")?;
        return Ok(());
    }
    // Gone when its lock can be taken.
    let lock = svc_daemon::lock_path(&super::data_dir()?);
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let free = std::fs::File::open(&lock).map_or(true, |f| f.try_lock().is_ok());
        if free {
            outln!("Stopped the svc daemon")?;
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(CommandError::internal(
        "the daemon did not stop within 10 s",
    ))
}
