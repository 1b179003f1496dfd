//! `svc sync` (also `svc meta sync`): the clone's `.svc/` with the meta layer.

use std::path::{Path, PathBuf};

use super::{Global, print};
use crate::client::Session;
use crate::config::{self, Clones, Hosts};
use crate::error::{CommandError, Result};
use crate::meta_sync::{self, Report};

/// Sync this clone's .svc/ with the monorepo's meta layer, both ways
///
/// Uploads local changes (only contents the server lacks), downloads the server's, and
/// removes files removed on the server. A file edited here and on the server since the
/// last sync keeps the server's copy in place and the local one beside it as
/// <name>.conflict-<machine>-<date><ext>; the command then exits 1. The machine is
/// SVC_MACHINE, else this machine's credential name.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A folder inside the clone [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let start = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    let config_dir = config::config_dir()?;
    let (root, clone) = find_clone(&Clones::load(&config_dir)?, &start)?;
    let report = sync_clone(&clone.server, &clone.monorepo, &root)?;
    print(global, &report, || summary(&report))?;
    if report.conflicts.is_empty() {
        return Ok(());
    }
    let named: Vec<String> = report
        .conflicts
        .iter()
        .map(|c| match &c.copy {
            Some(copy) => format!(".svc/{} (yours is in .svc/{copy})", c.path),
            None => format!(".svc/{} (you had deleted it)", c.path),
        })
        .collect();
    Err(CommandError::user(format!(
        "edited on another machine too, so the server's version was kept: {}",
        named.join(", ")
    ))
    .hint("merge your changes into the server's file and run svc sync again"))
}

/// Syncs the `.svc/` of the clone at `root` (also what the daemon runs), saving as
/// SVC_MACHINE, else this machine's credential name for the server.
pub fn sync_clone(server: &str, monorepo: &str, root: &Path) -> Result<Report> {
    let session = Session::open(Some(server))?;
    let machine = match std::env::var("SVC_MACHINE").ok().filter(|m| !m.is_empty()) {
        Some(m) => m,
        None => Hosts::load(&session.config_dir)?
            .servers
            .get(&session.server)
            .map(|h| h.credential_name.clone())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "machine".into()),
    };
    meta_sync::sync(&session, monorepo, &root.join(".svc"), &machine)
}

/// The registered clone holding `start`: the deepest one.
fn find_clone(clones: &Clones, start: &Path) -> Result<(PathBuf, config::Clone)> {
    let here = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    clones
        .clones
        .iter()
        .filter_map(|(path, clone)| {
            let root = std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
            here.starts_with(&root).then_some((root, clone.clone()))
        })
        .max_by_key(|(root, _)| root.components().count())
        .ok_or_else(|| {
            CommandError::user(format!("{} is not in a clone", here.display()))
                .hint("run it inside a folder made by svc clone")
        })
}

fn summary(r: &Report) -> String {
    let mut text = format!(
        "Synced .svc/: {} saved ({} uploaded), {} downloaded, {} deleted, {} unchanged",
        r.saved.len(),
        r.uploaded,
        r.downloaded.len(),
        r.deleted.len(),
        r.unchanged
    );
    if let Some(v) = &r.version {
        text.push_str(&format!(" (version {})", &v[..v.len().min(12)]));
    }
    text
}
