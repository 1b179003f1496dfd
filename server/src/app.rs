//! `launch`: opens the store, builds the state, starts the background tasks and serves
//! the router until shutdown.

use std::future::Future;
use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;

use crate::config::Config;
use crate::oidc;
use crate::state::AppState;
use crate::store::Store;

/// Serves `listener` until `shutdown` resolves, then drains requests and closes the
/// database. Binding is the caller's, so tests can listen on port 0.
pub async fn launch(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    install_crypto_provider();
    crate::connections::raise_open_files_limit();
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
    // Likewise release uploads; on a shared database only old ones, after a start.
    if store.postgres().is_none() {
        crate::releases::files::remove_leftovers(&store, &config.data_dir, true).await;
        crate::imports::fail_stopped(&store).await;
    } else {
        let (store, data_dir) = (store.clone(), config.data_dir.clone());
        tokio::spawn(async move {
            crate::releases::files::remove_leftovers(&store, &data_dir, false).await;
        });
    }
    let state = AppState::new(store.clone(), config, oidc);
    let settling = state.clone();
    tokio::spawn(async move {
        // First the changes a crash cut off: recorded whole or put back whole.
        crate::changes::recover(&settling).await;
        crate::git::record::record_all(settling).await;
    });
    // Once any lock a killed git left is stale (never a live one), it goes.
    let data_dir = state.config.data_dir.clone();
    tokio::spawn(async move {
        tokio::time::sleep(crate::git::storage::STALE_LOCK).await;
        let _ =
            tokio::task::spawn_blocking(move || crate::git::storage::remove_stale_locks(&data_dir))
                .await;
    });
    tokio::spawn(crate::presence::keep(state.clone()));
    tokio::spawn(crate::hooks::worker::run(state.clone()));
    tokio::spawn(crate::pokes::serve::<crate::auto_merge::Worker>(
        state.clone(),
    ));
    tokio::spawn(crate::pokes::serve::<crate::merge_queue::Worker>(
        state.clone(),
    ));
    tokio::spawn(crate::pokes::serve::<crate::queued_changes::Worker>(
        state.clone(),
    ));
    tokio::spawn(crate::feed::prune_forever(store.clone()));
    tokio::spawn(crate::agents::supervise::sweep(state.clone()));
    tokio::spawn(crate::rate_limit::forget_idle_forever(state.clone()));
    let agents = state.agents.clone();
    tracing::info!(
        listen = %listener.local_addr()?,
        base_url = %state.config.base_url,
        database = store.backend(),
        "svc-server ready"
    );
    let connections = state.config.connections.clone();
    let app = crate::middleware::before_routing(crate::router::router(state));
    crate::connections::serve(listener, app, &connections, shutdown).await;
    // Runs end with the server: their sessions are written failed, to be carried on.
    agents.shut_down().await;
    store.close().await;
    tracing::info!("svc-server stopped");
    Ok(())
}

/// TLS for outgoing HTTPS (identity providers) uses ring, installed once per process.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
