//! `svc monorepo create`.

use reqwest::Method;
use svc_protocol::monorepo::{CreateMonorepo, MonorepoChanged, MonorepoKind};

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;

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
    print(global, &made, || {
        let mut text = format!("Created {} ({})", made.monorepo.full_name, made.monorepo.id);
        if let Some(old) = &made.replaced_alias {
            text.push_str(&format!(
                "\nThe old label {old} of another monorepo now names this one."
            ));
        }
        text
    })
}
