//! Live delivery of the monorepo event stream.
//!
//! Every committed write rings a bell: SQLite's transactions ring it on commit, and on
//! PostgreSQL each appending transaction notifies [`events::CHANNEL`], which a listener
//! in every server process turns into a ring. One dispatcher per process then reads the
//! new events of the monorepos someone here is subscribed to, renders each once, and
//! hands the same bytes to every socket of that monorepo through a bounded broadcast (a
//! socket that falls behind is dropped, never buffered without bound). A checker
//! re-reads access every few seconds so sockets close 4404/4403 within 15 s.
//!
//! A write that takes people's access away (an org member removed, a person leaving an
//! org or a monorepo, a transfer) calls [`Live::access_changed`] after it commits: every
//! process (on PostgreSQL through [`ACCESS_CHANNEL`]) re-checks its event sockets and
//! activity sockets at once rather than at their next periodic check.

pub mod socket;
pub mod topics;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::store::{self, Backend, Store, events, monorepos};

/// Live messages one monorepo's channel holds for slow sockets before they are dropped.
const CHANNEL_CAPACITY: usize = 1024;
/// How often access of open sockets is re-read (a socket must close within 15 s).
const ACCESS_EVERY: Duration = Duration::from_secs(5);
/// Events read per query while dispatching.
const DISPATCH_BATCH: i64 = 500;
/// The PostgreSQL channel [`Live::access_changed`] announces on.
pub const ACCESS_CHANNEL: &str = "svc_access";

/// One event, rendered once as its socket frame.
#[derive(Debug)]
pub struct LiveEvent {
    pub seq: i64,
    pub kind: String,
    pub collection: String,
    pub repo: Option<String>,
    pub also_repos: Option<String>,
    pub key: String,
    /// `{"type": "event", ...}`.
    pub frame: Utf8Bytes,
}

impl LiveEvent {
    pub fn meta(&self) -> topics::EventMeta<'_> {
        topics::EventMeta {
            kind: &self.kind,
            collection: &self.collection,
            repo: self.repo.as_deref(),
            also_repos: self.also_repos.as_deref(),
            key: &self.key,
        }
    }
}

/// What a monorepo's channel carries to its sockets.
#[derive(Debug, Clone)]
pub enum Msg {
    Event(Arc<LiveEvent>),
    /// The monorepo was deleted.
    Deleted,
    /// This user lost access (removed, transferred away).
    UserLost(String),
    /// This credential was revoked or expired.
    CredentialLost(String),
}

/// One monorepo with sockets in this process.
struct Channel {
    monorepo_id: String,
    tx: broadcast::Sender<Msg>,
    /// The last seq handed to the broadcast.
    last: AtomicI64,
    /// The current label, refreshed by the checker (frames carry it).
    label: Mutex<String>,
    /// Open sockets by (user, credential), for the access checker.
    holders: Mutex<HashMap<(String, String), usize>>,
}

/// The live hub of one server process.
pub struct Live {
    store: Store,
    /// Another process may revoke credentials (PostgreSQL).
    revocable_elsewhere: bool,
    /// Stops the hub's tasks when the server's state goes.
    _stop: DropGuard,
    bell: watch::Receiver<u64>,
    /// Rings when someone's access changed, here or in another process.
    access: watch::Sender<u64>,
    channels: Mutex<HashMap<String, Weak<Channel>>>,
}

/// A socket's hold on its monorepo's channel; dropping it lets the channel go.
pub struct Subscription {
    pub rx: broadcast::Receiver<Msg>,
    channel: Arc<Channel>,
    holder: (String, String),
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut holders = lock(&self.channel.holders);
        if let Some(n) = holders.get_mut(&self.holder) {
            *n -= 1;
            if *n == 0 {
                holders.remove(&self.holder);
            }
        }
    }
}

impl Live {
    /// Starts the hub's bell, dispatcher and access checker.
    pub fn start(store: Store) -> Arc<Live> {
        let stop = CancellationToken::new();
        let access = watch::Sender::new(0);
        let bell = match store.backend_pools() {
            Backend::Sqlite(pools) => pools.bell.subscribe(),
            Backend::Postgres(pool) => {
                let (ring, bell) = watch::channel(0);
                let rings = Rings {
                    events: ring,
                    access: access.clone(),
                };
                tokio::spawn(until(stop.clone(), listen(pool.clone(), rings)));
                bell
            }
        };
        let live = Arc::new(Live {
            revocable_elsewhere: store.postgres().is_some(),
            store,
            bell,
            access,
            channels: Mutex::default(),
            _stop: stop.clone().drop_guard(),
        });
        tokio::spawn(until(
            stop.clone(),
            dispatch(Arc::downgrade(&live), live.bell()),
        ));
        tokio::spawn(until(
            stop,
            check_access(Arc::downgrade(&live), live.access_bell()),
        ));
        live
    }

