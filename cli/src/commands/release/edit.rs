//! `svc release edit`.

use reqwest::Method;
use svc_protocol::release::{Release, UpdateRelease};

use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, RepoArgs};

/// Change a release's title or notes
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The release's tag
    pub tag: String,
    /// A new title ("" clears it)
    #[arg(long, short = 't')]
    pub title: Option<String>,
    /// New notes, Markdown
    #[arg(long, short = 'n')]
    pub notes: Option<String>,
    /// Read the new notes from this file (- for standard input)
    #[arg(long, short = 'F', value_name = "FILE", conflicts_with = "notes")]
    pub notes_file: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let body = UpdateRelease {
        title: args
            .title
            .as_ref()
            .map(|t| Some(t.clone()).filter(|t| !t.is_empty())),
        notes: super::read_notes(args.notes.as_deref(), args.notes_file.as_deref())?,
    };
    if body.title.is_none() && body.notes.is_none() {
        return Err(
            CommandError::user("nothing to change").hint("pass --title, --notes or --notes-file")
        );
    }
    let target = target::resolve(global, &args.repo)?;
    let release: Release = target.session.call(
        target
            .session
            .request(Method::PATCH, &super::path(&target, &args.tag))?
            .json(&body),
    )?;
    print(global, &release, || {
        format!("Updated the release {}", release.tag)
    })
}
