//! `svc ci log`.

use std::time::Duration;

use indicatif::HumanBytes;
use reqwest::Method;
use reqwest::header::ACCEPT;
use svc_protocol::ErrorCode;
use svc_protocol::ci::{CiBuild, CiJob, CiState};

use crate::commands::Global;
use crate::error::{CommandError, Result};
use crate::target::{self, MonorepoArgs, MonorepoTarget};
use crate::terminal::{errln, write_out};

/// How long --follow waits between two reads of the log.
const POLL: Duration = Duration::from_secs(2);

/// The header that gives the whole log's size in bytes.
const LOG_SIZE: &str = "X-Ci-Log-Size";

/// Print a job's log: its last MiB, as the CI service wrote it (escape codes and all)
///
/// The bytes go to stdout unchanged, --json or not. JOB may be left out when the build
/// has one job (not counting jobs that were retried). With --follow, the log is read again
/// every 2 seconds and only what is new is printed, until the job finishes; a job that
/// has not started yet is waited for.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    #[arg(help = super::BUILD_HELP)]
    pub build: String,
    /// The job's id (svc ci view shows them) [default: the build's one job]
    pub job: Option<String>,
    /// Keep printing what the job writes until it finishes
    #[arg(long, short = 'f')]
    pub follow: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let id = super::resolve(&target, &args.build)?;
    let mut build = None;
    let job = match &args.job {
        Some(job) => job.clone(),
        None => {
            let b = get_build(&target, &id)?;
            let job = pick_job(&b)?;
            build = Some(b);
            job
        }
    };
    if !args.follow {
        let (body, size) = read_log(&target, &id, &job)?;
        say_skipped(
            size.map_or(0, |s| s.saturating_sub(body.len() as u64)),
            true,
        );
        return write_out(&body);
    }
    let mut printed = 0u64;
    let mut first = true;
    let mut waiting_said = false;
    loop {
        let b = match build.take() {
            Some(b) => b,
            None => get_build(&target, &id)?,
        };
        let j = find_job(&b, &job)?;
        // The job's state is read before the log: once it is finished, this read of the
        // log is its last, and whole.
        let finished = j.state.is_finished();
        if matches!(j.state, CiState::Queued | CiState::Blocked) {
            if !waiting_said {
                errln!("Job {job} is {}; waiting for it to start", j.state.as_str());
                waiting_said = true;
            }
        } else {
            let (body, size) = read_log(&target, &id, &job)?;
            let step = Step::after(body.len(), size, printed);
            say_skipped(step.skipped, first);
            write_out(&body[step.start..])?;
            printed = step.printed;
            first = false;
        }
        if finished {
            return Ok(());
        }
        std::thread::sleep(POLL);
    }
}

/// The build with its jobs.
fn get_build(target: &MonorepoTarget, id: &str) -> Result<CiBuild> {
    super::call(
        target,
        target
            .session
            .request(Method::GET, &super::build_path(target, id))?,
    )
}

