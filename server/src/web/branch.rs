//! `/{owner}/{monorepo}/-/{repo}/branches/{branch}`: one branch. Its facts (ahead and
//! behind main, the merge base, whether it merges cleanly), title and description, the
//! Checks object of its head, the diff against main, its reviews with a form to post one,
//! its artifacts and the merge button with the gate's reason. Everything comes from the
//! JSON API's handlers; the script streams the rest of a long diff and refreshes the
//! sections when the branch's events arrive.

use askama::Template;
use axum::extract::State;
use axum::response::Response;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Deserialize;
use svc_protocol::branch::{Branch, Mergeable, Review, ReviewState};

use super::agents::AgentBox;
use super::checks::{ChecksView, short};
use super::diff_section::{self, DiffJob, DiffOf, DiffSection};
use super::home::{human, rfc3339};
use super::markdown;
use super::page::{self, Layout, Viewer};
use crate::authz::Need;
use crate::error::ApiResult;
use crate::extract::{Path, Query};
use crate::paths::BranchPath;
use crate::routes::{artifacts, branches, reviews};
use crate::state::AppState;

/// Rendered description HTML at most; a longer one is cut.
const DESCRIPTION_HTML_MAX: usize = 10 * 1024;
/// Rendered review HTML at most, newest reviews first.
const REVIEWS_HTML_MAX: usize = 12 * 1024;
/// One review's rendered body at most.
const REVIEW_HTML_MAX: usize = 6 * 1024;
/// Reviews kept while reading the list (newest), and pages read at most.
const REVIEWS_KEPT: usize = 30;
const REVIEW_PAGES: usize = 8;
/// Conflict paths and artifacts shown at most.
const CONFLICTS_MAX: usize = 20;
const ARTIFACTS_MAX: usize = 25;

/// A path segment: everything but unreserved characters percent-encoded, so a branch's
/// slashes travel as `%2F` in one segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

pub(super) fn segment(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

/// A file path with each segment encoded and its slashes kept.
pub(super) fn file_path(p: &str) -> String {
    p.split('/').map(segment).collect::<Vec<_>>().join("/")
}

/// The page of `branch` of `repo` in monorepo `label` (`owner/name`), from the root.
pub fn branch_page(label: &str, repo: &str, branch: &str) -> String {
    format!("/{label}/-/{}/branches/{}", segment(repo), segment(branch))
}

#[derive(Debug, Deserialize)]
pub struct PagePath {
    owner: String,
    monorepo: String,
    repo: String,
    branch: String,
}

#[derive(Template)]
#[template(path = "branch.html")]
struct BranchPage {
    layout: Layout,
    /// `owner/name`, canonical.
    label: String,
    repo: String,
    branch: String,
    main_branch: String,
    /// This page.
    href: String,
    /// The repo's page.
    repo_href: String,
    /// Main's tree page.
    main_href: String,
    /// The branch in the API: `/v1/monorepos/.../branches/<branch>`.
    api: String,
    b: Branch,
    head_short: String,
    /// The title as inline HTML (Markdown), when it renders as one paragraph.
    title_html: Option<String>,
    description_html: Option<String>,
    description_cut: bool,
    pushed_at: String,
    pushed_when: String,
    created_at: String,
    created_when: String,
    facts: Facts,
    checks: ChecksView,
    merge: MergeView,
    reviews: Vec<ReviewView>,
    reviews_hidden: usize,
    artifacts: Vec<ArtifactView>,
    artifacts_hidden: usize,
    /// "Launch an agent" and the sessions working on the branch.
    agents: AgentBox,
}

struct Facts {
    ahead: Option<u32>,
    behind: Option<u32>,
    base_short: Option<String>,
    mergeable: &'static str,
    mergeable_text: String,
    conflicts: Vec<String>,
    conflicts_hidden: usize,
}

struct MergeView {
    /// Why the merge would be refused now, in words; None when it would go.
    gate: Option<String>,
    /// The refusal is the checks' (a forced merge goes past it).
    by_checks: bool,
    /// The merge result, when merged.
    merged: Option<Merged>,
    /// Who armed it to merge itself, when armed.
    auto: Option<Armed>,
    /// Its place in the repo's merge queue, when queued.
    queued: Option<Queued>,
}

struct Queued {
    position: i64,
    state: String,
    /// The speculative commit under test, once made.
    sha: Option<String>,
    sha_short: Option<String>,
}

struct Armed {
    by: String,
    agent: Option<String>,
    at: String,
    when: String,
}

struct Merged {
    by: String,
    agent: Option<String>,
    at: String,
    when: String,
    sha: Option<String>,
    sha_short: Option<String>,
    forced: bool,
    main_head: Option<String>,
    main_short: Option<String>,
}

struct ReviewView {
    id: i64,
    author: String,
    agent: Option<String>,
    word: &'static str,
    class: &'static str,
    at: String,
    when: String,
    body_html: Option<String>,
    cut: bool,
    /// The head it was written on, when that is not the head now.
    earlier_head: Option<String>,
}

struct ArtifactView {
    name: String,
    href: String,
    kind: &'static str,
    versions: usize,
    at: String,
    when: String,
}

pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    axum::extract::Path(p): axum::extract::Path<PagePath>,
) -> Response {
    let path = BranchPath {
        owner: p.owner,
        monorepo: p.monorepo,
        repo: p.repo,
        branch: p.branch,
    };
    if let Some(tree) = main_tree(&state, &viewer, &path).await {
        return tree;
    }
    match build(&state, &viewer, path).await {
        Ok((page, job)) => diff_section::streamed(&page, job),
        Err(e) => page::failed(&viewer, e),
    }
}