    /// Says that people's access to monorepos changed (an org member removed, someone
    /// leaving an org or a monorepo, a monorepo relabelled or deleted): call it after the
    /// change commits. Every server process re-checks at once: event sockets that lost
    /// access close 4403, activity sockets send `left` (or `joined`). Without the call the
    /// periodic checks still catch the change, within 15 s; requests and the git door
    /// need no call (their authorization is read afresh, or cached until the next commit).
    pub async fn access_changed(&self) {
        ring(&self.access);
        if let Some(pool) = self.store.postgres() {
            let sent = sqlx::query("SELECT pg_notify($1, '')")
                .bind(ACCESS_CHANNEL)
                .execute(pool)
                .await;
            if let Err(e) = sent {
                tracing::warn!(error = %e, "cannot announce an access change; periodic checks will see it");
            }
        }
    }

    /// A receiver that changes when someone's access changed ([`Live::access_changed`]).
    pub fn access_bell(&self) -> watch::Receiver<u64> {
        self.access.subscribe()
    }

    /// A receiver that changes after transactions that may have appended events commit.
    pub fn bell(&self) -> watch::Receiver<u64> {
        self.bell.clone()
    }

    /// Subscribes a socket of `user_id`/`credential_id` to a monorepo's live events.
    /// Events with a seq above the monorepo's seq at this moment will arrive.
    pub async fn subscribe(
        &self,
        monorepo_id: &str,
        label: &str,
        user_id: &str,
        credential_id: &str,
    ) -> store::Result<Subscription> {
        let existing = lock(&self.channels)
            .get(monorepo_id)
            .and_then(Weak::upgrade);
        let channel = match existing {
            Some(channel) => channel,
            None => {
                let mut conn = self.store.read().await?;
                let last = events::last_seq(conn.h(), monorepo_id).await?;
                let mut channels = lock(&self.channels);
                match channels.get(monorepo_id).and_then(Weak::upgrade) {
                    Some(channel) => channel,
                    None => {
                        let channel = Arc::new(Channel {
                            monorepo_id: monorepo_id.to_owned(),
                            tx: broadcast::channel(CHANNEL_CAPACITY).0,
                            last: AtomicI64::new(last),
                            label: Mutex::new(label.to_owned()),
                            holders: Mutex::default(),
                        });
                        channels.retain(|_, c| c.strong_count() > 0);
                        channels.insert(monorepo_id.to_owned(), Arc::downgrade(&channel));
                        channel
                    }
                }
            }
        };
        let holder = (user_id.to_owned(), credential_id.to_owned());
        *lock(&channel.holders).entry(holder.clone()).or_default() += 1;
        Ok(Subscription {
            rx: channel.tx.subscribe(),
            channel,
            holder,
        })
    }

