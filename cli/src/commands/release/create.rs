//! `svc release create`.

use reqwest::Method;
use svc_protocol::release::{CreateRelease, Release};

use crate::commands::{Global, branch, print};
use crate::error::Result;
use crate::target::{self, RepoArgs};

/// Make a release: tag a commit on main, with a title, notes and (later) files
///
/// Unless it is a draft, the release is published at once, which needs the commit's
/// checks to be green (or --force) and locks the tag. An existing tag's commit is the
/// release commit; else the tag is made at --target. A draft asks no checks and makes no
/// tag until svc release publish.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The tag, like v1.2.0
    pub tag: String,
    /// Its title
    #[arg(long, short = 't')]
    pub title: Option<String>,
    /// Its notes, Markdown
    #[arg(long, short = 'n')]
    pub notes: Option<String>,
    /// Read the notes from this file (- for standard input)
    #[arg(long, short = 'F', value_name = "FILE", conflicts_with = "notes")]
    pub notes_file: Option<String>,
    /// The commit on main to release: a full sha, a short sha or HEAD (resolved by git here), or main [default: main's head]
    #[arg(long, value_name = "COMMIT")]
    pub target: Option<String>,
    /// Keep it a draft: no checks asked, no tag made until published
    #[arg(long)]
    pub draft: bool,
    /// Append notes written from the merges since the last published release
    #[arg(long)]
    pub generate_notes: bool,
    /// Publish past failing, missing or unknown checks
    #[arg(long)]
    pub force: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let body = CreateRelease {
        tag: args.tag.clone(),
        title: args.title.clone(),
        notes: super::read_notes(args.notes.as_deref(), args.notes_file.as_deref())?,
        target: args.target.as_deref().map(super::target_rev).transpose()?,
        draft: args.draft,
        generate_notes: args.generate_notes,
    };
    let mut path = format!("{}/releases", target.path());
    if args.force {
        path.push_str("?force=1");
    }
    let request = target.session.request(Method::POST, &path)?.json(&body);
    let release: Release = match target.session.answer(request)? {
        Ok(response) => response.json().map_err(|e| target.session.garbled(&e))?,
        Err(refusal) => {
            return Err(super::explain(
                &format!("{} is not released", args.tag),
                &format!("svc release create {}", args.tag),
                refusal,
                &target.session,
            ));
        }
    };
    print(global, &release, || {
        let commit = branch::short(&release.commit);
        if release.draft {
            format!("Made the draft release {} at {commit}", release.tag)
        } else {
            format!("Released {} at {commit}", release.tag)
        }
    })
}
