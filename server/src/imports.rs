//! Importing an existing project's whole history into a repo (`/imports`).
//!
//! The history comes into a temporary bare repository under the data dir (this
//! process's spool folder, which goes with the process if it dies), every object checked
//! as it arrives. Only when it is whole is it moved into place, and the repo's row, its
//! branches, tags, events and the import's end are written in one transaction: until
//! then nothing of it is visible (no refs, no rows, no events). The push limit does not
//! apply: an import is for an owner bringing a project in, whatever its size.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use serde_json::json;
use svc_protocol::ErrorCode;
use svc_protocol::event::DefaultHeadRow;
use svc_protocol::import::{Import, ImportState};
use svc_protocol::monorepo::MonorepoKind;

use crate::config::Config;
use crate::error::{ApiError, ApiResult};
use crate::git::import::{self, Source};
use crate::git::record::{self, Actor};
use crate::git::storage;
use crate::hooks::target::Policy;
use crate::state::AppState;
use crate::store::imports::{self, ImportRow};
use crate::store::monorepos::{self, MonorepoRow};
use crate::store::repos::{self, RepoRow};
use crate::store::{self, H, events, now_ms};
use crate::{names, views};

/// The repo an import fills: its path and name, and its id (an existing empty repo's,
/// or the new one's).
pub struct Target {
    pub path: String,
    pub name: String,
    pub repo_id: String,
}

/// Where `path` leads in `monorepo`: a plain repo's one repo (`.`), a monorepo's repo at
/// that path, or a new one there. A repo with history is refused (409).
pub async fn target(
    mut h: H<'_>,
    data_dir: &Path,
    monorepo: &MonorepoRow,
    path: &str,
) -> ApiResult<Target> {
    let plain = views::kind(&monorepo.kind) == MonorepoKind::Repo;
    let (path, name) = if plain {
        if !matches!(path.trim(), "." | "" | "/") {
            return Err(ApiError::conflict(
                ErrorCode::PlainRepo,
                "a plain repo holds one repo, at `.`; import into path `.`",
            ));
        }
        let only = repos::all(h.reborrow(), &monorepo.id)
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| ApiError::internal("a plain repo without its repo"))?;
        (".".to_owned(), only.name)
    } else {
        names::repo_path(path)?
    };
    let Some(existing) = repos::by_name(h, &monorepo.id, &name).await? else {
        return Ok(Target {
            path,
            name,
            repo_id: crate::token::new_id("r_"),
        });
    };
    if existing.is_meta || has_history(data_dir, &existing).await? {
        return Err(ApiError::conflict(
            ErrorCode::RepoNotEmpty,
            format!("the repo {name} has history already: import into a new or empty repo"),
        ));
    }
    Ok(Target {
        path,
        name,
        repo_id: existing.id,
    })
}

async fn has_history(data_dir: &Path, repo: &RepoRow) -> ApiResult<bool> {
    if repo.default_head.is_some() {
        return Ok(true);
    }
    import::has_refs(&storage::repo_dir(data_dir, &repo.id))
        .await
        .map_err(ApiError::internal)
}

/// A URL the server may fetch: http or https, its host at an address `[hooks]
/// allowed_hosts` admits (every address it resolves to), pinned for git.
pub struct Pinned {
    pub url: String,
    /// `host:port:address`, for a host name.
    pub resolve: Option<String>,
}

pub async fn check_url(config: &Config, url: &str) -> ApiResult<Pinned> {
    let refuse = |why: String| ApiError::bad_request(ErrorCode::UrlNotAllowed, why);
    let parsed = url::Url::parse(url).map_err(|e| refuse(format!("{url:?} is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(refuse(
            "the server fetches only http and https URLs; import a local project with a bundle"
                .into(),
        ));
    }
    let policy = Policy::new(&config.hooks.allowed_hosts);
    let host = match parsed.host() {
        Some(url::Host::Domain(name)) => name.to_owned(),
        Some(_) => {
            policy.check_literal(&parsed).map_err(refuse)?;
            return Ok(Pinned {
                url: parsed.into(),
                resolve: None,
            });
        }
        None => return Err(refuse("the URL needs a host".into())),
    };
    let port = parsed.port_or_known_default().unwrap_or(443);
    let addrs: Vec<IpAddr> = tokio::net::lookup_host((host.as_str(), port))
        .await
        .map_err(|e| refuse(format!("{host} cannot be resolved: {e}")))?
        .map(|a| a.ip())
        .collect();
    if let Some(ip) = addrs.iter().find(|ip| !policy.admits(&host, **ip)) {
        return Err(refuse(format!(
            "{host} is {ip}, which the server may not fetch from ([hooks] allowed_hosts)"
        )));
    }
    let ip = addrs
        .first()
        .ok_or_else(|| refuse(format!("{host} has no address")))?;
    let address = match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    };
    Ok(Pinned {
        url: parsed.into(),
        resolve: Some(format!("{host}:{port}:{address}")),
    })
}

