//! `svc ci view`.

use svc_protocol::ci::CiBuild;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs};
use crate::terminal::when;

/// Show a build and its jobs
///
/// The pipeline and number, the state (the service's own word in brackets when it says
/// more), branch, commit and message, the build's page on the CI service, when it was
/// made, started and finished, the build it rebuilt, then each job with its state, exit
/// status and the job that retried it. svc ci log shows a job's log.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    #[arg(help = super::BUILD_HELP)]
    pub build: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let build = super::fetch(&target, &args.build)?;
    print(global, &build, || human(&build))
}

fn human(b: &CiBuild) -> String {
    let mut text = format!(
        "{}  {}\n",
        super::label(b),
        super::state(b.state, &b.service_state)
    );
    text.push_str(&format!("ID: {}\n", b.id));
    if let Some(repo) = &b.repo {
        text.push_str(&format!("Repo: {repo}\n"));
    }
    text.push_str(&format!("Branch: {}\n", super::dash(b.branch.as_deref())));
    text.push_str(&format!("Commit: {}\n", super::dash(b.commit.as_deref())));
    if let Some(message) = b
        .message
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        text.push_str(&format!("Message: {}\n", message.replace('\n', "\n  ")));
    }
    if let Some(url) = &b.web_url {
        text.push_str(&format!("URL: {url}\n"));
    }
    text.push_str(&format!("Created {}", when(b.created_at)));
    if let Some(at) = b.started_at {
        text.push_str(&format!(", started {}", when(at)));
    }
    if let Some(at) = b.finished_at {
        text.push_str(&format!(", finished {}", when(at)));
    }
    text.push('\n');
    if let Some(of) = &b.rebuild_of {
        text.push_str(&format!("Rebuild of: {of}\n"));
    }
    match b.jobs.as_deref() {
        None | Some([]) => text.push_str("Jobs: none reported yet\n"),
        Some(jobs) => {
            text.push_str("Jobs:\n");
            let mut table = Table::new(&["ID", "NAME", "STATE", "EXIT", "RETRIED BY"]);
            for j in jobs {
                table.row(vec![
                    j.id.clone(),
                    super::job_name(j),
                    super::state(j.state, &j.service_state),
                    j.exit_status
                        .map_or_else(|| "-".to_owned(), |s| s.to_string()),
                    super::dash(j.retried_by.as_deref()),
                ]);
            }
            for line in table.render().lines() {
                text.push_str(&format!("  {line}\n"));
            }
        }
    }
    text
}
