//! `svc status`: your overview, as `gh status`; and the older `svc status post`.

use serde::Serialize;
use svc_protocol::agent::{Session, SessionList, SessionState};
use svc_protocol::feed::{ActivityPage, FeedEvent};
use svc_protocol::issue::{IssueList, IssueRow};
use svc_protocol::monorepo::MonorepoList;
use svc_protocol::needs::{NeedRow, NeedsList};
use svc_protocol::user::User;

use super::{Global, checks, print};
use crate::client;
use crate::error::Result;
use crate::target::encode;
use crate::terminal::{errln, when};

/// Your overview: what needs you, your issues, your running agents, recent activity
///
/// Four lists across every monorepo you are in: your open branches that need you
/// (conflicting, failing, or ready to merge), the open issues assigned to you, the agent
/// sessions you launched that still run, and the newest activity. With --json: one
/// object, {"needs", "issues", "agents", "activity"}. Posting a commit status is now
/// svc checks post.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// How many lines of recent activity to show (1 to 200)
    #[arg(long, default_value_t = 10, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=200))]
    pub activity: u32,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// The older spelling of `svc checks post`, still accepted
    #[command(hide = true)]
    Post(checks::post::Args),
}

/// An open issue assigned to you, with its monorepo.
#[derive(Debug, Serialize)]
struct Assigned {
    monorepo: String,
    #[serde(flatten)]
    issue: IssueRow,
}

/// One of your agent sessions that still runs, with its monorepo.
#[derive(Debug, Serialize)]
struct Running {
    monorepo: String,
    #[serde(flatten)]
    session: Session,
}

#[derive(Debug, Serialize)]
struct Overview {
    needs: Vec<NeedRow>,
    issues: Vec<Assigned>,
    agents: Vec<Running>,
    activity: Vec<FeedEvent>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    if let Some(Command::Post(post)) = &args.command {
        errln!("svc: `svc status post` is now `svc checks post`; the old spelling still works");
        return checks::post::run(global, post);
    }
    let session = client::Session::open(global.server.as_deref())?;
    let me: User = session.get("/v1/user")?;
    let needs: NeedsList = session.get("/v1/branches")?;
    let mut issues = Vec::new();
    for mine in &needs.issues {
        let list: IssueList = session.get(&format!(
            "/v1/monorepos/{}/issues?state=open&assignee={}&limit=100",
            mine.monorepo,
            encode(&me.login)
        ))?;
        issues.extend(list.items.into_iter().map(|issue| Assigned {
            monorepo: mine.monorepo.clone(),
            issue,
        }));
    }
    let monorepos: MonorepoList = session.get("/v1/monorepos")?;
    let mut agents = Vec::new();
    for m in &monorepos.items {
        let list: SessionList = session.get(&format!("/v1/monorepos/{}/agents", m.full_name))?;
        agents.extend(
            list.items
                .into_iter()
                .filter(|s| s.launcher == me.login)
                .filter(|s| {
                    matches!(
                        s.state,
                        SessionState::Launching | SessionState::Running | SessionState::Idle
                    )
                })
                .map(|session| Running {
                    monorepo: m.full_name.clone(),
                    session,
                }),
        );
    }
    let activity: ActivityPage = session.get(&format!("/v1/events?limit={}", args.activity))?;
    let overview = Overview {
        needs: needs.items,
        issues,
        agents,
        activity: activity.items,
    };
    print(global, &overview, || human(&me.login, &overview))
}

fn human(login: &str, o: &Overview) -> String {
    let mut text = format!("Needs you ({login})\n");
    if o.needs.is_empty() {
        text.push_str(
            "  Nothing: no open branch of yours conflicts, fails, waits to merge or is queued\n",
        );
    }
    for n in &o.needs {
        text.push_str(&format!(
            "  {:<9} {}/{} {}",
            n.state.as_str(),
            n.monorepo,
            n.repo,
            n.branch
        ));
        if let Some(title) = n.title.as_deref().filter(|t| !t.is_empty()) {
            text.push_str(&format!("  {title}"));
        }
        if let Some(q) = &n.queue {
            match (q.position, q.reason.as_deref()) {
                (Some(p), _) => text.push_str(&format!("  (merge queue #{p}, {})", q.state)),
                (None, Some(why)) => text.push_str(&format!("  (left the merge queue: {why})")),
                (None, None) => {}
            }
        }
        text.push('\n');
    }
    text.push_str("\nIssues assigned to you\n");
    if o.issues.is_empty() {
        text.push_str("  None open\n");
    }
    for a in &o.issues {
        text.push_str(&format!(
            "  {}#{}  {}  (updated {})\n",
            a.monorepo,
            a.issue.number,
            a.issue.title,
            when(a.issue.updated_at)
        ));
    }
    text.push_str("\nYour agent sessions\n");
    if o.agents.is_empty() {
        text.push_str("  None running\n");
    }
    for r in &o.agents {
        let s = &r.session;
        text.push_str(&format!(
            "  {}  {} {} {}",
            r.monorepo,
            s.id,
            s.kind.as_str(),
            s.state.as_str()
        ));
        if let (Some(repo), Some(branch)) = (&s.repo, &s.branch) {
            text.push_str(&format!("  {repo}:{branch}"));
        }
        if let Some(issue) = s.issue {
            text.push_str(&format!("  #{issue}"));
        }
        text.push('\n');
    }
    text.push_str("\nRecent activity\n");
    if o.activity.is_empty() {
        text.push_str("  Nothing yet\n");
    }
    for e in &o.activity {
        text.push_str(&format!("  {}  {}  {}", when(e.at), e.monorepo, e.kind));
        if let Some(actor) = &e.actor {
            text.push_str(&format!(" by {actor}"));
        }
        let d = &e.details;
        match (&d.repo, &d.branch) {
            (Some(repo), Some(branch)) => text.push_str(&format!("  {repo}:{branch}")),
            (Some(repo), None) => text.push_str(&format!("  {repo}")),
            _ => {}
        }
        if let Some(title) = d.title.as_deref().filter(|t| !t.is_empty()) {
            text.push_str(&format!("  {title}"));
        }
        text.push('\n');
    }
    text
}
