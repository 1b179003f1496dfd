//! `svc release list`.

use indicatif::HumanBytes;
use svc_protocol::release::ReleaseList;

use crate::commands::{Global, Listing, branch, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, RepoArgs, encode};
use crate::terminal::{errln, when};

/// List a repo's releases, newest first (a draft by its making, the rest by publication)
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
    let mut path = format!("{}/releases", target.path());
    if let Some(cursor) = &args.cursor {
        path.push_str(&format!("?cursor={}", encode(cursor)));
    }
    let list: ReleaseList = target.session.get(&path)?;
    print_list(global, &list, || {
        if list.items.is_empty() {
            return Listing::empty(format!("{} has no releases", target.label()));
        }
        let mut table = Table::new(&["TAG", "STATE", "COMMIT", "FILES", "AUTHOR", "WHEN", "TITLE"]);
        for r in &list.items {
            let size: u64 = r.files.iter().map(|f| f.size).sum();
            let files = match r.files.len() {
                0 => "-".to_owned(),
                n => format!("{n} ({})", HumanBytes(size)),
            };
            table.row(vec![
                r.tag.clone(),
                super::state(r).to_owned(),
                branch::short(&r.commit).to_owned(),
                files,
                r.author.clone(),
                when(r.published_at.unwrap_or(r.created_at)),
                r.title.clone().unwrap_or_default(),
            ]);
        }
        Listing::of(table)
    })?;
    if let (Some(cursor), false) = (&list.next_cursor, global.json) {
        errln!("More: svc release list --cursor {cursor}");
    }
    Ok(())
}
