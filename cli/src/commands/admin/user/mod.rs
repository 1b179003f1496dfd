//! `svc admin user ...`: make, list, disable and enable accounts.

pub mod add;
pub mod disable;
pub mod enable;
pub mod list;

use svc_protocol::admin::AdminUser;

use crate::commands::Global;
use crate::error::Result;
use crate::target::encode;

/// Make, list, disable and enable the server's accounts
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Add(add::Args),
    List(list::Args),
    Disable(disable::Args),
    Enable(enable::Args),
}

pub fn run(global: &Global, command: Command) -> Result<()> {
    match command {
        Command::Add(args) => add::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::Disable(args) => disable::run(global, &args),
        Command::Enable(args) => enable::run(global, &args),
    }
}

/// The API path of `login`'s account, or of something under it.
pub fn path(login: &str, rest: &str) -> String {
    format!("/v1/admin/users/{}{rest}", encode(login))
}

/// `admin`, `disabled`, both or neither, for a table cell.
pub fn standing(user: &AdminUser) -> String {
    match (user.admin, user.disabled) {
        (true, true) => "admin, disabled".to_owned(),
        (true, false) => "admin".to_owned(),
        (false, true) => "disabled".to_owned(),
        (false, false) => String::new(),
    }
}
