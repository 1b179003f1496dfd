//! `svc daemon install`: start the daemon with the session (systemd user unit, launchd
//! agent on macOS).

use std::path::PathBuf;
use std::process::Command;

use crate::config::write_atomic;
use crate::error::{CommandError, Result};
use crate::terminal::{errln, outln};

/// Run the daemon at login: a systemd user unit (a launchd agent on macOS)
///
/// Writes the unit and enables it; when the service manager cannot be reached (no user
/// session), it says how to enable it later.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only write the unit (or agent) file; do not enable or start it
    #[arg(long)]
    pub no_enable: bool,
}

fn home() -> Result<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| CommandError::internal("HOME is not set"))
}

/// Runs a service manager command; false when it is missing or fails.
fn manage(program: &str, args: &[&str]) -> bool {
    match Command::new(program).args(args).output() {
        Ok(out) if out.status.success() => true,
        Ok(out) => {
            errln!(
                "{program} {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            );
            false
        }
        Err(_) => false,
    }
}

pub fn run(args: &Args) -> Result<()> {
    let exe = std::env::current_exe()?;
    let exe = exe.display().to_string();
    if cfg!(target_os = "macos") {
        let path = home()?.join("Library/LaunchAgents/dev.svc.daemon.plist");
        let plist = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>dev.svc.daemon</string>
  <key>ProgramArguments</key><array><string>{}</string><string>daemon</string><string>run</string></array>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
</dict>
</plist>
"#,
            xml_escape(&exe)
        );
        write_atomic(&path, plist.as_bytes(), false)?;
        outln!("Wrote {}", path.display())?;
        if !args.no_enable && manage("launchctl", &["load", "-w", &path.display().to_string()]) {
            outln!("The svc daemon now runs at login")?;
        } else {
            outln!("Load it with: launchctl load -w {}", path.display())?;
        }
        return Ok(());
    }
    let path = home()?.join(".config/systemd/user/svc-daemon.service");
    let unit = format!(
        "[Unit]\nDescription=svc daemon: follows your monorepos\n\n[Service]\nExecStart=\"{}\" daemon run\nRestart=on-failure\nRestartSec=5\n\n[Install]\nWantedBy=default.target\n",
        exe.replace('\\', "\\\\").replace('"', "\\\"")
    );
    write_atomic(&path, unit.as_bytes(), false)?;
    outln!("Wrote {}", path.display())?;
    if !args.no_enable
        && manage("systemctl", &["--user", "daemon-reload"])
        && manage(
            "systemctl",
            &["--user", "enable", "--now", "svc-daemon.service"],
        )
    {
        outln!("The svc daemon now runs with your session")?;
    } else {
        outln!(
            "Enable it with: systemctl --user daemon-reload && systemctl --user enable --now svc-daemon.service"
        )?;
    }
    Ok(())
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
