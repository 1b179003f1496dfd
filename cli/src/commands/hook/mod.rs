//! `svc hook ...`: a monorepo's hooks and their deliveries.

pub mod create;
pub mod delete;
pub mod deliveries;
pub mod list;
pub mod redeliver;
pub mod replay;

use reqwest::blocking::{RequestBuilder, Response};
use serde::de::DeserializeOwned;
use svc_protocol::ErrorCode;
use svc_protocol::hook::{DeliveryTry, Hook, HookDelivery, HookKind};

use super::Global;
use crate::error::Result;
use crate::target::{MonorepoTarget, encode};

/// Make, list and delete a monorepo's hooks; see, redeliver and replay their deliveries (owners)
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    List(list::Args),
    Create(create::Args),
    Delete(delete::Args),
    Deliveries(deliveries::Args),
    Redeliver(redeliver::Args),
    Replay(replay::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::List(args) => list::run(global, &args),
        Command::Create(args) => create::run(global, &args),
        Command::Delete(args) => delete::run(global, &args),
        Command::Deliveries(args) => deliveries::run(global, &args),
        Command::Redeliver(args) => redeliver::run(global, &args),
        Command::Replay(args) => replay::run(global, &args),
    }
}

/// `{m}/hooks/{id}` with the id as one path segment.
pub fn path(target: &MonorepoTarget, id: &str) -> String {
    format!("{}/hooks/{}", target.path(), encode(id))
}

/// Sends, insisting on success; a `forbidden` refusal says who may manage hooks.
pub fn send(target: &MonorepoTarget, request: RequestBuilder) -> Result<Response> {
    let session = &target.session;
    session.answer(request)?.map_err(|refusal| {
        let forbidden = refusal
            .error
            .as_ref()
            .is_some_and(|e| e.code == ErrorCode::Forbidden);
        let error = session.refusal(refusal);
        match forbidden {
            true => error.hint(format!(
                "only the owners of {0} see and manage its hooks; svc monorepo view {0} shows your role",
                target.label()
            )),
            false => error,
        }
    })
}

/// [`send`], then decodes the JSON answer.
pub fn call<T: DeserializeOwned>(target: &MonorepoTarget, request: RequestBuilder) -> Result<T> {
    send(target, request)?
        .json()
        .map_err(|e| target.session.garbled(&e))
}

/// The newest of a delivery's tries.
pub fn last_try(delivery: &HookDelivery) -> Option<&DeliveryTry> {
    delivery.tries.iter().max_by_key(|t| t.at)
}

/// What the last try got: the receiver's HTTP status, else the error; `-` before any try.
pub fn last_status(delivery: &HookDelivery) -> String {
    match last_try(delivery) {
        None => "-".to_owned(),
        Some(DeliveryTry {
            status: Some(status),
            ..
        }) => format!("HTTP {status}"),
        Some(DeliveryTry {
            error: Some(error), ..
        }) => error.clone(),
        Some(_) => "no answer".to_owned(),
    }
}

/// `1 delivery`, `3 deliveries`.
pub fn n_deliveries(n: usize) -> String {
    match n {
        1 => "1 delivery".to_owned(),
        n => format!("{n} deliveries"),
    }
}

/// `web` or `ci`.
pub fn kind(kind: HookKind) -> &'static str {
    match kind {
        HookKind::Web => "web",
        HookKind::Ci => "ci",
    }
}

/// A CI hook's `<app> <ci org>/<pipeline slug>`.
pub fn pipeline(hook: &Hook) -> String {
    match (&hook.app, &hook.pipeline) {
        (Some(app), Some(pipeline)) => format!("{app} {pipeline}"),
        (None, Some(pipeline)) => pipeline.clone(),
        (Some(app), None) => app.clone(),
        (None, None) => "-".to_owned(),
    }
}
