//! `svc release view`.

use indicatif::HumanBytes;
use svc_protocol::release::Release;

use crate::browser;
use crate::commands::{Global, checks, print};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, RepoArgs};
use crate::terminal::when;

/// Show a release: title, commit, state, files and the commit's checks
///
/// Title, tag and state (draft or published), commit, author, when made and published,
/// each file with its size and SHA-256, the commit's checks, then the notes. With --json:
/// the release as the API answers it. The tag latest shows the newest published release.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The release's tag, or latest
    pub tag: String,
    /// Open the repo's releases page in your browser, where this release is listed (a
    /// release has no page of its own); the address is printed when none can be opened
    #[arg(long)]
    pub web: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let mut release = super::fetch(&target, &args.tag)?;
    if args.web {
        return browser::show(global, &format!("{}/releases", browser::repo_page(&target)));
    }
    if release.checks.is_none() {
        // `latest` comes from the list, which leaves the checks out.
        release = target.session.get(&super::path(&target, &release.tag))?;
    }
    print(global, &release, || human(&release))
}

fn human(r: &Release) -> String {
    let mut text = format!("{}  {}\n", r.tag, super::state(r));
    if let Some(title) = r.title.as_deref().filter(|t| !t.is_empty()) {
        text.push_str(&format!("Title: {title}\n"));
    }
    text.push_str(&format!("Commit: {}\n", r.commit));
    text.push_str(&format!("Made by {} {}", r.author, when(r.created_at)));
    if let Some(at) = r.published_at {
        text.push_str(&format!(", published {}", when(at)));
    }
    text.push('\n');
    if let Some(c) = &r.checks {
        text.push_str(&format!("Checks: {}", checks::summary(c)));
    }
    if r.files.is_empty() {
        text.push_str("Files: none\n");
    } else {
        text.push_str("Files:\n");
        let mut table = Table::new(&["NAME", "SIZE", "SHA256"]);
        for f in &r.files {
            table.row(vec![
                f.name.clone(),
                HumanBytes(f.size).to_string(),
                f.sha256.clone(),
            ]);
        }
        for line in table.render().lines() {
            text.push_str(&format!("  {line}\n"));
        }
    }
    if !r.notes.trim().is_empty() {
        text.push_str(&format!("\n{}\n", r.notes.trim_end()));
    }
    text
}
