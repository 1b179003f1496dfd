//! `svc ci connect`.

use reqwest::Method;
use svc_protocol::ci::{CreateCiConnection, CreatedCiConnection};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Connect the monorepo to a Buildkite organization (owners)
///
/// The answer gives the webhook URL and the webhook token to set up in Buildkite: add a
/// webhook (Settings > Notification Services) that sends the build.* and job.* events to
/// the URL, with the token as its Token. Builds and jobs are then reported to svc as they
/// run. The token is shown only this once.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The CI organization's slug, as in its URLs (buildkite.com/<organization>)
    pub organization: String,
    /// The CI service
    #[arg(long, default_value = "buildkite", value_parser = ["buildkite"])]
    pub service: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let body = CreateCiConnection {
        service: args.service.clone(),
        organization: args.organization.clone(),
    };
    let path = format!("{}/connections", super::ci_path(&target));
    let created: CreatedCiConnection = super::call(
        &target,
        target.session.request(Method::POST, &path)?.json(&body),
    )?;
    print(global, &created, || {
        let c = &created.connection;
        format!(
            "Connected {} to the {} organization {}: connection {}\n\n    \
             Webhook URL:   {}\n    \
             Webhook token: {}\n\n\
             In {}, add a webhook to that URL for the build.* and job.* events, and put the\n\
             token in its Token setting. Keep the token now: it is shown only this once.\n",
            target.label(),
            c.service,
            c.organization,
            c.id,
            c.webhook_url,
            created.webhook_token,
            service_name(&c.service),
        )
    })
}

/// `Buildkite` for `buildkite`.
fn service_name(service: &str) -> String {
    let mut chars = service.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