/// A file or folder of this process's spool, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.0.is_dir() {
            let _ = std::fs::remove_dir_all(&self.0);
        } else {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

/// A running import that, dropped before its end is written (the uploading client went
/// away), is marked failed.
pub struct Running {
    store: store::Store,
    id: String,
    ended: bool,
}

impl Running {
    /// Takes a waiting import (answers None when it is not waiting).
    pub async fn start(state: &AppState, id: &str) -> ApiResult<Option<Running>> {
        let mut tx = state.store.begin().await?;
        let taken = imports::set_state(tx.h(), id, "waiting", "running", None, now_ms()).await?;
        tx.commit().await?;
        Ok(taken.then(|| Running {
            store: state.store.clone(),
            id: id.to_owned(),
            ended: false,
        }))
    }

    /// For an import made running.
    pub fn adopt(state: &AppState, id: &str) -> Running {
        Running {
            store: state.store.clone(),
            id: id.to_owned(),
            ended: false,
        }
    }

    /// Writes the failure.
    pub async fn fail(mut self, why: &str) -> ApiResult<()> {
        self.ended = true;
        fail(&self.store, &self.id, why).await
    }

    /// The end was written with the history.
    fn done(mut self) {
        self.ended = true;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        let (store, id) = (self.store.clone(), self.id.clone());
        tokio::spawn(async move {
            let _ = fail(&store, &id, "the upload was cut short; import again").await;
        });
    }
}

async fn fail(store: &store::Store, id: &str, why: &str) -> ApiResult<()> {
    let mut tx = store.begin().await?;
    imports::set_state(tx.h(), id, "running", "failed", Some(why), now_ms()).await?;
    tx.commit().await?;
    Ok(())
}

/// Why an import failed, for the person importing (the import row keeps it).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Git(#[from] import::Error),
    #[error(transparent)]
    Store(#[from] store::Error),
    #[error(transparent)]
    Record(#[from] record::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Brings the history of `source` into the import's repo and records it; on failure
/// nothing of it is visible, and the caller writes the failure.
pub async fn run(
    state: &AppState,
    running: Running,
    row: &ImportRow,
    source: Source<'_>,
    actor: &Actor,
) -> Result<(), (Running, Error)> {
    match bring(state, row, source, actor).await {
        Ok(()) => {
            running.done();
            Ok(())
        }
        Err(e) => Err((running, e)),
    }
}

async fn bring(
    state: &AppState,
    row: &ImportRow,
    source: Source<'_>,
    actor: &Actor,
) -> Result<(), Error> {
    let scratch = Scratch(
        crate::git::door::spools(state)
            .await?
            .file()
            .with_extension("git"),
    );
    storage::init_bare(&scratch.0).await?;
    // One at a time with pushes: an import is git's heaviest work.
    let _slot = state
        .push_slots
        .clone()
        .acquire_owned()
        .await
        .map_err(std::io::Error::other)?;
    import::fetch(&scratch.0, source, "main").await?;
    let recorded = place(state, row, &scratch.0, actor).await?;
    state.facts.after_record(&row.repo_id, &recorded).await;
    Ok(())
}

/// Moves the filled repository into place and records it, the repo row with it when
/// new, in one transaction; if that fails the move is undone.
async fn place(
    state: &AppState,
    row: &ImportRow,
    filled: &Path,
    actor: &Actor,
) -> Result<record::Recorded, Error> {
    let data_dir = &state.config.data_dir;
    let dir = storage::repo_dir(data_dir, &row.repo_id);
    let aside = filled.with_extension("old");
    let mut tx = state.store.begin().await?;
    let monorepo = monorepos::by_id(tx.h(), &row.monorepo_id)
        .await?
        .ok_or_else(|| Error::Refused("the monorepo was deleted".into()))?;
    let existing = repos::lock(tx.h(), &row.repo_id).await?;
    match &existing {
        Some(repo) => {
            if repo.default_head.is_some() || import::has_refs(&dir).await? {
                return Err(Error::Refused(format!(
                    "the repo {} got history during the import",
                    repo.name
                )));
            }
            tokio::fs::rename(&dir, &aside).await?;
        }
        None => {
            if repos::by_name(tx.h(), &monorepo.id, &row.name)
                .await?
                .is_some()
            {
                return Err(Error::Refused(format!(
                    "a repo named {} was made during the import",
                    row.name
                )));
            }
            let repo = RepoRow {
                id: row.repo_id.clone(),
                monorepo_id: monorepo.id.clone(),
                name: row.name.clone(),
                path: row.path.clone(),
                is_meta: false,
                default_branch: "main".into(),
                default_head: None,
                releases_public: false,
                created_at: now_ms(),
                default_head_at: 0,
            };
            repos::insert(tx.h(), &repo).await?;
            created(tx.h(), &repo, actor).await?;
            if let Some(parent) = dir.parent() {
                tokio::fs::create_dir_all(parent).await?;
            }
        }
    }
    let recorded = async {
        tokio::fs::rename(filled, &dir).await?;
        let recorded = record::record_import(&mut tx, data_dir, &row.repo_id, actor).await?;
        imports::set_state(tx.h(), &row.id, "running", "done", None, now_ms()).await?;
        tx.commit().await?;
        Ok::<_, Error>(recorded)
    }
    .await;
    match recorded {
        Ok(recorded) => {
            storage::remove(&aside).await;
            Ok(recorded)
        }
        Err(e) => {
            if dir.exists() && !filled.exists() {
                let _ = tokio::fs::rename(&dir, filled).await;
            }
            if existing.is_some() {
                let _ = tokio::fs::rename(&aside, &dir).await;
            }
            Err(e)
        }
    }
}

/// `repo.created`, as for a repo made empty: followers lay the repo out from it, before
/// the history's own events.
async fn created(h: H<'_>, repo: &RepoRow, actor: &Actor) -> Result<(), store::Error> {
    let head = DefaultHeadRow {
        repo: repo.name.clone(),
        default_branch: repo.default_branch.clone(),
        default_head: None,
    };
    let body = json!({"row": head, "actor": actor.login, "path": repo.path});
    events::append(
        h,
        &events::NewEvent {
            monorepo_id: &repo.monorepo_id,
            kind: "repo.created",
            repo: Some(&repo.name),
            also_repos: None,
            collection: "default_heads",
            key: &repo.name,
            op: "upsert",
            body: body.to_string(),
            at: repo.created_at,
        },
    )
    .await
    .map(drop)
}

/// Fetches `pinned` for a URL import made running, in the background, and writes its
/// end either way.
pub fn spawn_url(state: AppState, row: ImportRow, pinned: Pinned, actor: Actor) {
    let running = Running::adopt(&state, &row.id);
    tokio::spawn(async move {
        let source = Source::Url {
            url: &pinned.url,
            resolve: pinned.resolve.as_deref(),
        };
        if let Err((running, e)) = run(&state, running, &row, source, &actor).await {
            tracing::warn!(import = %row.id, error = %e, "an import failed");
            let _ = running.fail(&e.to_string()).await;
        }
    });
}

/// The import as answered; its repo once done.
pub async fn view(
    h: H<'_>,
    config: &Config,
    monorepo: &MonorepoRow,
    row: &ImportRow,
) -> ApiResult<Import> {
    let state = ImportState::parse(&row.state).unwrap_or(ImportState::Failed);
    let repo = if state == ImportState::Done {
        repos::by_id(h, &row.repo_id)
            .await?
            .map(|r| views::repo(config, monorepo, &r))
    } else {
        None
    };
    Ok(Import {
        id: row.id.clone(),
        path: row.path.clone(),
        state,
        error: row.error.clone(),
        repo,
    })
}

/// At start on SQLite (the only process): an import a stopped server was running failed.
pub async fn fail_stopped(store: &store::Store) {
    let failed = async {
        let mut tx = store.begin().await?;
        let n = imports::fail_running(tx.h(), now_ms()).await?;
        tx.commit().await?;
        Ok::<_, store::Error>(n)
    };
    match failed.await {
        Ok(0) => {}
        Ok(n) => tracing::warn!(imports = n, "imports a stopped server was running failed"),
        Err(e) => tracing::error!(error = %e, "cannot fail the imports a stopped server ran"),
    }
}
