//! Code browsing: `/{owner}/{monorepo}/-/{repo}` (main's root), `.../tree/{ref}/{*path}`
//! (a folder with the last commit of each entry), `.../blob/{ref}/{*path}` (a file with
//! numbered lines) and `.../commits/{ref}/{*path}` (history). A ref is a branch name (one
//! segment, slashes as %2F) or a commit sha. Everything comes from the code API's handlers.

use std::collections::HashMap;

use askama::Template;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Deserialize;
use svc_protocol::code::{Commit, EntryType};
use svc_protocol::monorepo::Repo;

use super::home::{human, rfc3339};
use super::markdown;
use super::page::{self, Layout, Viewer};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Path, Query};
use crate::paths::{MonorepoPath, RepoPath};
use crate::routes::{code, monorepos, repos};
use crate::state::AppState;

/// Files over this many bytes are not shown, only offered raw.
pub const SHOWN_MAX: usize = 512 * 1024;
/// Entries of a folder one page shows (the API's page holds up to 1,000).
const ENTRIES_SHOWN: usize = 150;
/// Roughly the HTML bytes of the lines one page of a file shows.
const LINES_BUDGET: usize = 72_000;
/// Bytes of one line shown; the rest of a longer line (minified code) is in the raw file.
const LINE_SHOWN_MAX: usize = 10_000;
/// Commits a page of history shows.
const HISTORY_PAGE: i64 = 50;
/// Bytes git looks at to tell a binary file (a NUL among them).
const SNIFF: usize = 8000;

