//! `/`: the web home across all the person's monorepos: the activity log, the needs-you
//! list and the monorepo list with one summary line each. The script keeps it live
//! through the person's activity socket.

use askama::Template;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use svc_protocol::feed::FeedEvent;
use svc_protocol::needs::{MonorepoHomeItem, MonorepoListing, NeedsList};

use super::page::{self, Layout, Viewer};
use crate::extract::Query;
use crate::routes::{activity, monorepos, needs};
use crate::state::AppState;

/// Branches of the needs-you list the page shows (the rest are counted).
const NEEDS_SHOWN: usize = 50;

#[derive(Template)]
#[template(path = "home.html")]
struct Home {
    layout: Layout,
    activity: Vec<Line>,
    /// The next page's link, when there are older lines.
    older: Option<String>,
    needs: NeedsList,
    /// Branches that need the person beyond those shown.
    more_needs: usize,
    monorepos: Vec<MonorepoHomeItem>,
    /// The `in` filter shown, if any.
    only: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct HomeQuery {
    cursor: Option<String>,
    #[serde(rename = "in")]
    only: Option<String>,
}

pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(q): Query<HomeQuery>,
) -> Response {
    page::answer(&viewer, build(&state, &viewer, q).await)
}

async fn build(state: &AppState, viewer: &Viewer, q: HomeQuery) -> crate::error::ApiResult<Home> {
    let caller = &viewer.0;
    // The three reads go at once: each takes its own connection.
    let log = activity::page(
        state,
        caller,
        activity::ActivityQuery {
            cursor: q.cursor,
            only: q.only.clone(),
            limit: Some(50),
        },
    );
    let needs = needs::list(State(state.clone()), caller.clone());
    let listing = monorepos::list(
        State(state.clone()),
        caller.clone(),
        Query(monorepos::ListQuery {
            summary: true,
            ..Default::default()
        }),
    );
    let (log, needs, listing) = tokio::try_join!(log, needs, listing)?;
    let (mut needs, listing) = (needs.0, listing.0);
    let more_needs = needs.items.len().saturating_sub(NEEDS_SHOWN);
    needs.items.truncate(NEEDS_SHOWN);
    let older = log.next.map(|next| {
        let mut link = format!("/?cursor={}", encode(&next));
        if let Some(only) = &q.only {
            link.push_str(&format!("&in={}", encode(only)));
        }
        link
    });
    let monorepos = match listing {
        MonorepoListing::Home(home) => home.items,
        MonorepoListing::Plain(_) => Vec::new(),
    };
    Ok(Home {
        layout: Layout::new("Home", viewer),
        activity: log.items.iter().map(Line::of).collect(),
        older,
        needs,
        more_needs,
        monorepos,
        only: q.only,
    })
}

fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// One activity line as the page shows it.
pub struct Line {
    /// `<monorepo_id>/<seq>`: what a live `event` frame replaces.
    pub key: String,
    /// RFC 3339, for `<time>` and the display key.
    pub at: String,
    pub when: String,
    pub monorepo: String,
    pub seq: i64,
    pub text: String,
    /// The page it links to (a branch page, or the monorepo's).
    pub href: String,
}

impl Line {
    pub fn of(e: &FeedEvent) -> Line {
        let d = &e.details;
        let who = e.actor.as_deref().unwrap_or("someone");
        let on = match (&d.repo, &d.branch) {
            (Some(r), Some(b)) => format!("{r}:{b}"),
            (Some(r), None) => r.clone(),
            _ => String::new(),
        };
        let text = match e.kind.as_str() {
            "push" => match d.commits {
                Some(1) => format!("{who} pushed 1 commit to {on}"),
                Some(n) => format!("{who} pushed {n} commits to {on}"),
                None => format!("{who} pushed to {on}"),
            },
            "branch.opened" => match d.commits {
                Some(1) => format!("{who} opened {on} with 1 commit"),
                Some(n) if n > 1 => format!("{who} opened {on} with {n} commits"),
                _ => format!("{who} opened {on}"),
            },
            "branch.deleted" => format!("{who} deleted {on}"),
            "merged" => format!("{who} merged {on}"),
            "review" => match d.state.as_deref() {
                Some("approve") => format!("{who} approved {on}"),
                Some("request_changes") => format!("{who} asked for changes on {on}"),
                _ => format!("{who} commented on {on}"),
            },
            "status" => format!(
                "{} is {} on {on}",
                d.context.as_deref().unwrap_or("a check"),
                d.state.as_deref().unwrap_or("set")
            ),
            "worktree.reported" => format!("{who} started a worktree of {on}"),
            "worktree.removed" => format!("{who} removed a worktree of {on}"),
            "meta.saved" => format!("{who} saved {}", d.path.as_deref().unwrap_or("a meta file")),
            "artifact_comment.added" => format!("{who} mentioned someone on {on}"),
            other => format!("{who}: {other} {on}"),
        };
        let href = match (&d.repo, &d.branch) {
            (Some(r), Some(b)) if e.kind != "branch.deleted" => {
                format!("/{}/-/{}/branches/{}", e.monorepo, encode(r), encode(b))
            }
            _ => format!("/{}", e.monorepo),
        };
        Line {
            key: format!("{}/{}", e.monorepo_id, e.seq),
            at: rfc3339(e.at),
            when: human(e.at),
            monorepo: e.monorepo.clone(),
            seq: e.seq,
            text,
            href,
        }
    }
}

pub fn rfc3339(at: time::OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// `2026-11-26 14:05 UTC`: readable without a script; the script makes it relative.
pub fn human(at: time::OffsetDateTime) -> String {
    let f = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute] UTC");
    at.to_offset(time::UtcOffset::UTC)
        .format(&f)
        .unwrap_or_default()
}
