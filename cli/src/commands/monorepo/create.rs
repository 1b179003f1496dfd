//! `svc monorepo create`.

use reqwest::Method;
use svc_protocol::monorepo::{CreateMonorepo, MonorepoChanged, MonorepoKind};

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::MonorepoTarget;

/// Make a monorepo (or, with --plain, a plain git repository)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Its name, unique under its owner
    pub name: String,
    /// The namespace to make it in [default: your login]
    #[arg(long)]
    pub owner: Option<String>,
    /// A plain repository: one repo at `.`, no meta layer
    #[arg(long)]
    pub plain: bool,
    /// Import a project's whole history into it: a local git repository's folder, or an
    /// http(s) git URL the server fetches
    #[arg(long, requires = "plain", value_name = "PATH_OR_URL")]
    pub from: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let kind = if args.plain {
        MonorepoKind::Repo
    } else {
        MonorepoKind::Monorepo
    };
    let body = CreateMonorepo {
        name: args.name.clone(),
        owner: args.owner.clone(),
        kind,
    };
    let made: MonorepoChanged =
        session.call(session.request(Method::POST, "/v1/monorepos")?.json(&body))?;
    if let Some(from) = &args.from {
        let target = MonorepoTarget {
            session,
            owner: made.monorepo.owner.clone(),
            monorepo: made.monorepo.name.clone(),
        };
        crate::commands::repo::import::import(&target, ".", from)?;
    }
    print(global, &made, || {
        let mut text = format!("Created {} ({})", made.monorepo.full_name, made.monorepo.id);
        if let Some(from) = &args.from {
            text.push_str(&format!("\nImported {from}"));
        }
        if let Some(old) = &made.replaced_alias {
            text.push_str(&format!(
                "\nThe old label {old} of another monorepo now names this one."
            ));
        }
        text
    })
}
