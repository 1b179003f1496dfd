//! `svc branch diff`.

use std::io::{BufRead, BufReader, Write};
use std::time::Duration;

use reqwest::Method;
use svc_protocol::branch::{BranchDiff, BranchDiffLine};

use super::patch::{self, Palette};
use super::stat;
use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs, Target};
use crate::terminal::{ColorWhen, Output, errln, stdout_failed};
use crate::workdir;

/// A big diff streams for longer than the client's usual 60 seconds.
const STREAM_TIMEOUT: Duration = Duration::from_secs(600);

/// Show a branch's changes since it left main, like git diff main...branch
///
/// Coloured and paged through $PAGER (default less -FRX) when stdout is a terminal.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The branch [default: the one checked out here]
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: Option<String>,
    /// A diffstat instead of patches, laid out for $COLUMNS (default 80)
    #[arg(long)]
    pub stat: bool,
    /// When to colour
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Write to stdout, not through the pager
    #[arg(long)]
    pub no_pager: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let name = workdir::branch_or_current(args.branch.as_deref())?;
    let path = format!("{}/diff", target.branch_path(&name));
    if global.json || args.stat {
        let query = if args.stat { "" } else { "?patches=1" };
        let diff: BranchDiff = target.session.get(&format!("{path}{query}"))?;
        if global.json {
            return print(global, &diff, String::new);
        }
        let text = stat::render(
            &diff.files,
            &diff.stats,
            stat::columns(),
            &Palette::new(args.color.enabled()),
        );
        let mut out = Output::open(!args.no_pager);
        out.write_all(text.as_bytes()).map_err(stdout_failed)?;
        return out.finish();
    }
    stream(&target, &path, args)
}

/// Writes each file as its line arrives, so a long diff starts showing at once.
fn stream(target: &Target, path: &str, args: &Args) -> Result<()> {
    let session = &target.session;
    let request = session
        .request(Method::GET, &format!("{path}?patches=1&stream=1"))?
        .timeout(STREAM_TIMEOUT);
    let response = session.send(request)?;
    let palette = Palette::new(args.color.enabled());
    let mut out = Output::open(!args.no_pager);
    let garbled = |e: &serde_json::Error| {
        CommandError::network(format!("{} answered something unexpected", session.server))
            .because(e)
    };
    let mut shown = 0u64;
    for line in BufReader::new(response).lines() {
        let line = line.map_err(|e| {
            CommandError::network(format!("the diff from {} broke off", session.server)).because(&e)
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let written = match serde_json::from_str(&line).map_err(|e| garbled(&e))? {
            BranchDiffLine::Start { .. } => Ok(()),
            BranchDiffLine::File(file) => {
                shown += 1;
                patch::write_file(&mut out, &file, &palette)
            }
            BranchDiffLine::End { stats, truncated } => {
                out.finish()?;
                if truncated {
                    errln!(
                        "svc: the diff was cut short by the server's limits: {shown} of {} files shown",
                        stats.files
                    );
                }
                return Ok(());
            }
            BranchDiffLine::Error { message } => {
                return Err(CommandError::network(format!(
                    "{} could not finish the diff: {message}",
                    session.server
                )));
            }
        };
        written.map_err(stdout_failed)?;
    }
    Err(CommandError::network(format!(
        "the diff from {} ended before its end line",
        session.server
    )))
}
