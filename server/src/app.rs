//! The application: shared state, the router with its layers, and `launch`.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use svc_protocol::ErrorCode;

use anyhow::Context;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Request, StatusCode};
use axum::response::IntoResponse;
use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tower::Layer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::{DefaultOnResponse, TraceLayer};

use crate::config::Config;
use crate::credential_cache::CredentialCache;
use crate::error::ApiError;
use crate::oidc;
use crate::store::Store;

/// JSON request bodies above this are refused with 413 `too_large`.
pub const JSON_BODY_LIMIT: usize = 1024 * 1024;
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
    /// Parsed `.svc/svc.toml` files, by (repo, commit).
    pub checks_config: Arc<crate::checks::ConfigCache>,
    /// Finished streamed diffs, replayed by (main, head).
    pub diff_streams: Arc<crate::routes::DiffStreams>,
    /// This process's id for the socket connections it holds.
    pub presence: Arc<crate::presence::Presence>,
    /// Live delivery of the event stream to this process's sockets.
    pub live: Arc<crate::live::Live>,
    /// The activity feed's tail, which person sockets subscribe to.
    pub feed: Arc<crate::feed::Hub>,
    /// This process's push spool folder, made on the first push.
    pub push_spools: Arc<tokio::sync::OnceCell<crate::git::spool::SpoolDir>>,
    /// One merge at a time per repo in this process.
    merge_locks: Arc<std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
}

impl AppState {
    /// The state of one server process. On PostgreSQL it starts following revocations
    /// made by other processes, so it must run inside the runtime.
    pub fn new(store: Store, config: Config, oidc: Option<Arc<oidc::Provider>>) -> AppState {
        let credentials = Arc::new(CredentialCache::new(matches!(store, Store::Sqlite(_))));
        if let Store::Postgres(pool) = &store {
            tokio::spawn(crate::credential_cache::follow_revocations(
                pool.clone(),
                credentials.clone(),
            ));
        }
        let facts = crate::facts::Worker::start(store.clone(), config.data_dir.clone());
        let live = crate::live::Live::start(store.clone());
        let feed = crate::feed::Hub::start(store.clone(), live.bell());
        AppState {
            live,
            feed,
            store,
            facts,
            checks_config: Arc::default(),
            merge_locks: Arc::default(),
            push_spools: Arc::default(),
            diff_streams: Arc::default(),
            presence: Arc::default(),
            config: Arc::new(config),
            oidc,
            push_slots: Arc::new(tokio::sync::Semaphore::new(MAX_CONCURRENT_PUSHES)),
            last_commits: Arc::default(),
            credentials,
        }
    }

    /// The lock merges into `repo_id` take.
    pub fn merge_lock(&self, repo_id: &str) -> Arc<tokio::sync::Mutex<()>> {
        match self.merge_locks.lock() {
            Ok(mut locks) => locks.entry(repo_id.to_owned()).or_default().clone(),
            Err(_) => Arc::default(),
        }
    }
}

/// Serves `listener` until `shutdown` resolves, then drains requests and closes the
/// database. Binding is the caller's, so tests can listen on port 0.
pub async fn launch(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    install_crypto_provider();
    std::fs::create_dir_all(&config.data_dir)
        .with_context(|| format!("cannot create the data dir {}", config.data_dir.display()))?;
    let store = Store::open(&config.database_url)
        .await
        .context("cannot open the database")?;
    let http = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(10))
        .build()
        .context("cannot set up the HTTP client")?;
    let oidc = config
        .oidc
        .clone()
        .map(|s| Arc::new(oidc::Provider::new(s, http)));
    // Before any push can spool: what processes that died left behind goes.
    crate::git::spool::remove_leftovers(&config.data_dir);
    let state = AppState::new(store.clone(), config, oidc);
    tokio::spawn(crate::git::record::record_all(state.clone()));
    // Once any lock a killed git left is stale (never a live one), it goes.
    let data_dir = state.config.data_dir.clone();
    tokio::spawn(async move {
        tokio::time::sleep(crate::git::storage::STALE_LOCK).await;
        let _ =
            tokio::task::spawn_blocking(move || crate::git::storage::remove_stale_locks(&data_dir))
                .await;
    });
    tokio::spawn(crate::presence::keep(state.clone()));
    tokio::spawn(crate::feed::prune_forever(store.clone()));
    tracing::info!(
        listen = %listener.local_addr()?,
        base_url = %state.config.base_url,
        database = store.backend(),
        "svc-server ready"
    );
    // Without TCP_NODELAY each streamed git response waits on Nagle's ~40 ms delay.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    // Branch names with raw slashes are encoded before routing, so the router sees one
    // path segment either way.
    let app = tower::util::MapRequestLayer::new(|mut req: Request<axum::body::Body>| {
        if let Some(uri) = crate::routes::encode_branch_slashes(req.uri()) {
            *req.uri_mut() = uri;
        }
        req
    })
    .layer(router(state));
    axum::serve(
        listener,
        axum::ServiceExt::<Request<axum::body::Body>>::into_make_service(app),
    )
    .with_graceful_shutdown(shutdown)
    .await?;
    store.close().await;
    tracing::info!("svc-server stopped");
    Ok(())
}

/// TLS for outgoing HTTPS (identity providers) uses ring, installed once per process.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

pub fn router(state: AppState) -> Router {
    let api: Router<AppState> = crate::routes::api().into();
    api.merge(crate::web::router())
        .merge(crate::git::door::router())
        .merge(crate::routes::raw())
        .fallback(|| async { ApiError::not_found("route") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                ErrorCode::MethodNotAllowed,
                "this route does not take that method",
            )
        })
        .layer(DefaultBodyLimit::max(JSON_BODY_LIMIT))
        .layer(CatchPanicLayer::custom(|_| {
            ApiError::internal("a handler panicked").into_response()
        }))
        .layer(
            TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
                let id = req
                    .headers()
                    .get("x-request-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("-");
                tracing::info_span!("request", id, method = %req.method(), path = %req.uri().path())
            })
            .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(RequestIds::default()))
        .with_state(state)
}

/// Request ids: a per-process random prefix and a counter, cheap and unique enough to
/// follow one request through the logs (an incoming `x-request-id` is kept).
#[derive(Clone)]
struct RequestIds {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl Default for RequestIds {
    fn default() -> Self {
        Self {
            prefix: crate::token::new_id("")
                .chars()
                .take(6)
                .collect::<String>()
                .into(),
            next: Arc::default(),
        }
    }
}

impl MakeRequestId for RequestIds {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("{}-{n}", self.prefix)
            .parse()
            .ok()
            .map(RequestId::new)
    }
}
