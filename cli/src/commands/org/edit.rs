//! `svc org edit`.

use reqwest::Method;
use svc_protocol::org::{Org, UpdateOrg};

use crate::client::Session;
use crate::commands::{Global, print};
use crate::error::{CommandError, Result};

/// Change an organization's name, description or picture (owners only); what is not
/// given stays
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The org's login
    pub org: String,
    /// A new display name
    #[arg(long, conflicts_with = "no_name")]
    pub name: Option<String>,
    /// Clear the display name
    #[arg(long)]
    pub no_name: bool,
    /// A new description
    #[arg(long, conflicts_with = "no_description")]
    pub description: Option<String>,
    /// Clear the description
    #[arg(long)]
    pub no_description: bool,
    /// A new picture, an https URL
    #[arg(long, value_name = "URL", conflicts_with = "no_picture_url")]
    pub picture_url: Option<String>,
    /// Clear the picture
    #[arg(long)]
    pub no_picture_url: bool,
}

/// A field of the update: a new value, cleared (`null` on the wire), or kept (omitted).
fn change(value: &Option<String>, clear: bool) -> Option<Option<String>> {
    match (value, clear) {
        (Some(v), _) => Some(Some(v.clone())),
        (None, true) => Some(None),
        (None, false) => None,
    }
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let body = UpdateOrg {
        name: change(&args.name, args.no_name),
        description: change(&args.description, args.no_description),
        picture_url: change(&args.picture_url, args.no_picture_url),
    };
    if body.name.is_none() && body.description.is_none() && body.picture_url.is_none() {
        return Err(CommandError::user("nothing to change").hint(
            "pass --name, --description or --picture-url (or --no-name, --no-description, --no-picture-url to clear one)",
        ));
    }
    let session = Session::open(global.server.as_deref())?;
    let org: Org = session.call(
        session
            .request(Method::PATCH, &super::path(&args.org, ""))?
            .json(&body),
    )?;
    print(global, &org, || {
        format!("Updated {}\n{}", org.login, super::describe(&org))
    })
}
