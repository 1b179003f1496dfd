//! `svc label list`.

use svc_protocol::issue::LabelList;

use crate::commands::{Global, Listing, print_list};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs};

/// List a monorepo's labels by name, with their open issues
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let list: LabelList = target.session.get(&format!("{}/labels", target.path()))?;
    print_list(global, &list, || {
        let mut table = Table::new(&["LABEL", "COLOR", "OPEN", "DESCRIPTION"]);
        for label in &list.items {
            table.row(vec![
                label.name.clone(),
                label.color.as_str().to_owned(),
                label.open_issues.to_string(),
                label.description.clone().unwrap_or_default(),
            ]);
        }
        Listing::of(table)
    })
}
