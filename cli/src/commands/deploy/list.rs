//! `svc deploy list`.

use svc_protocol::release::DeploymentList;

use crate::commands::{Global, Listing, branch, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, RepoArgs, encode};
use crate::terminal::{errln, when};

/// List a repo's recorded deployments, newest first
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// Go on where a previous page ended (its next_cursor)
    #[arg(long)]
    pub cursor: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let mut path = format!("{}/deployments", target.path());
    if let Some(cursor) = &args.cursor {
        path.push_str(&format!("?cursor={}", encode(cursor)));
    }
    let list: DeploymentList = target.session.get(&path)?;
    print_list(global, &list, || {
        if list.items.is_empty() {
            return Listing::empty(format!("{} has no recorded deployments", target.label()));
        }
        let mut table = Table::new(&[
            "ID",
            "ENVIRONMENT",
            "COMMIT",
            "RELEASE",
            "BY",
            "WHEN",
            "URL",
            "DESCRIPTION",
        ]);
        let dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".to_owned());
        for d in &list.items {
            table.row(vec![
                d.id.to_string(),
                d.environment.clone(),
                branch::short(&d.sha).to_owned(),
                dash(&d.release),
                d.created_by.clone(),
                when(d.created_at),
                dash(&d.url),
                d.description.clone().unwrap_or_default(),
            ]);
        }
        Listing::of(table)
    })?;
    if let (Some(cursor), false) = (&list.next_cursor, global.json) {
        errln!("More: svc deploy list --cursor {cursor}");
    }
    Ok(())
}
