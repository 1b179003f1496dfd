//! `svc monorepo view`.

use svc_protocol::monorepo::{Monorepo, RepoList};

use crate::browser;
use crate::client::{Session, split_full_name};
use crate::commands::{Global, print};
use crate::error::Result;
use crate::terminal::when;

/// Show a monorepo and its repos
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub monorepo: String,
    /// Open its page in your browser (or print the page's address when none can be opened)
    #[arg(long)]
    pub web: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (owner, name) = split_full_name(&args.monorepo)?;
    let session = Session::open(global.server.as_deref())?;
    let monorepo: Monorepo = session.get(&format!("/v1/monorepos/{owner}/{name}"))?;
    if args.web {
        return browser::show(
            global,
            &browser::monorepo_page(&session.server, &monorepo.owner, &monorepo.name),
        );
    }
    let repos: RepoList = session.get(&format!("/v1/monorepos/{owner}/{name}/repos"))?;
    let value = serde_json::json!({"monorepo": monorepo, "repos": repos.items});
    print(global, &value, || {
        let mut text = format!(
            "{} ({}; you are {}; created {})\n",
            monorepo.full_name,
            monorepo.kind.as_str(),
            monorepo.role.as_str(),
            when(monorepo.created_at)
        );
        if repos.items.is_empty() {
            text.push_str("No repos yet\n");
        } else {
            text.push('\n');
            text.push_str(&crate::commands::repo::table(&repos.items).render());
        }
        text
    })
}
