//! `svc release notes`.

use svc_protocol::release::ReleaseNotes;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, RepoArgs};

/// Print a release's notes, or the notes a release at --target would get
///
/// With a tag: the release's notes, or with --generate the notes written from the merges
/// between the last published release before it and its commit. With --target instead:
/// the notes written for a release yet to be made at that commit.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The release's tag
    #[arg(required_unless_present = "target")]
    pub tag: Option<String>,
    /// Write the notes from the merges rather than show the release's own
    #[arg(long, requires = "tag")]
    pub generate: bool,
    /// A commit on main for a release to be made: a full sha, a short sha or HEAD (resolved by git here), or main
    #[arg(long, value_name = "COMMIT", conflicts_with = "tag")]
    pub target: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let path = match (&args.tag, &args.target) {
        (Some(tag), _) => {
            let mut path = format!("{}/notes", super::path(&target, tag));
            if args.generate {
                path.push_str("?generate=1");
            }
            path
        }
        (None, rev) => {
            let rev = super::target_rev(rev.as_deref().unwrap_or("main"))?;
            let query = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("target", &rev)
                .finish();
            format!("{}/release-notes?{query}", target.path())
        }
    };
    let notes: ReleaseNotes = target.session.get(&path)?;
    print(global, &notes, || notes.notes.clone())
}
