//! `svc issue view`.

use serde::Serialize;
use svc_protocol::issue::{Issue, Reaction, Timeline, TimelineItem};

use crate::browser;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoArgs};
use crate::terminal::when;

/// Show an issue: its header, body and the latest of its timeline
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub monorepo: MonorepoArgs,
    /// The issue's number
    pub number: u32,
    /// How many of the newest timeline items to show (1 to 250)
    #[arg(long, default_value_t = 30)]
    pub last: u32,
    /// Open its page in your browser (or print the page's address when none can be opened)
    #[arg(long)]
    pub web: bool,
}

#[derive(Serialize)]
struct View {
    issue: Issue,
    timeline: Timeline,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::monorepo(global, &args.monorepo)?;
    let path = format!("{}/issues/{}", target.path(), args.number);
    let issue: Issue = target.session.get(&path)?;
    if args.web {
        let page = format!(
            "{}/issues/{}",
            browser::monorepo_of(&target),
            issue.row.number
        );
        return browser::show(global, &page);
    }
    let timeline: Timeline = target
        .session
        .get(&format!("{path}/timeline?last={}", args.last))?;
    let view = View { issue, timeline };
    print(global, &view, || render(&view))
}

fn render(view: &View) -> String {
    let (issue, row) = (&view.issue, &view.issue.row);
    let mut text = format!("{}\n{}\n", super::headline(row), super::byline(row));
    let mut facts = Vec::new();
    if !row.assignees.is_empty() {
        facts.push(format!("assigned to {}", row.assignees.join(", ")));
    }
    if let Some(project) = &row.project {
        facts.push(format!("about {project}"));
    }
    if !issue.links.is_empty() {
        let links: Vec<String> = issue
            .links
            .iter()
            .map(|l| format!("{}:{}", l.repo, l.branch))
            .collect();
        facts.push(format!("linked to {}", links.join(", ")));
    }
    if !issue.reactions.is_empty() {
        facts.push(reactions(&issue.reactions));
    }
    for fact in facts {
        text.push_str(&fact);
        text.push('\n');
    }
    text.push('\n');
    text.push_str(if issue.body.trim().is_empty() {
        "(no description)"
    } else {
        issue.body.trim_end()
    });
    text.push('\n');
    let shown = view.timeline.items.len();
    let total = usize::try_from(view.timeline.total).unwrap_or(shown);
    if total > shown {
        text.push_str(&format!(
            "\n({} earlier items not shown; --last N shows more)\n",
            total - shown
        ));
    }
    for item in &view.timeline.items {
        text.push('\n');
        text.push_str(&item_text(item));
    }
    text
}

/// `+1 ×2, heart ×1`.
fn reactions(all: &[Reaction]) -> String {
    all.iter()
        .map(|r| format!("{} ×{}", r.content.as_str(), r.count))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One timeline item in words: a comment with its body under a rule, an event on a line.
fn item_text(item: &TimelineItem) -> String {
    let field = |k: &str| {
        item.details
            .get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let at = when(item.created_at);
    let who = &item.actor;
    let what = match item.kind.as_str() {
        "comment" => {
            let mut text = format!(
                "── {who} commented {at}\n{}\n",
                item.body.as_deref().unwrap_or_default().trim_end()
            );
            if let Some(r) = item.reactions.as_deref().filter(|r| !r.is_empty()) {
                text.push_str(&format!("{}\n", reactions(r)));
            }
            return text;
        }
        "closed" => {
            let reason = field("state_reason").replace('_', " ");
            match item.details.get("merge") {
                Some(merge) => format!(
                    "closed this ({reason}) by merging {}:{}",
                    merge["repo"].as_str().unwrap_or_default(),
                    merge["branch"].as_str().unwrap_or_default()
                ),
                None => format!("closed this ({reason})"),
            }
        }
        "reopened" => "reopened this".to_owned(),
        "renamed" => format!(
            "renamed this from \"{}\" to \"{}\"",
            field("from"),
            field("to")
        ),
        "edited" => "edited the description".to_owned(),
        "labeled" => format!("added the label {}", field("label")),
        "unlabeled" => format!("removed the label {}", field("label")),
        "assigned" => format!("assigned {}", field("assignee")),
        "unassigned" => format!("unassigned {}", field("assignee")),
        "linked" => format!("linked {}:{}", field("repo"), field("branch")),
        "unlinked" => format!("unlinked {}:{}", field("repo"), field("branch")),
        "project_changed" => format!(
            "moved this to {}",
            Some(field("to"))
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "no project".into())
        ),
        other => other.replace('_', " "),
    };
    format!("· {who} {what} {at}\n")
}
