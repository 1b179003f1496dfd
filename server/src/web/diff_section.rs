//! A page's diff section, for the branch page and the commit page: the page goes out up
//! to its `<!--svc:diff-->` slot at once, and the section and the rest of the page follow
//! when the diff is read (the plain form of branchDiff or commitDiff, with a patch
//! budget), so the first bytes never wait for the diff and the whole page stays under
//! [`PAGE_MAX`]. The script streams the rest of a long diff.

use askama::Template;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::StreamExt;
use svc_protocol::branch::BranchDiff;

use super::branch_diff::{self, DiffView};
use super::page;
use crate::auth::Caller;
use crate::extract::{Path, Query};
use crate::paths::{BranchPath, CommitPath};
use crate::routes::diff;
use crate::state::AppState;

/// The whole page stays under this many bytes; the diff gives way first.
pub const PAGE_MAX: usize = 96 * 1024;
/// Bytes of patch text asked of the API for the page's part of the diff.
const DIFF_PATCH_BYTES: usize = 256 * 1024;
/// The raw diff link's patch budget (the API's own limit of the plain form).
pub const RAW_PATCH_BYTES: usize = 2 * 1024 * 1024;

/// Where the diff section goes in the rendered page (user text cannot make it: it is
/// escaped, and sanitized Markdown keeps no comments).
const DIFF_SLOT: &str = "<!--svc:diff-->";

/// The diff section, rendered once the rest of the page went out.
#[derive(Template)]
#[template(path = "branch_diff.html")]
pub struct DiffSection {
    /// The branch or commit in the API; the stream is `{api}/diff?patches=1&stream=1`.
    pub api: String,
    /// What the diff is against, in words: main's name, or "its parent".
    pub against: String,
    /// A merged branch's diff is what its merge brought in.
    pub merged: bool,
    pub diff: Option<DiffView>,
    pub diff_error: Option<String>,
    /// The diff's ends, so the script can tell when it changes.
    pub diff_key: String,
    pub raw_diff: String,
    /// A blob link's prefix at the new side: `/.../-/<repo>/blob/<sha>/`.
    pub blob_base: String,
}

impl DiffSection {
    /// A section to fill for the thing at `api`, whose new side is `blob_base`.
    pub fn new(api: String, against: String, blob_base: String) -> DiffSection {
        DiffSection {
            raw_diff: format!("{api}/diff?format=patch&max_bytes={RAW_PATCH_BYTES}"),
            api,
            against,
            merged: false,
            diff: None,
            diff_error: None,
            diff_key: String::new(),
            blob_base,
        }
    }
}

/// Whose diff: a branch's (branchDiff) or a commit's (commitDiff).
pub enum DiffOf {
    Branch(BranchPath),
    Commit(CommitPath),
}

/// What the diff section is made from, and who asks.
pub struct DiffJob {
    pub state: AppState,
    pub caller: Caller,
    pub of: DiffOf,
    pub section: DiffSection,
}

impl DiffJob {
    /// The section's HTML in at most `budget` bytes where the diff allows (it gives way
    /// first: fewer files' hunks, then none).
    async fn render(mut self, budget: usize) -> String {
        let source = match self.fetch().await {
            Ok(d) => Some(d),
            Err(e) => {
                self.section.diff_error = Some(e);
                None
            }
        };
        if let Some(d) = &source {
            self.section.diff_key = format!("{}.{}", d.merge_base, d.head);
            self.section.diff = Some(DiffView::of(d, branch_diff::HTML_BUDGET.min(budget)));
        }
        let mut html = self.section.render().unwrap_or_default();
        for _ in 0..4 {
            let (Some(d), Some(s)) = (&self.section.diff, &source) else {
                break;
            };
            if html.len() <= budget {
                break;
            }
            let over = html.len() - budget;
            self.section.diff = Some(DiffView::of(s, d.budget.saturating_sub(over + 2048)));
            html = self.section.render().unwrap_or_default();
        }
        html
    }

    /// The page's part of the diff (the plain form, a patch budget), or why there is none.
    async fn fetch(&self) -> Result<BranchDiff, String> {
        let q = diff::DiffQuery {
            max_bytes: Some(DIFF_PATCH_BYTES),
            ..Default::default()
        };
        let (state, caller) = (State(self.state.clone()), self.caller.clone());
        let answer = match &self.of {
            DiffOf::Branch(p) => {
                diff::diff(state, caller, HeaderMap::new(), Path(p.clone()), Query(q)).await
            }
            DiffOf::Commit(p) => {
                diff::commit_diff(state, caller, HeaderMap::new(), Path(p.clone()), Query(q)).await
            }
        };
        let response = match answer {
            Ok(r) => r,
            Err(e) if e.code == svc_protocol::ErrorCode::NoMain => {
                return Err(
                    "The repo has no main yet, so there is nothing to compare with.".into(),
                );
            }
            Err(e) => return Err(format!("The diff could not be computed: {}", e.message)),
        };
        let bytes = axum::body::to_bytes(response.into_body(), 16 * 1024 * 1024)
            .await
            .map_err(|e| format!("The diff could not be read: {e}"))?;
        serde_json::from_slice(&bytes).map_err(|e| format!("The diff could not be read: {e}"))
    }
}

/// The page up to its diff at once, then the diff section and the rest when the diff is
/// read.
pub fn streamed(page: &impl Template, job: DiffJob) -> Response {
    let html = match page.render() {
        Ok(html) => html,
        Err(e) => return page::render_error(e),
    };
    let Some((head, tail)) = html.split_once(DIFF_SLOT) else {
        return page::render_error("the page has no place for its diff");
    };
    let budget = PAGE_MAX.saturating_sub(head.len() + tail.len());
    let (head, tail) = (head.to_owned(), tail.to_owned());
    let rest = async move {
        let mut rest = job.render(budget).await;
        rest.push_str(&tail);
        Ok::<_, std::convert::Infallible>(axum::body::Bytes::from(rest))
    };
    let first = std::future::ready(Ok::<_, std::convert::Infallible>(axum::body::Bytes::from(
        head,
    )));
    let parts = futures_util::stream::once(first).chain(futures_util::stream::once(rest));
    page::streamed(axum::body::Body::from_stream(parts))
}
