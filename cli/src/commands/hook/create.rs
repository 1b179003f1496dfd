//! `svc hook create`.

use reqwest::Method;
use svc_protocol::hook::{CreateHook, CreatedHook, EVENTS, HookKind};

use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::target::{self, MonorepoArgs};

/// Make a hook (owners): POST each event to a URL, or start a CI build with --ci
///
/// A web hook POSTs each event as JSON to --url, signed with the hook's secret in
/// X-Svc-Signature-256 (HMAC-SHA256). Delivery is at least once: a failed one is tried
/// again after 10 s, 1 min, 5 min and 30 min, then is dead until svc hook redeliver or
/// svc hook replay sends it again. The secret is shown only once, in this command's
/// answer. A CI hook (--ci --app buildkite --pipeline <org>/<slug>) starts a build of
/// the pipeline on each event instead.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("kind").required(true).args(["url", "ci"])))]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// Where a web hook POSTs the events (http or https)
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// An event to send, again for each more [default: push]
    #[arg(long = "event", short = 'e', value_name = "EVENT", value_parser = EVENTS)]
    pub events: Vec<String>,
    /// The signing key, 16 to 256 characters [default: one the server makes]
    #[arg(long)]
    pub secret: Option<String>,
    /// Make a CI hook, which starts builds (needs --app and --pipeline)
    #[arg(long, requires_all = ["app", "pipeline"])]
    pub ci: bool,
    /// The CI service, like buildkite
    #[arg(long, requires = "ci")]
    pub app: Option<String>,
    /// The CI pipeline, <ci org>/<pipeline slug>
    #[arg(long, value_name = "ORG/SLUG", requires = "ci")]
    pub pipeline: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    if let Some(pipeline) = &args.pipeline {
        let parts: Vec<&str> = pipeline.split('/').collect();
        if parts.len() != 2 || parts.iter().any(|p| p.is_empty()) {
            return Err(CommandError::user(format!(
                "--pipeline {pipeline} is not <ci org>/<pipeline slug>"
            ))
            .hint("like --pipeline acme/deploy"));
        }
    }
    let target = target::monorepo(global, &args.monorepo)?;
    let mut events: Vec<String> = Vec::new();
    for event in &args.events {
        if !events.contains(event) {
            events.push(event.clone());
        }
    }
    let body = CreateHook {
        kind: if args.ci { HookKind::Ci } else { HookKind::Web },
        url: args.url.clone(),
        secret: args.secret.clone(),
        events: Some(events).filter(|e| !e.is_empty()),
        app: args.app.clone(),
        pipeline: args.pipeline.clone(),
    };
    let path = format!("{}/hooks", target.path());
    let created: CreatedHook = super::call(
        &target,
        target.session.request(Method::POST, &path)?.json(&body),
    )?;
    print(global, &created, || {
        let hook = &created.hook;
        let to = match hook.kind {
            HookKind::Web => format!("POSTs to {}", hook.url.as_deref().unwrap_or("-")),
            HookKind::Ci => format!("builds {}", super::pipeline(hook)),
        };
        format!(
            "Made the {} hook {} in {}: it {to} on {}\n\n    \
             Secret: {}\n\n\
             Keep the secret now: it is shown only this once.\n",
            super::kind(hook.kind),
            hook.id,
            target.label(),
            hook.events.join(", "),
            created.secret,
        )
    })
}
