//! `svc hook redeliver`.

use reqwest::Method;
use svc_protocol::hook::{DeliveryState, HookDelivery};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs, encode};
use crate::terminal::until;

/// Send one delivery of a hook again, dead or not (owners)
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The hook's id (svc hook list shows them)
    pub hook: String,
    /// The delivery's id (svc hook deliveries <hook> shows them)
    pub delivery: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let path = format!(
        "{}/deliveries/{}/redeliver",
        super::path(&target, &args.hook),
        encode(&args.delivery)
    );
    let delivery: HookDelivery =
        super::call(&target, target.session.request(Method::POST, &path)?)?;
    print(global, &delivery, || {
        let what = format!("{} ({})", delivery.id, delivery.event);
        match delivery.state {
            DeliveryState::Delivered => {
                format!("Delivered {what} again: {}", super::last_status(&delivery))
            }
            DeliveryState::Pending => match delivery.next_attempt_at {
                Some(at) => format!("Queued {what} to be delivered again, {}", until(at)),
                None => format!("Queued {what} to be delivered again"),
            },
            DeliveryState::Dead => {
                format!("{what} is dead again: {}", super::last_status(&delivery))
            }
        }
    })
}
