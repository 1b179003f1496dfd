//! `svc auth setup-git`.

use std::process::Command;

use crate::client::Session;
use crate::commands::Global;
use crate::error::{CommandError, Result};
use crate::terminal::outln;

/// Make git ask svc for credentials for this server (and only this server)
#[derive(Debug, clap::Args)]
pub struct Args {}

/// The helper value git runs: this very binary.
pub fn helper() -> Result<String> {
    let exe = std::env::current_exe()?;
    Ok(format!(
        "!'{}' git-credential",
        exe.display().to_string().replace('\'', "'\\''")
    ))
}

/// Sets `credential.<server>.helper` in `scope` (`--global` or `--local`): an empty value
/// first, which cuts off helpers configured earlier for this host, then svc.
pub fn configure(git: &mut dyn FnMut() -> Command, server: &str, scope: &str) -> Result<()> {
    let key = format!("credential.{server}.helper");
    let helper = helper()?;
    for args in [
        vec!["config", scope, "--replace-all", &key, ""],
        vec!["config", scope, "--add", &key, &helper],
    ] {
        let out = git()
            .args(&args)
            .output()
            .map_err(|e| CommandError::user("cannot run git").because(&e))?;
        if !out.status.success() {
            return Err(CommandError::user(format!(
                "git config failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
    }
    Ok(())
}

pub fn run(global: &Global, _: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    configure(&mut || Command::new("git"), &session.server, "--global")?;
    outln!("git now asks svc for credentials for {}", session.server)?;
    Ok(())
}