/// Main has no branch page (it is not a branch under review): links to it, from the
/// activity log or a hook's `diff_url`, go to its tree.
async fn main_tree(state: &AppState, viewer: &Viewer, path: &BranchPath) -> Option<Response> {
    let mut conn = state.store.read().await.ok()?;
    let (access, repo) = path.resolve(conn.h(), &viewer.0, Need::Read).await.ok()?;
    (path.branch == repo.default_branch).then(|| {
        let to = format!(
            "/{}/-/{}/tree/{}",
            access.monorepo.label(),
            segment(&repo.name),
            segment(&repo.default_branch)
        );
        axum::response::IntoResponse::into_response(axum::response::Redirect::to(&to))
    })
}

async fn build(
    state: &AppState,
    viewer: &Viewer,
    path: BranchPath,
) -> ApiResult<(BranchPage, DiffJob)> {
    let caller = &viewer.0;
    let (access, repo) = {
        let mut conn = state.store.read().await?;
        path.resolve(conn.h(), caller, Need::Read).await?
    };
    let b = branches::get(
        State(state.clone()),
        caller.clone(),
        Path(path.clone()),
        Query(branches::GetQuery::default()),
    )
    .await?
    .0;
    let label = access.monorepo.label();
    // The canonical names from here on, whatever case the address used.
    let path = BranchPath {
        owner: access.monorepo.owner.clone(),
        monorepo: access.monorepo.name.clone(),
        repo: repo.name.clone(),
        branch: b.name.clone(),
    };
    let api = format!(
        "/v1/monorepos/{label}/repos/{}/branches/{}",
        segment(&repo.name),
        segment(&b.name)
    );
    let href = branch_page(&label, &repo.name, &b.name);
    let repo_page = format!("/{label}/-/{}", segment(&repo.name));

    let reviews_all = all_reviews(state, caller, &path).await?;
    let artifact_list = artifacts::list(State(state.clone()), caller.clone(), Path(path.clone()))
        .await?
        .0
        .items;

    let agents = AgentBox::of(
        state,
        caller,
        crate::paths::MonorepoPath {
            owner: path.owner.clone(),
            monorepo: path.monorepo.clone(),
        },
        Some(&repo.name),
        format!("{href}/agents"),
        |s| {
            s.repo.as_deref() == Some(repo.name.as_str())
                && s.branch.as_deref() == Some(b.name.as_str())
        },
    )
    .await?;
    let (title_html, description_html, description_cut) = text_of(&b);
    let (reviews, reviews_hidden) = review_views(&reviews_all.0, reviews_all.1, &b.head);
    let artifacts_hidden = artifact_list.len().saturating_sub(ARTIFACTS_MAX);
    let artifacts = artifact_list
        .iter()
        .take(ARTIFACTS_MAX)
        .map(|a| ArtifactView {
            name: a.name.clone(),
            href: format!("{href}/artifacts/{}", segment(&a.name)),
            kind: a.kind.as_str(),
            versions: a.versions.len(),
            at: rfc3339(a.updated_at),
            when: human(a.updated_at),
        })
        .collect();
    let mut layout = Layout::new(
        b.title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| format!("{}:{}", repo.name, b.name)),
        viewer,
    );
    layout.monorepo = Some(label.clone());
    let page = BranchPage {
        layout,
        facts: facts(&b),
        checks: ChecksView::of(&b.checks, &b.head, api.clone()),
        merge: merge_view(&b, repo.default_head.as_deref()),
        main_href: format!("{repo_page}/tree/{}", segment(&repo.default_branch)),
        repo_href: repo_page.clone(),
        head_short: short(&b.head),
        pushed_at: rfc3339(b.pushed_at),
        pushed_when: human(b.pushed_at),
        created_at: rfc3339(b.created_at),
        created_when: human(b.created_at),
        title_html,
        description_html,
        description_cut,
        reviews,
        reviews_hidden,
        artifacts,
        artifacts_hidden,
        agents,
        main_branch: repo.default_branch.clone(),
        label,
        repo: repo.name.clone(),
        branch: b.name.clone(),
        href,
        api: api.clone(),
        b: b.clone(),
    };
    // The diff's new side: a merged branch's is its merge commit.
    let new_side = b.merge_sha.as_deref().filter(|_| b.state == "merged");
    let blob_base = format!("{repo_page}/blob/{}/", new_side.unwrap_or(&b.head));
    let mut section = DiffSection::new(api, repo.default_branch.clone(), blob_base);
    section.merged = b.state == "merged";
    let job = DiffJob {
        state: state.clone(),
        caller: caller.clone(),
        of: DiffOf::Branch(path),
        section,
    };
    Ok((page, job))
}

