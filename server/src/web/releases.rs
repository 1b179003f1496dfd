//! `/{owner}/{monorepo}/-/{repo}/releases`: a repo's releases, newest first, each with
//! its notes and its files to download; 30 a page, as the API pages them.

use askama::Template;
use axum::extract::{Path as UrlPath, State};
use axum::response::Response;
use serde::Deserialize;
use svc_protocol::release::Release;

use super::code::{Place, monorepo_href, q, seg, size_text};
use super::home::{human, rfc3339};
use super::markdown;
use super::page::{self, Layout, Viewer};
use crate::error::ApiResult;
use crate::extract::{Path, Query};
use crate::paths::RepoPath;
use crate::routes::releases;
use crate::state::AppState;

/// Notes longer than this are cut on the list (the API has them whole).
const NOTES_SHOWN: usize = 4_000;
/// Releases a page shows: with their notes cut and their files, well under 100 KB.
const PER_PAGE: i64 = 10;

#[derive(Debug, Deserialize)]
pub struct ReleasesAt {
    owner: String,
    monorepo: String,
    repo: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct ReleasesQuery {
    cursor: Option<String>,
}

#[derive(Template)]
#[template(path = "releases.html")]
struct ReleasesPage {
    layout: Layout,
    full: String,
    repo: String,
    base: String,
    releases: Vec<ReleaseView>,
    older: Option<String>,
    /// Anyone may download the files, signed in or not.
    public: bool,
}

struct ReleaseView {
    tag: String,
    title: Option<String>,
    draft: bool,
    author: String,
    at: String,
    when: String,
    commit: String,
    short: String,
    commit_href: String,
    /// Sanitized HTML of the notes (markdown).
    notes: String,
    cut: bool,
    files: Vec<FileView>,
}

struct FileView {
    name: String,
    href: String,
    size: String,
    sha256: String,
}

/// `.../-/{repo}/releases`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    UrlPath(at): UrlPath<ReleasesAt>,
    Query(query): Query<ReleasesQuery>,
) -> Response {
    page::answer(&viewer, build(&state, &viewer, &at, query).await)
}

async fn build(
    state: &AppState,
    viewer: &Viewer,
    at: &ReleasesAt,
    query: ReleasesQuery,
) -> ApiResult<ReleasesPage> {
    let place = Place::of(state, viewer, &at.owner, &at.monorepo, &at.repo).await?;
    let (owner, monorepo) = place.full.split_once('/').unwrap_or((&place.full, ""));
    let list = releases::list(
        State(state.clone()),
        viewer.0.clone(),
        Path(RepoPath {
            owner: owner.to_owned(),
            monorepo: monorepo.to_owned(),
            repo: place.repo.name.clone(),
        }),
        Query(releases::ListQuery {
            limit: Some(PER_PAGE),
            cursor: query.cursor,
        }),
    )
    .await?
    .0;
    let here = format!("{}/releases", place.base);
    let mut layout = Layout::new(
        format!("Releases · {} · {}", place.repo.name, place.full),
        viewer,
    );
    layout.monorepo = Some(place.full.clone());
    Ok(ReleasesPage {
        layout,
        releases: list.items.iter().map(|r| view(r, &place)).collect(),
        older: list
            .next_cursor
            .as_ref()
            .map(|c| format!("{here}?cursor={}", q(c))),
        public: place.repo.releases_public,
        full: place.full.clone(),
        repo: place.repo.name.clone(),
        base: place.base,
    })
}

fn view(r: &Release, place: &Place) -> ReleaseView {
    let at = r.published_at.unwrap_or(r.created_at);
    let cut = r.notes.len() > NOTES_SHOWN;
    let notes = if cut {
        let mut end = NOTES_SHOWN;
        while !r.notes.is_char_boundary(end) {
            end -= 1;
        }
        &r.notes[..end]
    } else {
        &r.notes[..]
    };
    ReleaseView {
        tag: r.tag.clone(),
        title: r.title.clone().filter(|t| !t.trim().is_empty()),
        draft: r.draft,
        author: r.author.clone(),
        at: rfc3339(at),
        when: human(at),
        short: r.commit.chars().take(8).collect(),
        commit_href: format!(
            "/{}/-/{}/tree/{}",
            monorepo_href(&place.full),
            seg(&place.repo.name),
            seg(&r.commit)
        ),
        commit: r.commit.clone(),
        notes: markdown::to_html(notes),
        cut,
        files: r
            .files
            .iter()
            .map(|f| FileView {
                name: f.name.clone(),
                href: f.download_url.clone(),
                size: size_text(f.size),
                sha256: f.sha256.clone(),
            })
            .collect(),
    }
}
