//! `svc branch list`.

use svc_protocol::branch::BranchList;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, RepoArgs};

/// List a repo's branches: main first, then open and merged ones, newest first
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// Only branches in these states: open, merged or both, like open,merged
    #[arg(long, value_name = "STATES")]
    pub state: Option<String>,
    /// At most this many rows
    #[arg(long)]
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
    if let Some(limit) = args.limit {
        query.append_pair("limit", &limit.to_string());
    }
    if let Some(cursor) = &args.cursor {
        query.append_pair("cursor", cursor);
    }
    let query = query.finish();
    let path = format!("{}/branches", target.path());
    let path = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    let list: BranchList = target.session.get(&path)?;
    print(global, &list, || {
        let head = list.default_head.as_deref().map_or("(empty)", super::short);
        let mut text = format!("{}\tdefault\t{head}\n", list.default_branch);
        for b in &list.items {
            text.push_str(&format!(
                "{}\t{}\t{}\t{}\tchecks {}\t{}\t{}\n",
                b.name,
                b.state,
                super::ahead_behind(b),
                super::mergeable(b),
                b.checks.build_state.replace('_', " "),
                b.author.as_deref().unwrap_or("-"),
                b.title.as_deref().unwrap_or("")
            ));
        }
        text
    })?;
    if let (Some(cursor), false) = (&list.next_cursor, global.json) {
        eprintln!("More: svc branch list --cursor {cursor}");
    }
    Ok(())
}
