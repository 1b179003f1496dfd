//! `svc ci builds`.

use reqwest::Method;
use svc_protocol::ci::{CiBuild, CiBuildList};

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs};
use crate::terminal::{errln, when};

/// List the monorepo's builds, newest first
///
/// The builds its CI connections reported, each with its pipeline and number, state (the
/// service's own word in brackets when it says more), branch and commit. svc ci view
/// takes a build's ID, or <pipeline>#<number>.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// Only this pipeline's builds (its slug)
    #[arg(long, short = 'p', value_name = "SLUG")]
    pub pipeline: Option<String>,
    /// At most this many rows, read 30 a page
    #[arg(long, short = 'L', default_value_t = 30, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: u32,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let limit = args.limit as usize;
    let mut items: Vec<CiBuild> = Vec::new();
    let mut cursor: Option<String> = None;
    let more = loop {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        if let Some(pipeline) = &args.pipeline {
            query.append_pair("pipeline", pipeline);
        }
        if let Some(cursor) = &cursor {
            query.append_pair("cursor", cursor);
        }
        let mut path = format!("{}/builds", super::ci_path(&target));
        let query = query.finish();
        if !query.is_empty() {
            path.push('?');
            path.push_str(&query);
        }
        let page: CiBuildList = super::call(&target, target.session.request(Method::GET, &path)?)?;
        let room = limit - items.len();
        if page.items.len() > room {
            // Cut short within a page: there is more, but no cursor points just after it.
            items.extend(page.items.into_iter().take(room));
            cursor = None;
            break true;
        }
        items.extend(page.items);
        cursor = page.next_cursor;
        if cursor.is_none() || items.len() >= limit {
            break cursor.is_some();
        }
    };
    let listed = CiBuildList {
        items,
        next_cursor: cursor,
    };
    print_list(global, &listed, || {
        if listed.items.is_empty() {
            return Listing::empty(match &args.pipeline {
                Some(p) => format!("{} has no builds of the pipeline {p}", target.label()),
                None => format!("{} has no builds", target.label()),
            });
        }
        let mut table = Table::new(&[
            "ID", "PIPELINE", "#NUMBER", "STATE", "BRANCH", "COMMIT", "CREATED",
        ]);
        for b in &listed.items {
            table.row(vec![
                b.id.clone(),
                b.pipeline.clone(),
                format!("#{}", b.number),
                super::state(b.state, &b.service_state),
                super::dash(b.branch.as_deref()),
                super::short_sha(b.commit.as_deref()),
                when(b.created_at),
            ]);
        }
        Listing::of(table)
    })?;
    if more && !global.json {
        errln!("Only the newest {limit} are listed; --limit <N> lists more");
    }
    Ok(())
}
