//! `svc artifact resolve`.

use reqwest::Method;
use svc_protocol::artifact::{ArtifactComment, ArtifactCommentUpdate, ThreadState};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, RepoArgs, encode};

/// Resolve a comment thread on an artifact, or reopen it with --reopen
///
/// COMMENT_ID is any comment of the thread, its root or a reply (svc artifact view shows
/// them). Any member may resolve or reopen a thread. With --json: the thread's root.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// A comment of the thread, like ac_...
    pub comment_id: String,
    /// Open the thread again
    #[arg(long)]
    pub reopen: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let state = if args.reopen {
        ThreadState::Open
    } else {
        ThreadState::Resolved
    };
    let update = ArtifactCommentUpdate {
        body: None,
        base_version: None,
        state: Some(state),
    };
    let path = format!(
        "{}/artifact-comments/{}",
        target.path(),
        encode(&args.comment_id)
    );
    let root: ArtifactComment = super::call(
        &target,
        target.session.request(Method::PATCH, &path)?.json(&update),
    )?;
    print(global, &root, || match state {
        ThreadState::Resolved => format!("Resolved thread {}", root.id),
        ThreadState::Open => format!("Reopened thread {}", root.id),
    })
}
