//! `svc git-credential get|store|erase`: git's credential helper protocol.
//!
//! Fast on purpose (git runs it for every fetch and push): no network, no runtime.

use std::io::BufRead;

use crate::config::{Hosts, config_dir};
use crate::credstore;
use crate::error::Result;
use crate::terminal::outln;

/// Answer git's credential requests (configured by svc auth setup-git and svc clone)
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What git asks: get, store or erase
    #[arg(value_parser = ["get", "store", "erase"])]
    pub operation: String,
}

pub fn run(args: &Args) -> Result<()> {
    let mut request = std::collections::BTreeMap::new();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once('=') {
            request.insert(k.to_owned(), v.to_owned());
        }
    }
    // Store and erase are git's bookkeeping: they never log anyone out.
    if args.operation != "get" {
        return Ok(());
    }
    let (Some(protocol), Some(host)) = (request.get("protocol"), request.get("host")) else {
        return Ok(());
    };
    let server = format!("{protocol}://{host}");
    let token = match std::env::var("SVC_TOKEN").ok().filter(|t| !t.is_empty()) {
        Some(token) => Some(token),
        None => {
            let dir = config_dir()?;
            match Hosts::load(&dir)?.servers.get(&server) {
                Some(h) => credstore::load(&dir, &server, &h.store)?,
                None => None,
            }
        }
    };
    if let Some(token) = token {
        outln!("username=svc\npassword={token}")?;
    }
    Ok(())
}
