//! `svc monorepo delete`.

use std::io::{BufRead, Write};

use reqwest::Method;

use crate::client::{Session, split_full_name};
use crate::commands::Global;
use crate::confirm;
use crate::error::{CommandError, Result};
use crate::terminal::{errln, outln};

/// Delete a monorepo with all its repos and records, for good
///
/// On a terminal you are asked to type <owner>/<monorepo> again; --confirm gives it
/// beforehand, and --yes stands for it. Without a terminal one of them is needed.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub monorepo: String,
    /// The same <owner>/<monorepo> again, to confirm
    #[arg(long, value_name = "OWNER/MONOREPO")]
    pub confirm: Option<String>,
    /// Delete without asking: stands for --confirm <owner>/<monorepo>
    #[arg(long, short = 'y', conflicts_with = "confirm")]
    pub yes: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (owner, name) = split_full_name(&args.monorepo)?;
    let confirm = match (&args.confirm, args.yes) {
        (_, true) => args.monorepo.clone(),
        (Some(confirm), false) => confirm.clone(),
        (None, false) if confirm::can_ask() => {
            errln!(
                "This deletes {} with all its repos, issues and releases, for good.",
                args.monorepo
            );
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "Type {} to delete it: ", args.monorepo);
            let _ = err.flush();
            let mut typed = String::new();
            std::io::stdin().lock().read_line(&mut typed)?;
            typed.trim().to_owned()
        }
        (None, false) => {
            return Err(CommandError::user(format!(
                "not deleting {}: there is no terminal to ask on",
                args.monorepo
            ))
            .hint("pass --yes (or --confirm <owner>/<monorepo>) to delete without being asked"));
        }
    };
    if !confirm.eq_ignore_ascii_case(&args.monorepo) {
        return Err(CommandError::user(format!(
            "{confirm:?} is not {}: nothing was deleted",
            args.monorepo
        ))
        .hint("--confirm must repeat the monorepo's <owner>/<name>"));
    }
    let session = Session::open(global.server.as_deref())?;
    let path = format!(
        "/v1/monorepos/{owner}/{name}?confirm={}",
        confirm.to_ascii_lowercase()
    );
    session.send(session.request(Method::DELETE, &path)?)?;
    outln!("Deleted {}", args.monorepo)?;
    Ok(())
}
