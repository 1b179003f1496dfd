//! `svc hook replay`.

use reqwest::Method;
use svc_protocol::hook::{REPLAY_MAX, ReplayHook, Replayed};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};
use crate::terminal::errln;

/// Send a hook's deliveries after an event seq again, oldest first (owners)
///
/// Every delivery to the hook whose event seq is higher than --since is queued again,
/// delivered or dead alike, at most 1,000 at a time: a receiver that was down too long or
/// lost what it got catches up. svc hook deliveries shows each delivery's SEQ.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The hook's id (svc hook list shows them)
    pub hook: String,
    /// Send again the deliveries of the events after this seq (0 for all)
    #[arg(long, value_name = "SEQ", value_parser = clap::value_parser!(i64).range(0..))]
    pub since: i64,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let path = format!("{}/replay", super::path(&target, &args.hook));
    let body = ReplayHook { since: args.since };
    let replayed: Replayed = super::call(
        &target,
        target.session.request(Method::POST, &path)?.json(&body),
    )?;
    print(global, &replayed, || match replayed.deliveries.len() {
        0 => format!(
            "No deliveries to the hook {} after seq {}: nothing to send again",
            args.hook, args.since
        ),
        n => format!(
            "Queued {} to the hook {} to be sent again, oldest first",
            super::n_deliveries(n),
            args.hook
        ),
    })?;
    if replayed.deliveries.len() >= REPLAY_MAX && !global.json {
        errln!(
            "A replay sends at most {REPLAY_MAX}; once they are delivered, replay again from the newest one's SEQ (svc hook deliveries {})",
            args.hook
        );
    }
    Ok(())
}
