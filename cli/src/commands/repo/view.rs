//! `svc repo view`.

use svc_protocol::monorepo::Repo;

use crate::browser;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target;

/// Show one repo
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub named: super::Named,
    /// Open its page in your browser (or print the page's address when none can be opened)
    #[arg(long)]
    pub web: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.named.repo_args())?;
    let repo: Repo = target.session.get(&target.path())?;
    if args.web {
        return browser::show(global, &browser::repo_page(&target));
    }
    print(global, &repo, || {
        format!(
            "{}\npath: {}\nclone: {}\nreleases public: {}",
            repo.name, repo.path, repo.clone_url, repo.releases_public
        )
    })
}
