//! `svc ci status`.

use reqwest::Method;
use svc_protocol::ci::CiOverview;

use crate::commands::{Global, print};
use crate::error::Result;
use crate::table::Table;
use crate::target::{self, MonorepoArgs, MonorepoTarget};
use crate::terminal::when;

/// Show the monorepo's CI: its connections, the pipelines builds came from, each repo's required checks
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let overview: CiOverview = super::call(
        &target,
        target
            .session
            .request(Method::GET, &super::ci_path(&target))?,
    )?;
    print(global, &overview, || human(&target, &overview))
}

fn human(target: &MonorepoTarget, o: &CiOverview) -> String {
    let mut text = String::new();
    let indent = |text: &mut String, table: &Table| {
        for line in table.render().lines() {
            text.push_str(&format!("  {line}\n"));
        }
    };
    if o.connections.is_empty() {
        text.push_str("Connections: none\n");
        if o.services.is_empty() {
            text.push_str("  this server has no CI service configured\n");
        } else {
            text.push_str(&format!(
                "  svc ci connect -R {} <organization> connects one ({})\n",
                target.label(),
                o.services.join(", ")
            ));
        }
    } else {
        text.push_str("Connections:\n");
        let mut table = Table::new(&["ID", "SERVICE", "ORGANIZATION", "CREATED", "WEBHOOK URL"]);
        for c in &o.connections {
            table.row(vec![
                c.id.clone(),
                c.service.clone(),
                c.organization.clone(),
                when(c.created_at),
                c.webhook_url.clone(),
            ]);
        }
        indent(&mut text, &table);
    }
    if o.pipelines.is_empty() {
        text.push_str("Pipelines: none reported yet\n");
    } else {
        text.push_str("Pipelines:\n");
        let mut table = Table::new(&["PIPELINE", "CONNECTION"]);
        for p in &o.pipelines {
            table.row(vec![p.slug.clone(), p.connection.clone()]);
        }
        indent(&mut text, &table);
    }
    if o.required_checks.is_empty() {
        text.push_str("Required checks: no repos\n");
    } else {
        text.push_str("Required checks:\n");
        let mut table = Table::new(&["REPO", "REQUIRED"]);
        for r in &o.required_checks {
            let required = match &r.required {
                None => "unknown: the required checks in .svc/svc.toml on main cannot be read"
                    .to_owned(),
                Some(list) if list.is_empty() => "none".to_owned(),
                Some(list) => list.join(", "),
            };
            table.row(vec![r.repo.clone(), required]);
        }
        indent(&mut text, &table);
    }
    text
}
