//! `/{owner}/{monorepo}/issues` and `/issues/{number}`: the monorepo's issues (open
//! and closed tabs, search, a label, pages by the API's cursor, a new-issue form) and one
//! issue with its timeline, comment form, close and reopen, and reactions. The forms post
//! to the page's routes without JavaScript (`issue_forms`) and to the JSON API from the
//! script; the issue page refreshes itself on its own events.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use svc_protocol::issue::{
    Issue, IssueRow, IssueState, Label, Reaction, ReactionContent, TimelineItem,
};

use super::agents::AgentBox;
use super::home::{human, rfc3339};
use super::markdown;
use super::page::{self, Layout, Viewer};
use crate::authz::Need;
use crate::error::ApiResult;
use crate::extract::{Path, Query};
use crate::paths::{IssuePath, MonorepoPath};
use crate::routes::{issues, labels};
use crate::state::AppState;
use crate::store;

/// Issues a list page shows.
const PAGE: i64 = 50;
/// Timeline items a page shows at most.
const ITEMS: i64 = 50;
/// Rendered HTML the issue's body may take; past it the page shows its start.
const BODY_BUDGET: usize = 30_000;
/// Rendered HTML (comments and the lines around them) the timeline may take; past it
/// the rest is a page further.
const TIMELINE_BUDGET: usize = 50_000;
/// What one timeline item costs beside its Markdown (its lines, buttons, forms).
const ITEM_COST: usize = 800;
/// A comment over this much HTML shows only its start.
const COMMENT_MAX: usize = 16_000;
/// The start of a long text that is shown, in characters.
const EXCERPT: usize = 3_000;
/// A description or comment up to this many bytes is edited on the page (its text goes
/// in the form); a longer one with the CLI or the API.
const EDITABLE: usize = 16_000;

// ---------------------------------------------------------------------------------------
// Shared bits

