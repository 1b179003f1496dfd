//! `svc issue list`.

use svc_protocol::issue::IssueList;

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs};
use crate::terminal::{errln, when};

/// List issues, newest first: open ones unless told otherwise
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// open, closed or all
    #[arg(long, default_value = "open")]
    pub state: String,
    /// Words that must all appear in the title or body (the last may be the start of a word)
    #[arg(long, short = 's')]
    pub search: Option<String>,
    /// Only issues with all of these labels, like bug,question
    #[arg(long, short = 'l')]
    pub label: Option<String>,
    /// Only issues assigned to this login
    #[arg(long, short = 'a')]
    pub assignee: Option<String>,
    /// Only issues about this repo
    #[arg(long)]
    pub project: Option<String>,
    /// newest, oldest, updated or comments
    #[arg(long)]
    pub sort: Option<String>,
    /// At most this many rows; above the server's page of 100, svc asks page after page
    #[arg(long, short = 'L', value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: Option<u32>,
    /// Go on where a previous page ended (its next_cursor)
    #[arg(long)]
    pub cursor: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query.append_pair("state", &args.state);
    let optional = [
        ("q", args.search.as_deref()),
        ("labels", args.label.as_deref()),
        ("assignee", args.assignee.as_deref()),
        ("project", args.project.as_deref()),
        ("sort", args.sort.as_deref()),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            query.append_pair(key, value);
        }
    }
    let path = format!("{}/issues?{}", target.path(), query.finish());
    let list: IssueList = target
        .session
        .get_list(&path, args.limit, args.cursor.as_deref())?;
    print_list(global, &list, || {
        let mut notes = vec![format!(
            "{} open, {} closed in {}",
            list.open_count,
            list.closed_count,
            target.label()
        )];
        if list.items.is_empty() {
            notes.push("No issues match".to_owned());
            return Listing { notes, table: None };
        }
        let mut table = Table::new(&[
            "#",
            "STATE",
            "TITLE",
            "LABELS",
            "ASSIGNEES",
            "COMMENTS",
            "UPDATED",
        ]);
        for issue in &list.items {
            table.row(vec![
                issue.number.to_string(),
                issue.state.as_str().to_owned(),
                issue.title.clone(),
                issue.labels.join(", "),
                issue.assignees.join(", "),
                issue.comments.to_string(),
                when(issue.updated_at),
            ]);
        }
        Listing {
            notes,
            table: Some(table),
        }
    })?;
    if let (Some(cursor), false) = (&list.next_cursor, global.json) {
        errln!("More: --cursor {cursor}");
    }
    Ok(())
}