    /// The channels with sockets now.
    fn open_channels(&self) -> Vec<Arc<Channel>> {
        lock(&self.channels)
            .values()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// Reads what moved since the last pass and broadcasts it.
    async fn dispatch_once(&self) -> store::Result<()> {
        let channels = self.open_channels();
        if channels.is_empty() {
            return Ok(());
        }
        let mut conn = self.store.read().await?;
        for chunk in channels.chunks(500) {
            let ids: Vec<String> = chunk.iter().map(|c| c.monorepo_id.clone()).collect();
            let moved: HashMap<String, i64> = events::last_seqs(conn.h(), &ids)
                .await?
                .into_iter()
                .collect();
            for channel in chunk {
                let Some(&seq) = moved.get(&channel.monorepo_id) else {
                    continue;
                };
                if seq > channel.last.load(Ordering::Acquire) && self.revocable_elsewhere {
                    drop_revoked(conn.h(), channel).await?;
                }
                while channel.last.load(Ordering::Acquire) < seq {
                    let from = channel.last.load(Ordering::Acquire);
                    let rows =
                        events::after(conn.h(), &channel.monorepo_id, from, DISPATCH_BATCH).await?;
                    let Some(last) = rows.last().map(|r| r.seq) else {
                        break;
                    };
                    let label = lock(&channel.label).clone();
                    for row in rows {
                        match render(&label, &channel.monorepo_id, row) {
                            Ok(event) => {
                                let _ = channel.tx.send(Msg::Event(Arc::new(event)));
                            }
                            Err(e) => tracing::error!(error = %e, "cannot render an event"),
                        }
                    }
                    channel.last.store(last, Ordering::Release);
                }
            }
        }
        Ok(())
    }

    /// Re-reads the monorepo, its holders' roles and credentials; tells sockets that lost.
    async fn check_once(&self) -> store::Result<()> {
        for channel in self.open_channels() {
            let mut conn = self.store.read().await?;
            let Some(monorepo) = monorepos::by_id(conn.h(), &channel.monorepo_id).await? else {
                let _ = channel.tx.send(Msg::Deleted);
                continue;
            };
            *lock(&channel.label) = monorepo.label();
            let holders: Vec<(String, String)> = lock(&channel.holders).keys().cloned().collect();
            let mut users: Vec<&String> = holders.iter().map(|(u, _)| u).collect();
            users.sort();
            users.dedup();
            for user in users {
                let role = crate::authz::role_of(conn.h(), &channel.monorepo_id, user).await;
                if matches!(role, Ok(None)) {
                    let _ = channel.tx.send(Msg::UserLost(user.clone()));
                }
            }
            let credentials: Vec<String> = holders.into_iter().map(|(_, c)| c).collect();
            let live =
                store::credentials::live_ids(conn.h(), &credentials, store::now_ms()).await?;
            for credential in credentials {
                if !live.contains(&credential) {
                    let _ = channel.tx.send(Msg::CredentialLost(credential));
                }
            }
        }
        Ok(())
    }
}

/// Tells the channel's sockets whose credential is no longer live, ahead of new events.
/// On PostgreSQL another process may revoke: read after the new events were seen, this
/// sees every revocation committed before them, so a revoked socket gets none of them
/// even before the revocation's notification arrives here.
async fn drop_revoked(h: store::H<'_>, channel: &Channel) -> store::Result<()> {
    let credentials: Vec<String> = lock(&channel.holders)
        .keys()
        .map(|(_, c)| c.clone())
        .collect();
    let live = store::credentials::live_ids(h, &credentials, store::now_ms()).await?;
    for credential in credentials {
        if !live.contains(&credential) {
            let _ = channel.tx.send(Msg::CredentialLost(credential));
        }
    }
    Ok(())
}

/// The `{"type": "event", ...}` frame of a stored event.
pub fn render(label: &str, monorepo_id: &str, row: events::EventRow) -> anyhow::Result<LiveEvent> {
    let (seq, kind, collection, repo, also_repos, key) = (
        row.seq,
        row.kind.clone(),
        row.collection.clone(),
        row.repo.clone(),
        row.also_repos.clone(),
        row.key.clone(),
    );
    let event = crate::views::event(label, monorepo_id, row)?;
    let frame = serde_json::to_string(&svc_protocol::event::ServerFrame::Event(Box::new(event)))?;
    Ok(LiveEvent {
        seq,
        kind,
        collection,
        repo,
        also_repos,
        key,
        frame: frame.into(),
    })
}

async fn dispatch(live: Weak<Live>, mut bell: watch::Receiver<u64>) {
    loop {
        if bell.changed().await.is_err() {
            return;
        }
        let Some(hub) = live.upgrade() else { return };
        if let Err(e) = hub.dispatch_once().await {
            tracing::warn!(error = %e, "cannot read new events; retrying on the next change");
            drop(hub);
            tokio::time::sleep(Duration::from_millis(200)).await;
            bell.mark_changed();
        }
    }
}

async fn check_access(live: Weak<Live>, mut changed: watch::Receiver<u64>) {
    let mut every = tokio::time::interval(ACCESS_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            Ok(()) = changed.changed() => {}
        }
        let Some(hub) = live.upgrade() else { return };
        if let Err(e) = hub.check_once().await {
            tracing::warn!(error = %e, "cannot re-check socket access");
        }
    }
}

/// The bells PostgreSQL notifications ring.
struct Rings {
    /// New events ([`events::CHANNEL`]).
    events: watch::Sender<u64>,
    /// Access changed ([`ACCESS_CHANNEL`]).
    access: watch::Sender<u64>,
}

impl Rings {
    fn all(&self) {
        ring(&self.events);
        ring(&self.access);
    }
}

fn ring(bell: &watch::Sender<u64>) {
    bell.send_modify(|n| *n = n.wrapping_add(1));
}

/// Turns PostgreSQL notifications into rings; while reconnecting, rings once it is back
/// so nothing committed meanwhile is left unread.
async fn listen(pool: sqlx::PgPool, rings: Rings) {
    let mut wait = Duration::from_millis(100);
    loop {
        let connected = async {
            let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await?;
            listener
                .listen_all([events::CHANNEL, ACCESS_CHANNEL])
                .await?;
            Ok::<_, sqlx::Error>(listener)
        };
        match connected.await {
            Ok(mut listener) => {
                wait = Duration::from_millis(100);
                rings.all();
                loop {
                    match listener.try_recv().await {
                        Ok(Some(n)) if n.channel() == ACCESS_CHANNEL => ring(&rings.access),
                        Ok(Some(_)) => ring(&rings.events),
                        // The connection dropped and will be re-established: notifications
                        // in between are lost, so ring to re-read.
                        Ok(None) => rings.all(),
                        Err(e) => {
                            tracing::warn!(error = %e, "lost the event listener; reconnecting");
                            break;
                        }
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot listen for events; retrying"),
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_secs(5));
    }
}

/// Runs `task` until `stop` is cancelled.
async fn until(stop: CancellationToken, task: impl std::future::Future<Output = ()>) {
    tokio::select! {
        () = stop.cancelled() => {}
        () = task => {}
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