/// `s` as one URL path segment: everything but unreserved characters percent-encoded
/// (a branch's `/` travels as `%2F`).
pub(super) fn seg(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `s` as a query value.
fn q(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// A branch's page.
pub(super) fn branch_href(monorepo: &str, repo: &str, branch: &str) -> String {
    format!("/{monorepo}/-/{}/branches/{}", seg(repo), seg(branch))
}

/// Markdown as page HTML, and whether only its start was shown because the whole would
/// pass `max` bytes of HTML.
pub(super) fn markdown_capped(text: &str, max: usize) -> (String, bool) {
    let html = markdown::to_html(text);
    if html.len() <= max {
        return (html, false);
    }
    let start: String = text.chars().take(EXCERPT).collect();
    let html = markdown::to_html(&start);
    if html.len() <= max {
        (html, true)
    } else {
        (String::new(), true)
    }
}

fn emoji(c: ReactionContent) -> &'static str {
    match c {
        ReactionContent::PlusOne => "👍",
        ReactionContent::MinusOne => "👎",
        ReactionContent::Laugh => "😄",
        ReactionContent::Hooray => "🎉",
        ReactionContent::Confused => "😕",
        ReactionContent::Heart => "❤️",
        ReactionContent::Rocket => "🚀",
        ReactionContent::Eyes => "👀",
    }
}

/// One reaction as a toggle: its count and whether the person gave it.
pub struct ReactionButton {
    pub content: &'static str,
    pub emoji: &'static str,
    pub count: i64,
    pub me: bool,
}

/// Every content (`all`) or only those given, with their counts.
fn reaction_buttons(given: &[Reaction], all: bool) -> Vec<ReactionButton> {
    ReactionContent::ALL
        .into_iter()
        .filter_map(|c| {
            let r = given.iter().find(|r| r.content == c);
            let (count, me) = r.map_or((0, false), |r| (r.count, r.me));
            (all || count > 0).then_some(ReactionButton {
                content: c.as_str(),
                emoji: emoji(c),
                count,
                me,
            })
        })
        .collect()
}

/// The contents a "react" menu offers.
pub struct ReactionChoice {
    pub content: &'static str,
    pub emoji: &'static str,
}

fn reaction_choices() -> Vec<ReactionChoice> {
    ReactionContent::ALL
        .into_iter()
        .map(|c| ReactionChoice {
            content: c.as_str(),
            emoji: emoji(c),
        })
        .collect()
}

/// A label as a chip: its color's class and the list filtered by it.
pub struct Chip {
    pub name: String,
    pub color: &'static str,
    pub href: String,
}

fn chip(base: &str, name: &str, known: &[Label]) -> Chip {
    Chip {
        name: name.to_owned(),
        color: known
            .iter()
            .find(|l| l.name == name)
            .map_or("gray", |l| l.color.as_str()),
        href: format!("{base}/issues?state=all&labels={}", q(name)),
    }
}

async fn all_labels(
    state: &AppState,
    viewer: &Viewer,
    path: &MonorepoPath,
) -> ApiResult<Vec<Label>> {
    Ok(
        labels::list(State(state.clone()), viewer.0.clone(), Path(path.clone()))
            .await?
            .0
            .items,
    )
}

// ---------------------------------------------------------------------------------------
// The list

#[derive(Debug, Default, Deserialize)]
pub struct ListPageQuery {
    state: Option<String>,
    q: Option<String>,
    labels: Option<String>,
    cursor: Option<String>,
}

/// One issue's line in the list.
pub struct ListRow {
    pub number: i64,
    pub title: String,
    pub state: &'static str,
    pub href: String,
    pub labels: Vec<Chip>,
    pub author: String,
    pub assignees: String,
    pub comments: i64,
    pub at: String,
    pub when: String,
}

pub struct LabelOption {
    pub name: String,
    pub selected: bool,
}

#[derive(Template)]
#[template(path = "issues.html")]
struct IssuesPage {
    layout: Layout,
    /// `/owner/name`: the monorepo's pages.
    base: String,
    /// `owner/name`.
    monorepo: String,
    /// The API's issues path, for the new-issue form.
    api: String,
    state: &'static str,
    q: String,
    label: String,
    open_count: i64,
    closed_count: i64,
    open_href: String,
    closed_href: String,
    items: Vec<ListRow>,
    next: Option<String>,
    first: Option<String>,
    label_options: Vec<LabelOption>,
    /// Whether the label asked for is one of the options.
    label_listed: bool,
    /// A filter the API refused (a search over ten words), said on the page.
    error: Option<String>,
}

fn list_href(base: &str, state: &str, text: &str, label: &str, cursor: Option<&str>) -> String {
    let mut href = format!("{base}/issues?state={state}");
    if !text.is_empty() {
        href.push_str(&format!("&q={}", q(text)));
    }
    if !label.is_empty() {
        href.push_str(&format!("&labels={}", q(label)));
    }
    if let Some(c) = cursor {
        href.push_str(&format!("&cursor={}", q(c)));
    }
    href
}

pub async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(path): Path<MonorepoPath>,
    Query(query): Query<ListPageQuery>,
) -> Response {
    page::answer(&viewer, build_list(&state, &viewer, path, query).await)
}

async fn build_list(
    state: &AppState,
    viewer: &Viewer,
    path: MonorepoPath,
    query: ListPageQuery,
) -> ApiResult<IssuesPage> {
    let label_of = {
        let mut conn = state.store.read().await?;
        path.access(conn.h(), &viewer.0, Need::Read)
            .await?
            .monorepo
            .label()
    };
    let base = format!("/{label_of}");
    let wanted: &'static str = match query.state.as_deref() {
        Some("closed") => "closed",
        Some("all") => "all",
        _ => "open",
    };
    let text = query.q.clone().unwrap_or_default().trim().to_owned();
    let label = query.labels.clone().unwrap_or_default().trim().to_owned();
    let known = all_labels(state, viewer, &path).await?;
    let asked = issues::ListQuery {
        state: Some(wanted.to_owned()),
        q: (!text.is_empty()).then(|| text.clone()),
        labels: (!label.is_empty()).then(|| label.clone()),
        cursor: query.cursor.clone().filter(|c| !c.is_empty()),
        limit: Some(PAGE),
        ..Default::default()
    };
    let found = issues::list(
        State(state.clone()),
        viewer.0.clone(),
        Path(path.clone()),
        Query(asked),
    )
    .await;
    let (list, error) = match found {
        Ok(list) => (Some(list.0), None),
        Err(e) if e.status == StatusCode::BAD_REQUEST => (None, Some(e.message)),
        Err(e) => return Err(e),
    };
    let (items, next, open_count, closed_count) = match list {
        Some(l) => (l.items, l.next_cursor, l.open_count, l.closed_count),
        None => (Vec::new(), None, 0, 0),
    };
    let row = |r: &IssueRow| ListRow {
        number: r.number,
        title: r.title.clone(),
        state: r.state.as_str(),
        href: format!("{base}/issues/{}", r.number),
        labels: r.labels.iter().map(|l| chip(&base, l, &known)).collect(),
        author: r.author.clone(),
        assignees: r.assignees.join(", "),
        comments: r.comments,
        at: rfc3339(r.updated_at),
        when: human(r.updated_at),
    };
    Ok(IssuesPage {
        layout: Layout {
            monorepo: Some(label_of.clone()),
            ..Layout::new(format!("Issues · {label_of}"), viewer)
        },
        api: format!(
            "/v1/monorepos/{}/{}/issues",
            seg(&path.owner),
            seg(&path.monorepo)
        ),
        open_href: list_href(&base, "open", &text, &label, None),
        closed_href: list_href(&base, "closed", &text, &label, None),
        next: next.map(|c| list_href(&base, wanted, &text, &label, Some(&c))),
        first: query
            .cursor
            .is_some()
            .then(|| list_href(&base, wanted, &text, &label, None)),
        items: items.iter().map(row).collect(),
        label_options: known
            .iter()
            .map(|l| LabelOption {
                name: l.name.clone(),
                selected: l.name == label,
            })
            .collect(),
        label_listed: known.iter().any(|l| l.name == label),
        monorepo: label_of,
        base,
        state: wanted,
        q: text,
        label,
        open_count,
        closed_count,
        error,
    })
}

