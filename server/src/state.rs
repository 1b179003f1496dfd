//! The state every handler shares: the store, the configuration, the caches and the
//! background workers of one server process.

use std::sync::Arc;

use crate::config::Config;
use crate::credential_cache::CredentialCache;
use crate::error::{ApiError, ApiResult};
use crate::git::read::Repo;
use crate::git::storage;
use crate::oidc;
use crate::store::Store;
use crate::store::repos::RepoRow;

/// Pushes one server process lets git take at once.
pub const MAX_CONCURRENT_PUSHES: usize = 16;

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub config: Arc<Config>,
    pub oidc: Option<Arc<oidc::Provider>>,
    /// Pushes git may take at once; the rest wait briefly, then are refused as busy.
    pub push_slots: Arc<tokio::sync::Semaphore>,
    /// Last-commits walks in progress or done, by (repo, commit, path).
    pub last_commits: Arc<crate::git::last_commits::Cache>,
    /// Recently checked credentials.
    pub credentials: Arc<CredentialCache>,
    /// The branch facts queue and workers.
    pub facts: Arc<crate::facts::Worker>,
    /// The repos whose armed branches are to be looked at (auto-merge).
    pub auto_merge: Arc<crate::pokes::Pokes>,
    /// The repos whose merge queue is to move on (`merge_queue`).
    pub merge_queue: Arc<crate::pokes::Pokes>,
    /// The changes through the merge queues to look at, by change id (`queued_changes`).
    pub queued_changes: Arc<crate::pokes::Pokes>,
    /// Parsed `.svc/svc.toml` files, by (repo, commit).
    pub checks_config: Arc<crate::checks::ConfigCache>,
    /// Finished streamed diffs, replayed by (main, head).
    pub diff_streams: Arc<crate::cache::DiffStreams>,
    /// This process's id for the socket connections it holds.
    pub presence: Arc<crate::presence::Presence>,
    /// Live delivery of the event stream to this process's sockets.
    pub live: Arc<crate::live::Live>,
    /// The activity feed's tail, which person sockets subscribe to.
    pub feed: Arc<crate::feed::Hub>,
    /// Wakes this process's hook delivery worker (a try recorded, a redelivery queued):
    /// what commits without an event, which the live layer's bell would not report on
    /// PostgreSQL.
    pub hook_wake: Arc<tokio::sync::Notify>,
    /// The client of the CI service's REST API (redirects not followed: an artifact's
    /// download URL is handed on, never fetched).
    pub ci_client: reqwest::Client,
    /// This process's agent session runs.
    pub agents: Arc<crate::agents::Agents>,
    /// This process's push spool folder, made on the first push.
    pub push_spools: Arc<tokio::sync::OnceCell<crate::git::spool::SpoolDir>>,
    /// This process's request rate limiters.
    pub rate_limits: Arc<crate::rate_limit::RateLimits>,
    /// One merge at a time per repo, across processes on PostgreSQL.
    merge_locks: Arc<crate::repo_lock::RepoLocks>,
    /// Background repository maintenance (repacks, commit-graphs).
    pub maintenance: Arc<crate::maintenance::Maintenance>,
}

/// A repo's merge lock (see [`AppState::merge_lock`]).
pub struct MergeLock {
    _held: crate::repo_lock::Held,
    maintenance: Arc<crate::maintenance::Maintenance>,
    repo_ids: Vec<String>,
}

/// Merges and meta saves write objects loosely: their repo is queued for maintenance
/// as the lock is let go.
impl Drop for MergeLock {
    fn drop(&mut self) {
        for id in &self.repo_ids {
            self.maintenance.after_write(id);
        }
    }
}

impl AppState {
    /// The state of one server process. On PostgreSQL it starts following revocations
    /// made by other processes, so it must run inside the runtime.
    pub fn new(store: Store, config: Config, oidc: Option<Arc<oidc::Provider>>) -> AppState {
        let credentials = Arc::new(CredentialCache::new(store.postgres().is_none()));
        if let Some(pool) = store.postgres() {
            tokio::spawn(crate::credential_cache::follow_revocations(
                pool.clone(),
                credentials.clone(),
            ));
        }
        let auto_merge: Arc<crate::pokes::Pokes> = Arc::default();
        let facts =
            crate::facts::Worker::start(store.clone(), config.data_dir.clone(), auto_merge.clone());
        let live = crate::live::Live::start(store.clone());
        let feed = crate::feed::Hub::start(store.clone(), live.bell());
        let merge_locks = Arc::new(crate::repo_lock::RepoLocks::new(&config.database_url));
        let maintenance =
            crate::maintenance::Maintenance::start(config.data_dir.clone(), merge_locks.clone());
        AppState {
            live,
            feed,
            store,
            facts,
            auto_merge,
            merge_queue: Arc::default(),
            queued_changes: Arc::default(),
            checks_config: Arc::default(),
            merge_locks,
            maintenance,
            hook_wake: Arc::default(),
            push_spools: Arc::default(),
            agents: Arc::default(),
            ci_client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap_or_default(),
            diff_streams: Arc::default(),
            rate_limits: Arc::new(crate::rate_limit::RateLimits::new(&config.rate_limits)),
            presence: Arc::default(),
            config: Arc::new(config),
            oidc,
            push_slots: Arc::new(tokio::sync::Semaphore::new(MAX_CONCURRENT_PUSHES)),
            last_commits: Arc::default(),
            credentials,
        }
    }

    /// The lock merges into `repo_id` take, held until dropped.
    pub async fn merge_lock(&self, repo_id: &str) -> ApiResult<MergeLock> {
        Ok(MergeLock {
            _held: self.merge_locks.lock(repo_id).await?,
            maintenance: self.maintenance.clone(),
            repo_ids: vec![repo_id.to_owned()],
        })
    }

    /// The merge locks of every repo of `repo_ids` (a change), taken in a fixed order.
    pub async fn change_lock(&self, repo_ids: &[String]) -> ApiResult<MergeLock> {
        Ok(MergeLock {
            _held: self.merge_locks.lock_all(repo_ids).await?,
            maintenance: self.maintenance.clone(),
            repo_ids: repo_ids.to_vec(),
        })
    }

    /// Runs `f` with `repo`'s git repository open, on the blocking pool: git reads and
    /// writes block, so they stay off the async threads. `f`'s error answers as its
    /// [`ApiError`]; a caller that treats some errors apart returns them inside `T`.
    pub async fn git<T, E>(
        &self,
        repo: &RepoRow,
        f: impl FnOnce(Repo) -> Result<T, E> + Send + 'static,
    ) -> ApiResult<T>
    where
        T: Send + 'static,
        E: Into<ApiError> + Send + 'static,
    {
        let dir = storage::repo_dir(&self.config.data_dir, &repo.id);
        tokio::task::spawn_blocking(move || {
            let git = crate::git::open_repos::open(&dir).map_err(ApiError::from)?;
            f(git).map_err(Into::into)
        })
        .await
        .map_err(ApiError::internal)?
    }
}
