//! `svc credential create`.

use reqwest::Method;
use svc_protocol::user::{CreateCredential, CredentialKind, NewCredential, Permission};

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::Result;

/// Make a credential for another machine or a cloud sandbox; its token is shown once
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A name that says where it will be used
    pub name: String,
    /// Make a sandbox credential instead of a machine one
    #[arg(long)]
    pub sandbox: bool,
    /// Seconds until it expires [default: never]
    #[arg(long, value_name = "SECONDS")]
    pub expires_in: Option<u64>,
    /// A permission it holds (repeatable). Without any, a machine credential holds every
    /// permission and a sandbox none; `write_builds` lets it rebuild, cancel and retry CI
    /// builds
    #[arg(long = "permission", value_name = "NAME", value_parser = ["write_builds"])]
    pub permissions: Vec<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let kind = if args.sandbox {
        CredentialKind::Sandbox
    } else {
        CredentialKind::Machine
    };
    let body = CreateCredential {
        name: args.name.clone(),
        kind,
        expires_in: args.expires_in,
        permissions: (!args.permissions.is_empty()).then(|| {
            args.permissions
                .iter()
                .filter_map(|p| Permission::parse(p))
                .collect()
        }),
    };
    let made: NewCredential = session.call(
        session
            .request(Method::POST, "/v1/user/credentials")?
            .json(&body),
    )?;
    print(global, &made, || {
        format!(
            "Made {} ({}). Its token, shown once:\n{}",
            made.name, made.id, made.token
        )
    })
}