/// The log's last MiB, and the whole log's size when the server knows it.
fn read_log(target: &MonorepoTarget, build: &str, job: &str) -> Result<(Vec<u8>, Option<u64>)> {
    let path = format!("{}/log", super::job_path(target, build, job));
    let request = target
        .session
        .request(Method::GET, &path)?
        .header(ACCEPT, "text/plain");
    let response = super::send(target, request)?;
    let size = response
        .headers()
        .get(LOG_SIZE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let body = response.bytes().map_err(|e| target.session.garbled(&e))?;
    Ok((body.to_vec(), size))
}

/// Tells, on stderr, of log bytes that are not printed.
fn say_skipped(skipped: u64, first: bool) {
    if skipped == 0 {
        return;
    }
    if first {
        errln!(
            "(the log's first {} are left out: svc shows its last MiB; the build's page on the CI service has it whole)",
            HumanBytes(skipped)
        );
    } else {
        errln!(
            "({} of the log are left out: it grew faster than it was read)",
            HumanBytes(skipped)
        );
    }
}

/// The build's one job (not counting retried ones), else an error listing its jobs.
fn pick_job(build: &CiBuild) -> Result<String> {
    let jobs = build.jobs.as_deref().unwrap_or_default();
    let current: Vec<&CiJob> = jobs.iter().filter(|j| j.retried_by.is_none()).collect();
    if let [only] = current.as_slice() {
        return Ok(only.id.clone());
    }
    if jobs.is_empty() {
        return Err(CommandError::user(format!(
            "{} has no jobs reported yet",
            super::label(build)
        ))
        .hint("run the command again once the build runs"));
    }
    let listed: Vec<String> = jobs
        .iter()
        .map(|j| {
            let mut line = format!("{} ({}", j.id, super::job_name(j));
            if let Some(by) = &j.retried_by {
                line.push_str(&format!(", retried by {by}"));
            }
            line.push(')');
            line
        })
        .collect();
    Err(CommandError::user(format!(
        "{} has {} jobs: name one\n  {}",
        super::label(build),
        jobs.len(),
        listed.join("\n  ")
    ))
    .hint(format!("svc ci log {} <job>", build.id)))
}

/// The job `id` of the build.
fn find_job<'a>(build: &'a CiBuild, id: &str) -> Result<&'a CiJob> {
    build
        .jobs
        .as_deref()
        .unwrap_or_default()
        .iter()
        .find(|j| j.id == id)
        .ok_or_else(|| {
            CommandError::user(format!("{} has no job {id}", super::label(build)))
                .code(ErrorCode::NotFound.as_str())
                .hint(format!("svc ci view {} lists its jobs", build.id))
        })
}

/// What of one read of the log to print.
#[derive(Debug, PartialEq, Eq)]
struct Step {
    /// Where in the body the new bytes start.
    start: usize,
    /// New bytes that the body no longer holds (it is the log's tail).
    skipped: u64,
    /// The bytes of the log printed or skipped, after this step.
    printed: u64,
}

impl Step {
    /// The step for a body of `len` bytes, the log's tail, when the whole log is `size`
    /// bytes (if known) and `printed` were dealt with already. Without the size, bodies
    /// are compared by length.
    fn after(len: usize, size: Option<u64>, printed: u64) -> Step {
        let len64 = len as u64;
        match size {
            Some(size) => {
                let new = size.saturating_sub(printed);
                let take = new.min(len64);
                Step {
                    start: (len64 - take) as usize,
                    skipped: new - take,
                    printed: printed.max(size),
                }
            }
            None if len64 > printed => Step {
                start: printed as usize,
                skipped: 0,
                printed: len64,
            },
            None => Step {
                start: len,
                skipped: 0,
                printed,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(start: usize, skipped: u64, printed: u64) -> Step {
        Step {
            start,
            skipped,
            printed,
        }
    }

    #[test]
    fn follow_prints_only_new_bytes_by_the_size() {
        // A first read of a short log prints it all.
        assert_eq!(Step::after(100, Some(100), 0), step(0, 0, 100));
        // Then only the bytes past what was printed.
        assert_eq!(Step::after(150, Some(150), 100), step(100, 0, 150));
        // Nothing new.
        assert_eq!(Step::after(150, Some(150), 150), step(150, 0, 150));
        // The log outgrew the tail: the body's end is new, its start was printed.
        assert_eq!(Step::after(1000, Some(5000), 4500), step(500, 0, 5000));
        // A first read of a long log: its start is not in the body.
        assert_eq!(Step::after(1000, Some(5000), 0), step(0, 4000, 5000));
        // More was written between two reads than the tail holds.
        assert_eq!(Step::after(1000, Some(9000), 5000), step(0, 3000, 9000));
        // A size below what was printed prints nothing and forgets nothing.
        assert_eq!(Step::after(80, Some(80), 100), step(80, 0, 100));
    }

    #[test]
    fn follow_without_the_size_compares_lengths() {
        assert_eq!(Step::after(100, None, 0), step(0, 0, 100));
        assert_eq!(Step::after(160, None, 100), step(100, 0, 160));
        assert_eq!(Step::after(160, None, 160), step(160, 0, 160));
        assert_eq!(Step::after(90, None, 160), step(90, 0, 160));
        assert_eq!(Step::after(0, None, 0), step(0, 0, 0));
    }
}