// ---------------------------------------------------------------------------------------
// One issue

#[derive(Debug, Deserialize)]
pub struct IssuePagePath {
    owner: String,
    monorepo: String,
    number: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct IssuePageQuery {
    /// Items after this timeline item, oldest first (`0`: from the start); without it
    /// the newest items.
    after: Option<String>,
}

/// One line of the timeline: a comment, or an event in words.
pub struct Item {
    pub id: i64,
    pub actor: String,
    pub at: String,
    pub when: String,
    pub comment: Option<CommentView>,
    /// An event's words after the actor.
    pub text: String,
    /// A link the words end with (`linked app:feat`), text and address.
    pub link: Option<(String, String)>,
}

pub struct CommentView {
    pub id: i64,
    pub html: String,
    /// Only its start is shown; `raw` has it whole.
    pub truncated: bool,
    pub raw: String,
    pub edited: bool,
    pub reactions: Vec<ReactionButton>,
    /// The comment's reactions path in the API.
    pub react: String,
    /// Its Markdown, for the edit form: the person's own comment, when short enough.
    pub source: Option<String>,
    /// The person may delete it (its author, or an owner).
    pub deletable: bool,
}

#[derive(Template)]
#[template(path = "issue.html")]
struct IssuePage {
    layout: Layout,
    base: String,
    /// `owner/name`.
    monorepo: String,
    /// The issue's path in the API.
    api: String,
    /// This page, where its forms post without JavaScript.
    page: String,
    /// The description is short enough to edit on the page.
    editable: bool,
    /// The labels and assignees as the edit form shows them (comma-separated).
    label_list: String,
    assignee_list: String,
    /// The linked branches as the form writes them: `repo:branch`, comma-separated.
    link_list: String,
    issue: Issue,
    state: &'static str,
    /// Why it was closed, in words.
    reason: Option<String>,
    body_html: String,
    body_truncated: bool,
    opened_at: String,
    opened_when: String,
    labels: Vec<Chip>,
    /// Linked branches: `repo:branch` and the branch page.
    links: Vec<(String, String)>,
    reactions: Vec<ReactionButton>,
    choices: Vec<ReactionChoice>,
    items: Vec<Item>,
    /// "Showing ..." when the page holds part of the timeline.
    partial: Option<String>,
    /// From the first item.
    start: Option<String>,
    /// The items after this page's.
    later: Option<String>,
    /// The newest items (when paging from the start).
    newest: Option<String>,
    /// "Address with an agent" and the sessions addressing the issue.
    agents: AgentBox,
    /// The repos the form offers, when the issue's project names none.
    agent_repos: Vec<String>,
}

pub async fn issue(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(path): Path<IssuePagePath>,
    Query(query): Query<IssuePageQuery>,
) -> Response {
    // Only a plain positive number names an issue; anything else is simply not here.
    let number = match path.number.parse::<i64>() {
        Ok(n) if n > 0 && !path.number.starts_with('+') => n,
        _ => return page::not_found(&viewer),
    };
    let after = match query.after.as_deref() {
        None | Some("") => None,
        Some(a) => match a.parse::<i64>() {
            Ok(n) if n >= 0 => Some(n),
            _ => return page::not_found(&viewer),
        },
    };
    let at = IssuePath {
        owner: path.owner,
        monorepo: path.monorepo,
        number,
    };
    page::answer(&viewer, build_issue(&state, &viewer, at, after).await)
}

fn field(item: &TimelineItem, k: &str) -> String {
    item.details
        .get(k)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_owned()
}

/// An event's words (after the actor) and the link they end with.
fn event_words(item: &TimelineItem, monorepo: &str) -> (String, Option<(String, String)>) {
    let branch_link = |repo: &str, branch: &str| {
        (
            format!("{repo}:{branch}"),
            branch_href(monorepo, repo, branch),
        )
    };
    match item.kind.as_str() {
        "closed" => {
            let reason = match field(item, "state_reason").as_str() {
                "" => String::new(),
                r => format!(" as {}", r.replace('_', " ")),
            };
            match item.details.get("merge") {
                Some(m) => {
                    let repo = m["repo"].as_str().unwrap_or_default();
                    let branch = m["branch"].as_str().unwrap_or_default();
                    (
                        format!("closed this{reason} by merging"),
                        Some(branch_link(repo, branch)),
                    )
                }
                None => (format!("closed this{reason}"), None),
            }
        }
        "reopened" => ("reopened this".into(), None),
        "renamed" => (
            format!(
                "renamed this from “{}” to “{}”",
                field(item, "from"),
                field(item, "to")
            ),
            None,
        ),
        "edited" => ("edited the description".into(), None),
        "labeled" => (format!("added the label {}", field(item, "label")), None),
        "unlabeled" => (format!("removed the label {}", field(item, "label")), None),
        "assigned" => (format!("assigned {}", field(item, "assignee")), None),
        "unassigned" => (format!("unassigned {}", field(item, "assignee")), None),
        "linked" => (
            "linked".into(),
            Some(branch_link(&field(item, "repo"), &field(item, "branch"))),
        ),
        "unlinked" => (
            format!("unlinked {}:{}", field(item, "repo"), field(item, "branch")),
            None,
        ),
        "project_changed" => {
            let to = field(item, "to");
            let to = if to.is_empty() {
                "no project".into()
            } else {
                to
            };
            (format!("moved this to {to}"), None)
        }
        other => (other.replace('_', " "), None),
    }
}

async fn build_issue(
    state: &AppState,
    viewer: &Viewer,
    path: IssuePath,
    after: Option<i64>,
) -> ApiResult<IssuePage> {
    let caller = &viewer.0;
    let mut conn = state.store.read().await?;
    let (access, row) = path.load(conn.h(), caller, Need::Read).await?;
    let label_of = access.monorepo.label();
    let issue_id = row.id;
    let issue = crate::issues::full(conn.h(), row, &caller.login).await?;
    let (rows, more) = match after {
        None => (
            store::issues::items(conn.h(), issue_id, 0, ITEMS, true).await?,
            false,
        ),
        Some(a) => {
            let mut rows = store::issues::items(conn.h(), issue_id, a, ITEMS + 1, false).await?;
            let more = rows.len() > ITEMS as usize;
            rows.truncate(ITEMS as usize);
            (rows, more)
        }
    };
    let total = store::issues::item_count(conn.h(), issue_id).await?;
    let reactions = store::issues::reactions(conn.h(), issue_id, &caller.login).await?;
    let agent_repos: Vec<String> = match issue.row.project {
        Some(_) => Vec::new(),
        None => store::repos::all(conn.h(), &access.monorepo.id)
            .await?
            .into_iter()
            .filter(|r| !r.is_meta)
            .map(|r| r.name)
            .collect(),
    };
    drop(conn);
    let number = issue.row.number;
    let agents = AgentBox::of(
        state,
        caller,
        MonorepoPath {
            owner: access.monorepo.owner.clone(),
            monorepo: access.monorepo.name.clone(),
        },
        None,
        format!("/{label_of}/issues/{number}/agent"),
        |s| s.issue == Some(number),
    )
    .await?;
    let known = {
        let mp = MonorepoPath {
            owner: path.owner.clone(),
            monorepo: path.monorepo.clone(),
        };
        all_labels(state, viewer, &mp).await?
    };

    let base = format!("/{label_of}");
    let api = format!(
        "/v1/monorepos/{}/{}/issues/{}",
        seg(&path.owner),
        seg(&path.monorepo),
        issue.row.number
    );
    let one = |r: &store::issues::ItemRow| -> (Item, usize) {
        let view = issues::item_view(r, &reactions);
        let mut cost = ITEM_COST;
        let comment = r.comment_id.map(|cid| {
            let text = view.body.clone().unwrap_or_default();
            let (html, truncated) = markdown_capped(&text, COMMENT_MAX);
            cost += html.len();
            let mine = view.actor == caller.login;
            let source = (mine && text.len() <= EDITABLE).then(|| {
                cost += text.len();
                text.clone()
            });
            CommentView {
                id: cid,
                html,
                truncated,
                raw: format!("{api}/comments/{cid}"),
                edited: view
                    .updated_at
                    .is_some_and(|u| u > view.created_at + time::Duration::seconds(1)),
                reactions: reaction_buttons(view.reactions.as_deref().unwrap_or_default(), false),
                react: format!("{api}/comments/{cid}/reactions"),
                source,
                deletable: mine || access.role == svc_protocol::monorepo::Role::Owner,
            }
        });
        let (text, link) = if comment.is_some() {
            (String::new(), None)
        } else {
            event_words(&view, &label_of)
        };
        (
            Item {
                id: view.id,
                actor: view.actor.clone(),
                at: rfc3339(view.created_at),
                when: human(view.created_at),
                comment,
                text,
                link,
            },
            cost,
        )
    };
    // Within the budget: the newest items (counting back), or the next ones forward.
    let mut left = TIMELINE_BUDGET;
    let mut items = Vec::new();
    let mut cut = false;
    if after.is_none() {
        for r in rows.iter().rev() {
            let (item, cost) = one(r);
            if cost > left && !items.is_empty() {
                cut = true;
                break;
            }
            left = left.saturating_sub(cost);
            items.push(item);
        }
        items.reverse();
    } else {
        for r in &rows {
            let (item, cost) = one(r);
            if cost > left && !items.is_empty() {
                cut = true;
                break;
            }
            left = left.saturating_sub(cost);
            items.push(item);
        }
    }
    let here = format!("{base}/issues/{}", issue.row.number);
    let shown = items.len() as i64;
    let (partial, start, later, newest) = match after {
        None => {
            let hidden = total - shown;
            (
                (hidden > 0)
                    .then(|| format!("Showing the newest {shown} of {total} events and comments.")),
                (hidden > 0).then(|| format!("{here}?after=0")),
                None,
                None,
            )
        }
        Some(_) => (
            Some(format!(
                "Showing {shown} of {total} events and comments, oldest first."
            )),
            None,
            (more || cut)
                .then(|| items.last().map(|i| format!("{here}?after={}", i.id)))
                .flatten(),
            Some(here.clone()),
        ),
    };
    let (body_html, body_truncated) = markdown_capped(&issue.body, BODY_BUDGET);
    let created = issue.row.created_at;
    Ok(IssuePage {
        layout: Layout {
            monorepo: Some(label_of.clone()),
            ..Layout::new(
                format!("#{} {} · {label_of}", issue.row.number, issue.row.title),
                viewer,
            )
        },
        state: issue.row.state.as_str(),
        reason: issue.row.state_reason.map(|r| r.as_str().replace('_', " ")),
        labels: issue
            .row
            .labels
            .iter()
            .map(|l| chip(&base, l, &known))
            .collect(),
        links: issue
            .links
            .iter()
            .map(|l| {
                (
                    format!("{}:{}", l.repo, l.branch),
                    branch_href(&label_of, &l.repo, &l.branch),
                )
            })
            .collect(),
        reactions: reaction_buttons(&issue.reactions, true),
        choices: reaction_choices(),
        opened_at: rfc3339(created),
        opened_when: human(created),
        body_html,
        body_truncated,
        items,
        partial,
        start,
        later,
        newest,
        agents,
        agent_repos: if agent_repos.len() > 1 {
            agent_repos
        } else {
            Vec::new()
        },
        monorepo: label_of,
        base,
        api,
        page: here,
        editable: issue.body.len() <= EDITABLE,
        label_list: issue.row.labels.join(", "),
        assignee_list: issue.row.assignees.join(", "),
        link_list: issue
            .links
            .iter()
            .map(|l| format!("{}:{}", l.repo, l.branch))
            .collect::<Vec<_>>()
            .join(", "),
        issue,
    })
}

impl IssuePage {
    fn is_open(&self) -> bool {
        self.issue.row.state == IssueState::Open
    }
}
