//! `svc hook list`.

use reqwest::Method;
use svc_protocol::hook::{HookKind, HookList};

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs};
use crate::terminal::when;

/// List a monorepo's hooks with their newest delivery (owners)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let path = format!("{}/hooks", target.path());
    let list: HookList = super::call(&target, target.session.request(Method::GET, &path)?)?;
    print_list(global, &list, || {
        if list.items.is_empty() {
            return Listing::empty(format!("{} has no hooks", target.label()));
        }
        let mut table = Table::new(&["ID", "KIND", "URL/PIPELINE", "EVENTS", "LAST DELIVERY"]);
        for hook in &list.items {
            let mut kind = super::kind(hook.kind).to_owned();
            if !hook.active {
                kind.push_str(" (inactive)");
            }
            let to = match hook.kind {
                HookKind::Web => hook.url.clone().unwrap_or_else(|| "-".to_owned()),
                HookKind::Ci => super::pipeline(hook),
            };
            let last = match &hook.last_delivery {
                Some(d) => format!("{} {}", d.state.as_str(), when(d.created_at)),
                None => "-".to_owned(),
            };
            table.row(vec![hook.id.clone(), kind, to, hook.events.join(","), last]);
        }
        Listing::of(table)
    })
}
