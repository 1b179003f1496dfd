//! Every command: one file per leaf command, a folder per group.

pub mod admin;
pub mod agent;
pub mod api;
pub mod artifact;
pub mod auth;
pub mod branch;
pub mod change;
pub mod checks;
pub mod ci;
pub mod clone;
pub mod completions;
pub mod credential;
pub mod daemon;
pub mod deploy;
pub mod git_credential;
pub mod hook;
pub mod issue;
pub mod label;
pub mod login;
pub mod logout;
pub mod mcp;
pub mod member;
pub mod meta;
pub mod monorepo;
pub mod org;
pub mod queue;
pub mod release;
pub mod repo;
pub mod review;
pub mod status;
pub mod sync;
pub mod worktree;

use clap::{Parser, Subcommand};
use serde::Serialize;

use crate::error::{CommandError, Result};
use crate::table::Table;
use crate::terminal::{errln, outln, write_out};

/// svc: host, follow and collaborate on monorepos.
#[derive(Debug, Parser)]
#[command(name = "svc", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Clone, clap::Args)]
pub struct Global {
    /// The svc server, like https://svc.example.com [default: the one you logged in to]
    #[arg(long, global = true, env = "SVC_SERVER", value_name = "URL")]
    pub server: Option<String>,
    /// Print data as JSON, and errors as JSON on stderr
    #[arg(long, global = true)]
    pub json: bool,
    /// Filter the JSON through a jq expression (implies --json); each result on a line,
    /// strings as their bare text, like `gh --jq`
    #[arg(long, global = true, value_name = "EXPR", value_parser = crate::jq::parse)]
    pub jq: Option<crate::jq::Expr>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Login(login::Args),
    Logout(logout::Args),
    #[command(subcommand)]
    Auth(auth::Command),
    GitCredential(git_credential::Args),
    #[command(subcommand)]
    Credential(credential::Command),
    #[command(subcommand)]
    Monorepo(monorepo::Command),
    #[command(subcommand)]
    Org(org::Command),
    #[command(subcommand)]
    Member(member::Command),
    #[command(subcommand)]
    Admin(admin::Command),
    #[command(subcommand)]
    Issue(issue::Command),
    #[command(subcommand)]
    Agent(agent::Command),
    #[command(subcommand)]
    Label(label::Command),
    #[command(subcommand)]
    Repo(repo::Command),
    Clone(clone::Args),
    #[command(subcommand)]
    Branch(branch::Command),
    #[command(subcommand)]
    Change(change::Command),
    #[command(subcommand)]
    Queue(queue::Command),
    Review(review::Args),
    Status(status::Args),
    Checks(checks::Args),
    #[command(subcommand)]
    Artifact(artifact::Command),
    #[command(subcommand)]
    Release(release::Command),
    #[command(subcommand)]
    Deploy(deploy::Command),
    #[command(subcommand)]
    Hook(hook::Command),
    #[command(subcommand)]
    Ci(ci::Command),
    Sync(sync::Args),
    Api(api::Args),
    Mcp(mcp::Args),
    /// The older name of `svc sync`, still accepted
    #[command(subcommand, hide = true)]
    Meta(meta::Command),
    Completions(completions::Args),
    #[command(subcommand)]
    Daemon(daemon::Command),
    #[command(subcommand)]
    Worktree(worktree::Command),
}

pub fn run(cli: Cli) -> Result<()> {
    let g = &cli.global;
    match cli.command {
        Command::Login(args) => login::run(g, &args),
        Command::Logout(args) => logout::run(g, &args),
        Command::Auth(cmd) => auth::run(g, cmd),
        Command::GitCredential(args) => git_credential::run(&args),
        Command::Credential(cmd) => credential::run(g, cmd),
        Command::Monorepo(cmd) => monorepo::run(g, cmd),
        Command::Org(cmd) => org::run(g, cmd),
        Command::Member(cmd) => member::run(g, cmd),
        Command::Admin(cmd) => admin::run(g, cmd),
        Command::Issue(cmd) => issue::run(g, cmd),
        Command::Agent(cmd) => agent::run(g, cmd),
        Command::Label(cmd) => label::run(g, cmd),
        Command::Repo(cmd) => repo::run(g, cmd),
        Command::Clone(args) => clone::run(g, &args),
        Command::Branch(cmd) => branch::run(g, cmd),
        Command::Change(cmd) => change::run(g, cmd),
        Command::Queue(cmd) => queue::run(g, cmd),
        Command::Review(args) => review::run(g, &args),
        Command::Status(args) => status::run(g, &args),
        Command::Checks(args) => checks::run(g, &args),
        Command::Artifact(cmd) => artifact::run(g, cmd),
        Command::Release(cmd) => release::run(g, cmd),
        Command::Deploy(cmd) => deploy::run(g, cmd),
        Command::Hook(cmd) => hook::run(g, cmd),
        Command::Ci(cmd) => ci::run(g, cmd),
        Command::Sync(args) => sync::run(g, &args),
        Command::Api(args) => api::run(g, &args),
        Command::Mcp(args) => mcp::run(g, &args),
        Command::Meta(cmd) => meta::run(g, cmd),
        Command::Daemon(cmd) => daemon::run(g, cmd),
        Command::Worktree(cmd) => worktree::run(g, cmd),
        Command::Completions(args) => completions::run(&args),
    }
}

/// Prints `value` as JSON when asked, else the human lines.
pub fn print<T: Serialize>(
    global: &Global,
    value: &T,
    human: impl FnOnce() -> String,
) -> Result<()> {
    if global.json {
        return print_json(global, value);
    }
    let text = human();
    if !text.is_empty() {
        outln!("{}", text.trim_end())?;
    }
    Ok(())
}

/// A list for people: its table, and notes about it.
pub struct Listing {
    /// Said after the table: what is listed, counts, that there are no rows.
    pub notes: Vec<String>,
    /// The header and rows; None when there are no rows.
    pub table: Option<Table>,
}

impl Listing {
    /// Rows under their header.
    pub fn of(table: Table) -> Listing {
        Listing {
            notes: Vec::new(),
            table: Some(table),
        }
    }

    /// No rows, and the note saying so.
    pub fn empty(note: impl Into<String>) -> Listing {
        Listing {
            notes: vec![note.into()],
            table: None,
        }
    }
}

/// Prints a list: JSON when asked; else its table alone on stdout, header row first, then
/// its notes on stderr (the rule is [`crate::terminal`]'s).
pub fn print_list<T: Serialize>(
    global: &Global,
    value: &T,
    human: impl FnOnce() -> Listing,
) -> Result<()> {
    if global.json {
        return print_json(global, value);
    }
    let listing = human();
    if let Some(table) = listing.table {
        write_out(table.render().as_bytes())?;
    }
    for note in &listing.notes {
        errln!("{note}");
    }
    Ok(())
}

/// The JSON of `value`, indented; or, with `--jq`, the filter's results.
pub fn print_json<T: Serialize>(global: &Global, value: &T) -> Result<()> {
    let cannot = |e: serde_json::Error| {
        CommandError::internal("cannot encode the answer as JSON").because(&e)
    };
    if let Some(expr) = &global.jq {
        let json = serde_json::to_vec(value).map_err(cannot)?;
        for line in crate::jq::lines(expr, &json)? {
            outln!("{line}")?;
        }
        return Ok(());
    }
    let text = serde_json::to_string_pretty(value).map_err(cannot)?;
    outln!("{text}")
}