/// What a path segment may carry as it is; the rest is percent-encoded.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// One path segment, percent-encoded (a branch's `/` becomes `%2F`).
pub fn seg(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

/// A repo path, each segment percent-encoded, the `/` between them kept.
pub fn segs(path: &str) -> String {
    path.split('/').map(seg).collect::<Vec<_>>().join("/")
}

/// A query value, form-encoded.
pub fn q(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `1.2 MB`: a size for people.
pub fn size_text(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// The monorepo and repo a page is in, as the API names them (current label, repo's
/// own name), with the prefix of the repo's pages.
pub struct Place {
    /// `owner/name`, current.
    pub full: String,
    pub repo: Repo,
    /// `/{owner}/{name}/-/{repo}`.
    pub base: String,
}

impl Place {
    pub async fn of(
        state: &AppState,
        viewer: &Viewer,
        owner: &str,
        monorepo: &str,
        repo: &str,
    ) -> ApiResult<Place> {
        let m = MonorepoPath {
            owner: owner.to_owned(),
            monorepo: monorepo.to_owned(),
        };
        let full = monorepos::get(State(state.clone()), viewer.0.clone(), Path(m.clone()))
            .await?
            .0
            .full_name;
        let repo = repos::get(State(state.clone()), viewer.0.clone(), Path(m.repo(repo)))
            .await?
            .0;
        let base = format!("/{}/-/{}", monorepo_href(&full), seg(&repo.name));
        Ok(Place { full, repo, base })
    }

    pub(super) fn path(&self) -> RepoPath {
        let (owner, monorepo) = self.full.split_once('/').unwrap_or((&self.full, ""));
        RepoPath {
            owner: owner.to_owned(),
            monorepo: monorepo.to_owned(),
            repo: self.repo.name.clone(),
        }
    }

    pub(super) fn layout(&self, title: String, viewer: &Viewer) -> Layout {
        let mut layout = Layout::new(title, viewer);
        layout.monorepo = Some(self.full.clone());
        layout
    }

    fn tree_href(&self, git_ref: &str, path: &str) -> String {
        at(&self.base, "tree", git_ref, path)
    }

    fn blob_href(&self, git_ref: &str, path: &str) -> String {
        at(&self.base, "blob", git_ref, path)
    }

    fn history_href(&self, git_ref: &str, path: &str) -> String {
        at(&self.base, "commits", git_ref, path)
    }

    /// The crumbs of a path at a ref: the folders link to their trees, the last is text.
    fn crumbs(&self, git_ref: &str, path: &str) -> Vec<Crumb> {
        let mut crumbs = Vec::new();
        let mut so_far = String::new();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            if !so_far.is_empty() {
                so_far.push('/');
            }
            so_far.push_str(part);
            crumbs.push(Crumb {
                name: part.to_owned(),
                href: self.tree_href(git_ref, &so_far),
            });
        }
        crumbs
    }
}

/// `owner/name` with each half encoded.
pub fn monorepo_href(full: &str) -> String {
    match full.split_once('/') {
        Some((o, n)) => format!("{}/{}", seg(o), seg(n)),
        None => seg(full),
    }
}

fn at(base: &str, what: &str, git_ref: &str, path: &str) -> String {
    let path = path.trim_matches('/');
    if path.is_empty() {
        format!("{base}/{what}/{}", seg(git_ref))
    } else {
        format!("{base}/{what}/{}/{}", seg(git_ref), segs(path))
    }
}

/// One step of the path shown above a tree or a file.
pub struct Crumb {
    pub name: String,
    pub href: String,
}

/// A commit as a row or a line shows it.
pub struct CommitCell {
    pub sha: String,
    pub short: String,
    pub title: String,
    pub author: String,
    pub at: String,
    pub when: String,
    /// The branch this commit merged, with its page.
    pub merged: Option<(String, String)>,
    pub agent: Option<String>,
    /// The message after the title, if any.
    pub body: String,
}

impl CommitCell {
    pub fn of(c: &Commit, place: &Place) -> CommitCell {
        let body = c
            .message
            .split_once('\n')
            .map(|(_, rest)| rest.trim().to_owned())
            .unwrap_or_default();
        CommitCell {
            sha: c.sha.clone(),
            short: c.sha.chars().take(8).collect(),
            title: c.title.clone(),
            author: c.author.name.clone(),
            at: rfc3339(c.author.date),
            when: human(c.author.date),
            merged: c.merged_branch.as_ref().map(|b| {
                (
                    b.clone(),
                    format!(
                        "/{}/-/{}/branches/{}",
                        monorepo_href(&place.full),
                        seg(&place.repo.name),
                        seg(b)
                    ),
                )
            }),
            agent: c.trailers.agent.clone(),
            body,
        }
    }
}

/// `{owner}/{monorepo}/-/{repo}[/tree|blob|commits/{ref}[/{*path}]]`.
#[derive(Debug, Deserialize)]
pub struct CodeAt {
    owner: String,
    monorepo: String,
    repo: String,
    #[serde(rename = "ref")]
    git_ref: Option<String>,
    path: Option<String>,
}

impl CodeAt {
    fn path(&self) -> String {
        self.path
            .as_deref()
            .unwrap_or_default()
            .trim_matches('/')
            .to_owned()
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct TreeQuery {
    /// The API's cursor of the folder's page.
    cursor: Option<String>,
    /// Entries of that page already shown.
    skip: Option<usize>,
}

#[derive(Template)]
#[template(path = "tree.html")]
struct TreePage {
    layout: Layout,
    full: String,
    repo: String,
    base: String,
    git_ref: String,
    path: String,
    crumbs: Vec<Crumb>,
    entries: Vec<EntryRow>,
    /// While last commits are still being found: when to ask again.
    retry_ms: Option<u64>,
    latest: Option<CommitCell>,
    history_href: String,
    /// The next page of a large folder.
    more: Option<String>,
    readme: Option<Readme>,
    /// What `git clone` takes, shown at the root with a copy button.
    clone_url: String,
    /// The repo has no commit yet: how to push one.
    empty: bool,
    is_default: bool,
    default_branch: String,
    /// The root at this ref.
    root_href: String,
    /// The parent folder, when not at the root.
    up_href: Option<String>,
    /// The repo's agent sessions.
    agents_href: String,
}

struct EntryRow {
    name: String,
    path: String,
    /// `folder`, `file`, `link` or `submodule`.
    kind: &'static str,
    href: Option<String>,
    commit: Option<CommitCell>,
    history_href: String,
}

enum Readme {
    Html(String),
    Text(String),
}

/// `/{owner}/{monorepo}/-/{repo}`: main's root. The monorepo's own pages were once at
/// `/-/issues` (and so on): such an address with no repo of that name goes to the page.
pub async fn repo_root(
    State(state): State<AppState>,
    viewer: Viewer,
    uri: axum::http::Uri,
    UrlPath(at): UrlPath<CodeAt>,
    Query(query): Query<TreeQuery>,
) -> Response {
    let moved = moved_page(&at.owner, &at.monorepo, &at.repo, None, &uri);
    match (build_tree(&state, &viewer, &at, query).await, moved) {
        (Err(e), Some(to)) if e.status == StatusCode::NOT_FOUND => {
            Redirect::permanent(&to).into_response()
        }
        (Ok(Shown::Page(p)), _) => page::ok(&*p),
        (Ok(Shown::Elsewhere(href)), _) => Redirect::to(&href).into_response(),
        (Err(e), _) => page::failed(&viewer, e),
    }
}

#[derive(Debug, Deserialize)]
pub struct OldItemAt {
    owner: String,
    monorepo: String,
    /// The page's word where a repo's name would be.
    repo: String,
    item: String,
}

/// `/{owner}/{monorepo}/-/{repo}/{item}`: an issue or a session at its old address (no
/// repo page has this shape) goes to its page; anything else is not here.
pub async fn old_item(
    viewer: Viewer,
    uri: axum::http::Uri,
    UrlPath(at): UrlPath<OldItemAt>,
) -> Response {
    match moved_page(&at.owner, &at.monorepo, &at.repo, Some(&at.item), &uri) {
        Some(to) => Redirect::permanent(&to).into_response(),
        None => page::not_found(&viewer),
    }
}

/// Where a monorepo page named `word` (and its `item`) is now, with the query kept;
/// none when `word` names no such page.
fn moved_page(
    owner: &str,
    monorepo: &str,
    word: &str,
    item: Option<&str>,
    uri: &axum::http::Uri,
) -> Option<String> {
    let word = crate::paths::MONOREPO_PAGES
        .into_iter()
        .find(|w| w.eq_ignore_ascii_case(word))?;
    let mut to = format!("/{}/{}/{word}", seg(owner), seg(monorepo));
    if let Some(item) = item {
        to.push('/');
        to.push_str(&seg(item));
    }
    if let Some(query) = uri.query() {
        to.push('?');
        to.push_str(query);
    }
    Some(to)
}

/// `.../tree/{ref}` and `.../tree/{ref}/{*path}`.
pub async fn tree(
    State(state): State<AppState>,
    viewer: Viewer,
    UrlPath(at): UrlPath<CodeAt>,
    Query(query): Query<TreeQuery>,
) -> Response {
    tree_response(&state, &viewer, at, query).await
}

async fn tree_response(
    state: &AppState,
    viewer: &Viewer,
    at: CodeAt,
    query: TreeQuery,
) -> Response {
    match build_tree(state, viewer, &at, query).await {
        Ok(Shown::Page(p)) => page::ok(&*p),
        Ok(Shown::Elsewhere(href)) => Redirect::to(&href).into_response(),
        Err(e) => page::failed(viewer, e),
    }
}

enum Shown<T> {
    Page(Box<T>),
    Elsewhere(String),
}

async fn build_tree(
    state: &AppState,
    viewer: &Viewer,
    at: &CodeAt,
    query: TreeQuery,
) -> ApiResult<Shown<TreePage>> {
    let place = Place::of(state, viewer, &at.owner, &at.monorepo, &at.repo).await?;
    let git_ref = at
        .git_ref
        .clone()
        .unwrap_or_else(|| place.repo.default_branch.clone());
    let path = at.path();
    let caller = viewer.0.clone();
    let code_query = |cursor: Option<String>| code::CodeQuery {
        git_ref: Some(git_ref.clone()),
        path: Some(path.clone()),
        cursor,
        ..Default::default()
    };
    let title = if path.is_empty() {
        format!("{} · {}", place.repo.name, place.full)
    } else {
        format!("{path} · {} · {}", place.repo.name, place.full)
    };
    let mut page = TreePage {
        layout: place.layout(title, viewer),
        full: place.full.clone(),
        repo: place.repo.name.clone(),
        base: place.base.clone(),
        git_ref: git_ref.clone(),
        path: path.clone(),
        crumbs: place.crumbs(&git_ref, &path),
        entries: Vec::new(),
        retry_ms: None,
        latest: None,
        history_href: place.history_href(&git_ref, &path),
        more: None,
        readme: None,
        clone_url: place.repo.clone_url.clone(),
        empty: false,
        is_default: git_ref == place.repo.default_branch,
        default_branch: place.repo.default_branch.clone(),
        root_href: place.tree_href(&git_ref, ""),
        up_href: (!path.is_empty()).then(|| {
            let parent = path.rsplit_once('/').map_or("", |(p, _)| p);
            place.tree_href(&git_ref, parent)
        }),
        agents_href: format!(
            "/{}/agents?repo={}",
            monorepo_href(&place.full),
            q(&place.repo.name)
        ),
    };
    let listing = code::tree(
        State(state.clone()),
        caller.clone(),
        Path(place.path()),
        Query(code_query(query.cursor.clone())),
    )
    .await;
    let listing = match listing {
        Ok(l) => l.0,
        Err(e) if e.status == StatusCode::NOT_FOUND => {
            // A file's path: its own page. The default branch of an empty repo: how to
            // fill it.
            if !path.is_empty() {
                let file = code::file(
                    State(state.clone()),
                    caller.clone(),
                    HeaderMap::new(),
                    Path(place.path()),
                    Query(code_query(None)),
                )
                .await;
                if file.is_ok() {
                    return Ok(Shown::Elsewhere(place.blob_href(&git_ref, &path)));
                }
            } else if page.is_default && is_empty(state, viewer, &place).await? {
                page.empty = true;
                return Ok(Shown::Page(Box::new(page)));
            }
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    let skip = query.skip.unwrap_or(0).min(listing.items.len());
    let shown_end = (skip + ENTRIES_SHOWN).min(listing.items.len());
    page.more = if shown_end < listing.items.len() {
        let mut href = format!("{}?skip={shown_end}", place.tree_href(&git_ref, &path));
        if let Some(c) = &query.cursor {
            href.push_str(&format!("&cursor={}", q(c)));
        }
        Some(href)
    } else {
        listing
            .next_cursor
            .as_ref()
            .map(|c| format!("{}?cursor={}", place.tree_href(&git_ref, &path), q(c)))
    };
    // Pinned to the commit the listing read, so both answer for the same tree.
    let pinned = |path: &str| code::CodeQuery {
        git_ref: Some(listing.commit.clone()),
        path: Some(path.to_owned()),
        ..Default::default()
    };
    let last = code::last_commits(
        State(state.clone()),
        caller.clone(),
        Path(place.path()),
        Query(pinned(&path)),
    )
    .await?
    .0;
    if !last.complete {
        page.retry_ms = Some(last.retry_after_ms.unwrap_or(1000));
    }
    let mut by_path: HashMap<&str, &Commit> = last
        .entries
        .iter()
        .filter_map(|e| e.commit.as_ref().map(|c| (e.path.as_str(), c)))
        .collect();
    let shown = listing.items.get(skip..shown_end).unwrap_or_default();
    page.entries = shown
        .iter()
        .map(|e| {
            let (kind, href) = match e.kind {
                EntryType::Tree => ("folder", Some(place.tree_href(&git_ref, &e.path))),
                EntryType::Blob => ("file", Some(place.blob_href(&git_ref, &e.path))),
                EntryType::Symlink => ("link", Some(place.blob_href(&git_ref, &e.path))),
                EntryType::Commit => ("submodule", None),
            };
            EntryRow {
                name: e.name.clone(),
                path: e.path.clone(),
                kind,
                href,
                commit: by_path
                    .remove(e.path.as_str())
                    .map(|c| CommitCell::of(c, &place)),
                history_href: place.history_href(&git_ref, &e.path),
            }
        })
        .collect();
    let history = code::history(
        State(state.clone()),
        caller.clone(),
        Path(place.path()),
        Query(code::CodeQuery {
            limit: Some(1),
            ..pinned(&path)
        }),
    )
    .await?
    .0;
    page.latest = history.items.first().map(|c| CommitCell::of(c, &place));
    if skip == 0 && query.cursor.is_none() {
        let readme = listing.items.iter().find(|e| {
            e.kind == EntryType::Blob && {
                let lower = e.name.to_ascii_lowercase();
                ["readme.md", "readme.markdown", "readme", "readme.txt"].contains(&lower.as_str())
            }
        });
        if let Some(entry) = readme {
            let bytes = file_bytes(state, viewer, &place, pinned(&entry.path)).await?;
            if bytes.len() <= SHOWN_MAX && !is_binary(&bytes) {
                let text = String::from_utf8_lossy(&bytes);
                let lower = entry.name.to_ascii_lowercase();
                page.readme = Some(if lower.ends_with(".md") || lower.ends_with(".markdown") {
                    Readme::Html(markdown::to_html(&text))
                } else {
                    Readme::Text(text.into_owned())
                });
            }
        }
    }
    Ok(Shown::Page(Box::new(page)))
}

/// Whether the repo has no commit on its default branch yet.
async fn is_empty(state: &AppState, viewer: &Viewer, place: &Place) -> ApiResult<bool> {
    let p = place.path();
    let heads = repos::heads(
        State(state.clone()),
        viewer.0.clone(),
        Path(MonorepoPath {
            owner: p.owner,
            monorepo: p.monorepo,
        }),
    )
    .await?
    .0;
    Ok(heads
        .heads
        .iter()
        .any(|h| h.repo == place.repo.name && h.head.is_none()))
}

/// A file's bytes through the file route.
async fn file_bytes(
    state: &AppState,
    viewer: &Viewer,
    place: &Place,
    query: code::CodeQuery,
) -> ApiResult<Vec<u8>> {
    let response = code::file(
        State(state.clone()),
        viewer.0.clone(),
        HeaderMap::new(),
        Path(place.path()),
        Query(query),
    )
    .await?;
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .map_err(ApiError::internal)?;
    Ok(body.to_vec())
}

/// Binary as git tells it: a NUL in the first 8,000 bytes.
fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(SNIFF).any(|&b| b == 0)
}

#[derive(Debug, Default, Deserialize)]
pub struct BlobQuery {
    /// The first line shown (1-based).
    from: Option<usize>,
}

#[derive(Template)]
#[template(path = "blob.html")]
struct BlobPage {
    layout: Layout,
    full: String,
    repo: String,
    base: String,
    git_ref: String,
    path: String,
    name: String,
    crumbs: Vec<Crumb>,
    size: String,
    raw_href: String,
    history_href: String,
    /// The file at the commit that last changed it.
    permalink: Option<String>,
    latest: Option<CommitCell>,
    /// `text`, `binary`, `huge` or `empty`.
    shown: &'static str,
    lines: Vec<LineRow>,
    total: usize,
    first: usize,
    last: usize,
    newer: Option<String>,
    older: Option<String>,
    root_href: String,
}

struct LineRow {
    n: usize,
    text: String,
}

/// `.../blob/{ref}/{*path}`.
pub async fn blob(
    State(state): State<AppState>,
    viewer: Viewer,
    UrlPath(at): UrlPath<CodeAt>,
    Query(query): Query<BlobQuery>,
) -> Response {
    page::answer(&viewer, build_blob(&state, &viewer, &at, query).await)
}

async fn build_blob(
    state: &AppState,
    viewer: &Viewer,
    at: &CodeAt,
    query: BlobQuery,
) -> ApiResult<BlobPage> {
    let place = Place::of(state, viewer, &at.owner, &at.monorepo, &at.repo).await?;
    let git_ref = at
        .git_ref
        .clone()
        .unwrap_or_else(|| place.repo.default_branch.clone());
    let path = at.path();
    let query_at = |limit: Option<i64>| code::CodeQuery {
        git_ref: Some(git_ref.clone()),
        path: Some(path.clone()),
        limit,
        ..Default::default()
    };
    let bytes = file_bytes(state, viewer, &place, query_at(None)).await?;
    let history = code::history(
        State(state.clone()),
        viewer.0.clone(),
        Path(place.path()),
        Query(query_at(Some(1))),
    )
    .await?
    .0;
    let latest = history.items.first();
    let (owner, name) = place.full.split_once('/').unwrap_or((&place.full, ""));
    let raw_href = format!(
        "/v1/monorepos/{}/{}/repos/{}/file?ref={}&path={}",
        seg(owner),
        seg(name),
        seg(&place.repo.name),
        q(&git_ref),
        q(&path)
    );
    let file_name = path.rsplit('/').next().unwrap_or_default().to_owned();
    let mut page = BlobPage {
        layout: place.layout(
            format!("{path} · {} · {}", place.repo.name, place.full),
            viewer,
        ),
        full: place.full.clone(),
        repo: place.repo.name.clone(),
        base: place.base.clone(),
        git_ref: git_ref.clone(),
        path: path.clone(),
        name: file_name,
        crumbs: place.crumbs(&git_ref, &path),
        size: size_text(bytes.len() as u64),
        raw_href,
        history_href: place.history_href(&git_ref, &path),
        permalink: latest
            .filter(|c| c.sha != git_ref)
            .map(|c| place.blob_href(&c.sha, &path)),
        latest: latest.map(|c| CommitCell::of(c, &place)),
        shown: "text",
        lines: Vec::new(),
        total: 0,
        first: 0,
        last: 0,
        newer: None,
        older: None,
        root_href: place.tree_href(&git_ref, ""),
    };
    if bytes.len() > SHOWN_MAX {
        page.shown = "huge";
        return Ok(page);
    }
    if is_binary(&bytes) {
        page.shown = "binary";
        return Ok(page);
    }
    if bytes.is_empty() {
        page.shown = "empty";
        return Ok(page);
    }
    let text = String::from_utf8_lossy(&bytes);
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let all: Vec<&str> = body
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    page.total = all.len();
    let first = query.from.unwrap_or(1).clamp(1, all.len());
    let mut spent = 0;
    let mut last = first - 1;
    while last < all.len() && (last < first || spent + cost(all[last]) <= LINES_BUDGET) {
        spent += cost(all[last]);
        last += 1;
    }
    // `last` is now one past the last index shown: as a line number, the last line.
    page.lines = all[first - 1..last]
        .iter()
        .enumerate()
        .map(|(i, l)| LineRow {
            n: first + i,
            text: cut(l),
        })
        .collect();
    page.first = first;
    page.last = last;
    let here = place.blob_href(&git_ref, &path);
    if last < all.len() {
        page.older = Some(format!("{here}?from={}", last + 1));
    }
    if first > 1 {
        let mut start = first - 1;
        let mut spent = 0;
        while start > 1 && spent + cost(all[start - 2]) <= LINES_BUDGET {
            spent += cost(all[start - 2]);
            start -= 1;
        }
        page.newer = Some(if start <= 1 {
            here
        } else {
            format!("{here}?from={start}")
        });
    }
    Ok(page)
}

/// A line as shown: at most [`LINE_SHOWN_MAX`] bytes of it.
fn cut(line: &str) -> String {
    if line.len() <= LINE_SHOWN_MAX {
        return line.to_owned();
    }
    let mut end = LINE_SHOWN_MAX;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} …", &line[..end])
}

/// About the bytes a line adds to the page: its row's markup and its escaped text.
fn cost(line: &str) -> usize {
    let line = &line.as_bytes()[..line.len().min(LINE_SHOWN_MAX + 4)];
    let escapes = line
        .iter()
        .filter(|b| matches!(b, b'<' | b'>' | b'&' | b'"' | b'\''))
        .count();
    80 + line.len() + 4 * escapes
}

#[derive(Debug, Default, Deserialize)]
pub struct HistoryQuery {
    /// The API's `next`.
    next: Option<String>,
}

#[derive(Template)]
#[template(path = "history.html")]
struct HistoryPage {
    layout: Layout,
    full: String,
    repo: String,
    base: String,
    git_ref: String,
    path: String,
    crumbs: Vec<Crumb>,
    commits: Vec<CommitCell>,
    older: Option<String>,
    capped: bool,
    /// The tree (or file) this history is of.
    up_href: String,
    root_href: String,
}

/// `.../commits/{ref}` and `.../commits/{ref}/{*path}`.
pub async fn history(
    State(state): State<AppState>,
    viewer: Viewer,
    UrlPath(at): UrlPath<CodeAt>,
    Query(query): Query<HistoryQuery>,
) -> Response {
    page::answer(&viewer, build_history(&state, &viewer, &at, query).await)
}

async fn build_history(
    state: &AppState,
    viewer: &Viewer,
    at: &CodeAt,
    query: HistoryQuery,
) -> ApiResult<HistoryPage> {
    let place = Place::of(state, viewer, &at.owner, &at.monorepo, &at.repo).await?;
    let git_ref = at
        .git_ref
        .clone()
        .unwrap_or_else(|| place.repo.default_branch.clone());
    let path = at.path();
    let answer = code::history(
        State(state.clone()),
        viewer.0.clone(),
        Path(place.path()),
        Query(code::CodeQuery {
            git_ref: Some(git_ref.clone()),
            path: Some(path.clone()),
            limit: Some(HISTORY_PAGE),
            next: query.next,
            ..Default::default()
        }),
    )
    .await?
    .0;
    let here = place.history_href(&git_ref, &path);
    let title = if path.is_empty() {
        format!("History · {} · {}", place.repo.name, place.full)
    } else {
        format!("History of {path} · {} · {}", place.repo.name, place.full)
    };
    Ok(HistoryPage {
        layout: place.layout(title, viewer),
        full: place.full.clone(),
        repo: place.repo.name.clone(),
        base: place.base.clone(),
        git_ref: git_ref.clone(),
        crumbs: place.crumbs(&git_ref, &path),
        commits: answer
            .items
            .iter()
            .map(|c| CommitCell::of(c, &place))
            .collect(),
        older: answer
            .next
            .as_ref()
            .map(|n| format!("{here}?next={}", q(n))),
        capped: answer.capped,
        up_href: place.tree_href(&git_ref, &path),
        root_href: place.tree_href(&git_ref, ""),
        path,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn segments_and_sizes() {
        assert_eq!(super::seg("feature/x y"), "feature%2Fx%20y");
        assert_eq!(super::segs("a b/c.rs"), "a%20b/c.rs");
        assert_eq!(super::size_text(12), "12 bytes");
        assert_eq!(super::size_text(1536), "1.5 KB");
        assert_eq!(super::size_text(3 * 1024 * 1024), "3.0 MB");
    }

    #[test]
    fn long_lines_are_cut_on_a_character() {
        let line = "é".repeat(6_000);
        let shown = super::cut(&line);
        assert!(shown.ends_with(" …"));
        assert!(shown.len() <= super::LINE_SHOWN_MAX + 4);
        assert!(super::cost(&line) < super::LINES_BUDGET);
        assert_eq!(super::cut("short <line>"), "short <line>");
        assert_eq!(super::cost("<>"), 90);
    }
}
