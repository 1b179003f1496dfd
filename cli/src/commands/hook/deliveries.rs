//! `svc hook deliveries`.

use reqwest::Method;
use svc_protocol::hook::{DELIVERIES_LISTED, HookDeliveryList};

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs};
use crate::terminal::{errln, until};

/// List a hook's deliveries, newest first, the last 100 (owners)
///
/// Each delivery is one event sent to the hook: its event seq, its state (pending,
/// delivered or dead), the tries made, when the next is due, and what the last one got
/// (the receiver's HTTP status, or the error). With --json: each delivery with its last
/// 10 tries and the body as last sent.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The hook's id (svc hook list shows them)
    pub hook: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let path = format!("{}/deliveries", super::path(&target, &args.hook));
    let list: HookDeliveryList = super::call(&target, target.session.request(Method::GET, &path)?)?;
    print_list(global, &list, || {
        if list.items.is_empty() {
            return Listing::empty(format!("No deliveries to the hook {} yet", args.hook));
        }
        let mut table = Table::new(&[
            "ID",
            "EVENT",
            "SEQ",
            "STATE",
            "ATTEMPTS",
            "NEXT TRY",
            "LAST STATUS",
        ]);
        for d in &list.items {
            table.row(vec![
                d.id.clone(),
                d.event.clone(),
                d.seq.map_or_else(|| "-".to_owned(), |s| s.to_string()),
                d.state.as_str().to_owned(),
                d.attempts.to_string(),
                d.next_attempt_at.map_or_else(|| "-".to_owned(), until),
                super::last_status(d),
            ]);
        }
        Listing::of(table)
    })?;
    if list.items.len() >= DELIVERIES_LISTED && !global.json {
        errln!(
            "Only the last {DELIVERIES_LISTED} are listed; svc hook replay {} --since <seq> sends older ones again",
            args.hook
        );
    }
    Ok(())
}