/// The newest reviews (oldest first among them) and how many came before them.
async fn all_reviews(
    state: &AppState,
    caller: &crate::auth::Caller,
    path: &BranchPath,
) -> ApiResult<(Vec<Review>, usize)> {
    let mut kept: std::collections::VecDeque<Review> = Default::default();
    let mut dropped = 0;
    let mut cursor = None;
    for _ in 0..REVIEW_PAGES {
        let list = reviews::list(
            State(state.clone()),
            caller.clone(),
            Path(path.clone()),
            Query(reviews::ListQuery {
                cursor: cursor.take(),
                limit: Some(250),
            }),
        )
        .await?
        .0;
        for r in list.items {
            if kept.len() == REVIEWS_KEPT {
                kept.pop_front();
                dropped += 1;
            }
            kept.push_back(r);
        }
        match list.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    Ok((kept.into(), dropped))
}

/// Markdown cut to at most `max` bytes of HTML: the text's first part when it is longer.
fn bounded_markdown(text: &str, max: usize) -> (String, bool) {
    let html = markdown::to_html(text);
    if html.len() <= max {
        return (html, false);
    }
    let mut end = (max / 2).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &text[..end];
    let cut = cut.rfind('\n').map_or(cut, |at| &cut[..at]);
    (markdown::to_html(&format!("{cut}\n\n…")), true)
}

/// The title as inline HTML when it is one paragraph, and the description's HTML.
fn text_of(b: &Branch) -> (Option<String>, Option<String>, bool) {
    let title = b.title.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let title_html = title.and_then(|t| {
        let html = markdown::to_html(t);
        let inner = html.trim().strip_prefix("<p>")?.strip_suffix("</p>")?;
        (!inner.contains("<p>")).then(|| inner.to_owned())
    });
    match b.description.as_deref().filter(|d| !d.trim().is_empty()) {
        Some(d) => {
            let (html, cut) = bounded_markdown(d, DESCRIPTION_HTML_MAX);
            (title_html, Some(html), cut)
        }
        None => (title_html, None, false),
    }
}

fn facts(b: &Branch) -> Facts {
    let (mergeable, text) = match (b.mergeable, b.last_mergeable) {
        (Mergeable::Clean, _) => ("clean", "Merges cleanly into main.".to_owned()),
        (Mergeable::Conflicts, _) => ("conflicts", "Conflicts with main.".to_owned()),
        (Mergeable::Pending, Some(Mergeable::Conflicts)) => (
            "pending",
            "Being checked again (it conflicted with main last time).".to_owned(),
        ),
        (Mergeable::Pending, Some(Mergeable::Clean)) => (
            "pending",
            "Being checked again (it merged cleanly last time).".to_owned(),
        ),
        (Mergeable::Pending, _) => ("pending", "Being checked.".to_owned()),
    };
    Facts {
        ahead: b.ahead,
        behind: b.behind,
        base_short: b.base.as_deref().map(short),
        mergeable,
        mergeable_text: text,
        conflicts_hidden: b.conflicts.len().saturating_sub(CONFLICTS_MAX),
        conflicts: b.conflicts.iter().take(CONFLICTS_MAX).cloned().collect(),
    }
}

fn merge_view(b: &Branch, main_head: Option<&str>) -> MergeView {
    if b.state == "merged" {
        let at = b.merged_at.unwrap_or(b.pushed_at);
        return MergeView {
            gate: None,
            by_checks: false,
            merged: Some(Merged {
                by: b.merged_by.clone().unwrap_or_else(|| "someone".into()),
                agent: b.merged_agent.clone(),
                at: rfc3339(at),
                when: human(at),
                sha_short: b.merge_sha.as_deref().map(short),
                sha: b.merge_sha.clone(),
                forced: b.forced.unwrap_or(false),
                main_short: main_head.map(short),
                main_head: main_head.map(str::to_owned),
            }),
            auto: None,
            queued: None,
        };
    }
    let mut why = Vec::new();
    if main_head.is_none() {
        why.push("the repo has no main to merge into yet".to_owned());
    }
    if !b.stale && b.base.as_deref() == Some(b.head.as_str()) {
        why.push("main has every commit of it already, so there is nothing to merge".to_owned());
    }
    if b.mergeable == Mergeable::Conflicts {
        let mut text = format!("it conflicts with main in {} file(s)", b.conflicts.len());
        if !b.conflicts.is_empty() {
            let named: Vec<&str> = b.conflicts.iter().take(5).map(String::as_str).collect();
            text.push_str(&format!(": {}", named.join(", ")));
        }
        why.push(text);
    }
    let mut by_checks = false;
    if let Err(e) = crate::checks::require_green(b.checks.clone(), "merge") {
        by_checks = true;
        let reason = e.message;
        let reason = reason
            .strip_suffix("; merge with force=1 to go past them")
            .unwrap_or(&reason);
        why.push(reason.to_owned());
    }
    MergeView {
        gate: (!why.is_empty()).then(|| why.join("; ")),
        by_checks,
        merged: None,
        auto: b.auto_merge.as_ref().map(|a| Armed {
            by: a.armed_by.clone(),
            agent: a.armed_agent.clone(),
            at: rfc3339(a.armed_at),
            when: human(a.armed_at),
        }),
        queued: b.queue.as_ref().map(|q| Queued {
            position: q.position.unwrap_or_default(),
            state: q.state.clone(),
            sha_short: q.speculative_sha.as_deref().map(short),
            sha: q.speculative_sha.clone(),
        }),
    }
}

/// The reviews to show, newest within the budget (in the order written), and how many
/// are left out.
fn review_views(all: &[Review], before: usize, head: &str) -> (Vec<ReviewView>, usize) {
    let mut budget = REVIEWS_HTML_MAX;
    let mut out = Vec::new();
    for r in all.iter().rev() {
        let body = r.body.trim();
        let (html, cut) = if body.is_empty() {
            (None, false)
        } else {
            let (h, cut) = bounded_markdown(body, REVIEW_HTML_MAX);
            (Some(h), cut)
        };
        let cost = 300 + html.as_ref().map_or(0, String::len);
        if cost > budget && !out.is_empty() {
            break;
        }
        budget = budget.saturating_sub(cost);
        let (word, class) = match r.state {
            ReviewState::Approve => ("approved", "success"),
            ReviewState::RequestChanges => ("changes requested", "failure"),
            ReviewState::Comment => ("commented", "comment"),
        };
        out.push(ReviewView {
            id: r.id,
            author: r.author.clone(),
            agent: r.agent.clone(),
            word,
            class,
            at: rfc3339(r.created_at),
            when: human(r.created_at),
            body_html: html,
            cut,
            earlier_head: (r.head != head).then(|| short(&r.head)),
        });
    }
    let hidden = before + all.len() - out.len();
    out.reverse();
    (out, hidden)
}
