//! Repos to look at: the work of the auto-merge and merge-queue workers is fed by
//! whatever may let a repo's work move on (a status posted, facts stored, a branch armed
//! or queued), and by a sweep that finds what another server's requests started and what
//! times out. A repo is looked at by one task at a time; a poke during a look asks for
//! one more look after it, however often it comes.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::error::ApiResult;
use crate::state::AppState;

/// The repos poked and not looked at yet.
pub struct Pokes {
    /// Repos being looked at or waiting to be; true when poked again meanwhile.
    busy: Mutex<HashMap<String, bool>>,
    tx: mpsc::UnboundedSender<String>,
    rx: Mutex<Option<mpsc::UnboundedReceiver<String>>>,
}

impl Default for Pokes {
    fn default() -> Pokes {
        let (tx, rx) = mpsc::unbounded_channel();
        Pokes {
            busy: Mutex::default(),
            tx,
            rx: Mutex::new(Some(rx)),
        }
    }
}

impl Pokes {
    /// Asks for the repo to be looked at (once more after the look under way, however
    /// often it is asked meanwhile).
    pub fn poke(&self, repo_id: &str) {
        let new = match self.busy.lock() {
            Ok(mut busy) => match busy.get_mut(repo_id) {
                Some(again) => {
                    *again = true;
                    false
                }
                None => {
                    busy.insert(repo_id.to_owned(), false);
                    true
                }
            },
            Err(_) => false,
        };
        if new {
            // The receiver lives as long as the server; a send error means shutdown.
            let _ = self.tx.send(repo_id.to_owned());
        }
    }

    /// The receiving end of the pokes, for the one worker that looks (once).
    fn take_receiver(&self) -> Option<mpsc::UnboundedReceiver<String>> {
        self.rx.lock().ok().and_then(|mut rx| rx.take())
    }

    /// A look at the repo ended: true when it was poked meanwhile and must look again.
    fn done(&self, repo_id: &str) -> bool {
        let Ok(mut busy) = self.busy.lock() else {
            return false;
        };
        match busy.get_mut(repo_id) {
            Some(again) if *again => {
                *again = false;
                true
            }
            _ => {
                busy.remove(repo_id);
                false
            }
        }
    }
}

/// A worker fed by [`Pokes`]: what it does at a look, and which repos a sweep pokes.
pub trait Worker: 'static {
    /// What the worker does, for its log lines.
    const WHAT: &'static str;
    /// How often [`Worker::due`] is asked.
    const SWEEP_EVERY: Duration;
    /// The worker's pokes in the server's state.
    fn pokes(state: &AppState) -> &Pokes;
    /// One look at a poked repo.
    fn look(state: &AppState, repo_id: &str) -> impl Future<Output = ApiResult<()>> + Send;
    /// The repos a sweep pokes.
    fn due(state: &AppState) -> impl Future<Output = ApiResult<Vec<String>>> + Send;
}

/// Looks at each poked repo, one task per repo, and sweeps every
/// [`Worker::SWEEP_EVERY`]; runs as long as the server.
pub async fn serve<W: Worker>(state: AppState) {
    let Some(mut rx) = W::pokes(&state).take_receiver() else {
        return;
    };
    tokio::spawn(sweep_forever::<W>(state.clone()));
    while let Some(repo_id) = rx.recv().await {
        let state = state.clone();
        tokio::spawn(async move {
            loop {
                if let Err(e) = W::look(&state, &repo_id).await {
                    tracing::warn!(repo = %repo_id, error = %e.message, "cannot run {}", W::WHAT);
                }
                if !W::pokes(&state).done(&repo_id) {
                    break;
                }
            }
        });
    }
}

async fn sweep_forever<W: Worker>(state: AppState) {
    let mut every = tokio::time::interval(W::SWEEP_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match W::due(&state).await {
            Ok(repos) => repos.iter().for_each(|r| W::pokes(&state).poke(r)),
            Err(e) => tracing::warn!(error = %e.message, "cannot sweep for {}", W::WHAT),
        }
    }
}
