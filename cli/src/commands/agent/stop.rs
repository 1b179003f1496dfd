//! `svc agent stop`.

use reqwest::Method;
use svc_protocol::agent::{Session, SessionState};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};

/// Stop an agent session's run
///
/// The agent is stopped where it is: what it pushed stays pushed. A stopped session keeps
/// its transcript, and svc agent send runs it again.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    #[arg(help = super::ID_HELP)]
    pub id: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let path = super::session_path(&target, &args.id);
    // Read first: the stop answers a session that had ended as it is, stopped or not.
    let before: Session = target.session.get(&path)?;
    if !before.state.is_live() {
        return print(global, &before, || {
            format!(
                "{} had already ended: it is {}",
                before.id,
                before.state.as_str()
            )
        });
    }
    let stop = target
        .session
        .request(Method::POST, &format!("{path}/stop"))?;
    let session: Session = target.session.call(stop)?;
    print(global, &session, || match session.state {
        SessionState::Stopped => format!("Stopped {}", super::headline(&session)),
        s if s.is_live() => format!("Stopping {}", super::headline(&session)),
        s => format!("{} had already ended: it is {}", session.id, s.as_str()),
    })
}
