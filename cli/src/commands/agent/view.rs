//! `svc agent view`.

use svc_protocol::agent::Session;

use crate::browser;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs, MonorepoTarget};
use crate::terminal::when;

/// Show an agent session
///
/// Its kind and state (with the reason when it failed or was stopped), repo, branch and
/// issue, model, the person it acts for and the credential it pushes with, when it was
/// launched and last changed, and the prompt it was launched with. svc agent log shows
/// its transcript.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    #[arg(help = super::ID_HELP)]
    pub id: String,
    /// Open the nearest page in your browser (a session has no page of its own): its
    /// issue's, else its branch's, else the monorepo's; the address is printed when none
    /// can be opened
    #[arg(long)]
    pub web: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let session: Session = target
        .session
        .get(&super::session_path(&target, &args.id))?;
    if args.web {
        return browser::show(global, &page(&target, &session));
    }
    print(global, &session, || human(&session))
}

/// The page nearest the session: its issue's, its branch's, or the monorepo's.
fn page(target: &MonorepoTarget, s: &Session) -> String {
    let monorepo = browser::monorepo_of(target);
    match (s.issue, &s.repo, &s.branch) {
        (Some(issue), _, _) => format!("{monorepo}/issues/{issue}"),
        (None, Some(repo), Some(branch)) => format!(
            "{monorepo}/-/{}/branches/{}",
            target::encode(repo),
            target::encode(branch)
        ),
        _ => monorepo,
    }
}

fn human(s: &Session) -> String {
    let mut text = format!("{}  {} {}\n", s.id, s.kind.as_str(), s.state.as_str());
    if let Some(reason) = s.reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
        text.push_str(&format!("Reason: {}\n", reason.replace('\n', "\n  ")));
    }
    if let Some(repo) = &s.repo {
        text.push_str(&format!("Repo: {repo}\n"));
    }
    if let Some(branch) = &s.branch {
        text.push_str(&format!("Branch: {branch}\n"));
    }
    if let Some(issue) = s.issue {
        text.push_str(&format!("Issue: #{issue}\n"));
    }
    text.push_str(&format!("Model: {}\n", s.model));
    text.push_str(&format!("Launched by: {}", s.launcher));
    if let Some(credential) = &s.credential {
        text.push_str(&format!(" (credential {credential})"));
    }
    text.push('\n');
    text.push_str(&format!(
        "Launched {}, updated {}\n",
        when(s.created_at),
        when(s.updated_at)
    ));
    text.push_str(&format!(
        "Prompt:\n  {}\n",
        s.prompt.trim_end().replace('\n', "\n  ")
    ));
    text
}
