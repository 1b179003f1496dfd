//! `svc branch list`.

use svc_protocol::branch::BranchList;

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, RepoArgs};
use crate::terminal::{errln, when};

/// List a repo's branches: main first, then open and merged ones, newest first
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// Only branches in these states: open, merged or both, like open,merged
    #[arg(long, value_name = "STATES")]
    pub state: Option<String>,
    /// At most this many rows; above the server's page of 100, svc asks page after page
    #[arg(long, short = 'L', value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: Option<u32>,
    /// Go on where a previous page ended (its next_cursor)
    #[arg(long)]
    pub cursor: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    if let Some(state) = &args.state {
        query.append_pair("state", state);
    }
    let query = query.finish();
    let path = format!("{}/branches", target.path());
    let path = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    let list: BranchList = target
        .session
        .get_list(&path, args.limit, args.cursor.as_deref())?;
    print_list(global, &list, || {
        let mut notes = vec![match list.default_head.as_deref() {
            Some(head) => format!("{} is at {}", list.default_branch, super::short(head)),
            None => format!("{} is empty", list.default_branch),
        }];
        if list.items.is_empty() {
            notes.push("No other branches".to_owned());
            return Listing { notes, table: None };
        }
        let mut table = Table::new(&[
            "BRANCH",
            "STATE",
            "COMMITS",
            "MERGEABLE",
            "CHECKS",
            "AUTHOR",
            "PUSHED",
            "TITLE",
        ]);
        for b in &list.items {
            table.row(vec![
                b.name.clone(),
                b.state.clone(),
                super::ahead_behind(b),
                super::mergeable(b),
                b.checks.build_state.replace('_', " "),
                b.author.clone().unwrap_or_else(|| "-".to_owned()),
                when(b.pushed_at),
                b.title.clone().unwrap_or_default(),
            ]);
        }
        Listing {
            notes,
            table: Some(table),
        }
    })?;
    if let (Some(cursor), false) = (&list.next_cursor, global.json) {
        errln!("More: svc branch list --cursor {cursor}");
    }
    Ok(())
}
