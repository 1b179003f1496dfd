//! `svc agent models`.

use svc_protocol::agent::AgentModelList;

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs};

/// List the models agent sessions may run, the default marked
///
/// --model of svc agent launch, review and chat, and of svc issue agent, takes a model's
/// ID; a session that names none runs the default.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let list: AgentModelList = target
        .session
        .get(&format!("{}/agent-models", target.path()))?;
    print_list(global, &list, || {
        if list.items.is_empty() {
            return Listing::empty(format!("{} offers no agent models", target.label()));
        }
        let mut table = Table::new(&["MODEL", "RUNNER", "DEFAULT"]);
        for m in &list.items {
            table.row(vec![
                m.id.clone(),
                m.runner.clone(),
                if m.default { "yes" } else { "" }.to_owned(),
            ]);
        }
        Listing::of(table)
    })
}
