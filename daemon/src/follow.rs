//! Following one monorepo: its event socket (topic `main`), heads on connect, on
//! `resync` and every few minutes, each main checkout fast-forwarded as main moves (one
//! left alone for local changes is rechecked every few seconds, so it catches up soon
//! after the tree is clean again), and
//! the presence hello with this machine's branch worktrees. Topic `main` also carries
//! the meta repo's main moves (every save and merge into the meta layer): each one, and
//! every (re)connect, asks for a meta sync.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use svc_protocol::daemon::{Connection, Held, LaidOut, MainMove};
use svc_protocol::event::{ClientFrame, ServerFrame, close};
use svc_protocol::monorepo::{Heads, MonorepoKind, Repo, RepoList};
use svc_protocol::presence::Hello;
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::{self, Message, client::IntoClientRequest};

use crate::git::{self, Outcome};
use crate::meta::Nudge;
use crate::{Shared, TokenSource};

/// How often heads are checked even when the socket says nothing.
const HEADS_EVERY: Duration = Duration::from_secs(180);
/// How often a quiet socket is pinged, so a dead peer is noticed.
const PING_EVERY: Duration = Duration::from_secs(30);
/// How often a checkout left alone (local changes, another branch) is tried again.
const HELD_RECHECK_EVERY: Duration = Duration::from_secs(2);
/// Longest wait between reconnects.
const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// One monorepo followed: where it is cloned and which worktrees it has here.
pub struct Follower {
    pub server: String,
    pub monorepo: String,
    pub key: String,
    pub paths: Vec<PathBuf>,
    pub machine: String,
    pub worktrees: watch::Receiver<Vec<String>>,
    pub shared: Shared,
    pub token: TokenSource,
    pub http: reqwest::Client,
    pub meta: mpsc::UnboundedSender<Nudge>,
}

/// The meta layer's repo (not in the repo list nor in heads).
const META_REPO: &str = "meta";

/// Why a session ended.
enum End {
    /// Try again after a backoff.
    Retry(String),
    /// Never again: access lost, monorepo deleted.
    Stop(String),
}

impl From<reqwest::Error> for End {
    fn from(e: reqwest::Error) -> Self {
        End::Retry(e.to_string())
    }
}

impl From<tungstenite::Error> for End {
    fn from(e: tungstenite::Error) -> Self {
        End::Retry(e.to_string())
    }
}

impl From<git::GitError> for End {
    fn from(e: git::GitError) -> Self {
        End::Retry(e.to_string())
    }
}

/// A repo's main checkouts on this machine.
struct Checkout {
    dirs: Vec<PathBuf>,
    branch: String,
}

/// The head each repo with a checkout left alone still has to reach, by repo name.
type Waiting = BTreeMap<String, String>;

impl Follower {
    pub async fn run(mut self) {
        let mut backoff = Duration::from_secs(1);
        loop {
            let started = Instant::now();
            match self.session().await {
                End::Stop(why) => {
                    tracing::warn!(monorepo = %self.monorepo, "no longer followed: {why}");
                    self.update(|f| {
                        f.connection = Connection::Stopped;
                        f.error = Some(why);
                    });
                    return;
                }
                End::Retry(why) => {
                    // A session that lived a while starts the backoff over.
                    if started.elapsed() > BACKOFF_MAX {
                        backoff = Duration::from_secs(1);
                    }
                    let wait = backoff + jitter(backoff / 2);
                    tracing::info!(monorepo = %self.monorepo, "reconnecting in {wait:?}: {why}");
                    self.update(|f| {
                        f.connection = Connection::Retrying;
                        f.error = Some(why);
                    });
                    tokio::time::sleep(wait).await;
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            }
        }
    }

    fn update(&self, change: impl FnOnce(&mut svc_protocol::daemon::Followed)) {
        if let Ok(mut state) = self.shared.lock()
            && let Some(f) = state.followed.get_mut(&self.key)
        {
            change(f);
        }
    }

    fn path(&self) -> String {
        format!("/v1/monorepos/{}", self.monorepo)
    }

    async fn get<T: serde::de::DeserializeOwned>(&self, token: &str, path: &str) -> Result<T, End> {
        let response = self
            .http
            .get(format!("{}{}{path}", self.server, self.path()))
            .bearer_auth(token)
            .send()
            .await?;
        match response.status().as_u16() {
            200 => Ok(response.json().await?),
            404 => Err(End::Stop(format!(
                "{} is gone or no longer shared with you",
                self.monorepo
            ))),
            status => Err(End::Retry(format!("{path} answered {status}"))),
        }
    }

    async fn session(&mut self) -> End {
        match self.connect().await {
            Ok(end) | Err(end) => end,
        }
    }

    async fn connect(&mut self) -> Result<End, End> {
        self.update(|f| f.connection = Connection::Connecting);
        let token = (self.token)(&self.server).ok_or_else(|| {
            End::Retry(format!(
                "not signed in to {}: run svc login --server {}",
                self.server, self.server
            ))
        })?;
        let (mut checkouts, has_meta) = self.checkouts(&token).await?;
        let mut waiting = Waiting::new();
        let mut seq = self.heads(&token, &checkouts, &mut waiting).await?;

        let ws = self.server.replacen("http", "ws", 1);
        let url = format!("{ws}{}/events?topics=main&since={seq}", self.path());
        let mut request = url.into_client_request()?;
        let auth = format!("Bearer {token}")
            .parse()
            .map_err(|_| End::Retry("the token is not a valid header".to_owned()))?;
        request.headers_mut().insert("authorization", auth);
        let (mut socket, _) = match tokio_tungstenite::connect_async(request).await {
            Ok(ok) => ok,
            Err(tungstenite::Error::Http(r)) if matches!(r.status().as_u16(), 403 | 404) => {
                return Err(End::Stop(format!(
                    "{} is gone or no longer shared with you",
                    self.monorepo
                )));
            }
            Err(e) => return Err(e.into()),
        };
        let mut worktrees = self.worktrees.borrow_and_update().clone();
        socket.send(hello(&self.machine, &worktrees)?).await?;
        self.update(|f| f.worktrees = worktrees.clone());
        tracing::info!(monorepo = %self.monorepo, seq, "connected");
        // Whatever the meta layer did while this socket was closed.
        self.nudge_connected(has_meta);

        let mut heads_timer = tokio::time::interval(HEADS_EVERY);
        heads_timer.tick().await;
        let mut ping_timer = tokio::time::interval(PING_EVERY);
        ping_timer.tick().await;
        let mut recheck_timer = tokio::time::interval(HELD_RECHECK_EVERY);
        recheck_timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                frame = socket.next() => {
                    let Some(frame) = frame else {
                        return Ok(End::Retry("the server closed the socket".to_owned()));
                    };
                    match frame? {
                        Message::Text(text) if text.as_str() == "pong" => {}
                        Message::Text(text) => {
                            let Ok(frame) = serde_json::from_str::<ServerFrame>(text.as_str()) else {
                                tracing::debug!(monorepo = %self.monorepo, "unknown frame: {text}");
                                continue;
                            };
                            match frame {
                                ServerFrame::Event(event) => {
                                    seq = seq.max(event.seq);
                                    // A repo added since: lay it out, then follow it.
                                    if event.collection == "default_heads"
                                        && let Some(repo) = &event.repo
                                        && repo != META_REPO
                                        && !checkouts.contains_key(repo)
                                    {
                                        checkouts = self.checkouts(&token).await?.0;
                                    }
                                    let moved = event.collection == "default_heads"
                                        && matches!(event.kind.as_str(), "default_head.updated" | "push");
                                    if moved
                                        && let (Some(repo), Some(head)) = (&event.repo, &event.head)
                                    {
                                        if repo == META_REPO {
                                            let _ = self.meta.send(Nudge::Moved {
                                                key: self.key.clone(),
                                                head: head.clone(),
                                            });
                                        } else if let Some(checkout) = checkouts.get(repo) {
                                            self.follow(repo, checkout, head, &mut waiting).await;
                                        }
                                    }
                                    self.update(|f| f.seq = Some(seq));
                                }
                                ServerFrame::Resync { seq: resync, .. } => {
                                    checkouts = self.checkouts(&token).await?.0;
                                    let at = self.heads(&token, &checkouts, &mut waiting).await?;
                                    seq = at.max(resync);
                                    self.nudge_connected(has_meta);
                                }
                                ServerFrame::CaughtUp { seq: at, .. } => {
                                    seq = seq.max(at);
                                    self.update(|f| {
                                        f.connection = Connection::Connected;
                                        f.error = None;
                                        f.seq = Some(seq);
                                    });
                                }
                                ServerFrame::HelloOk(ok) => {
                                    tracing::debug!(monorepo = %self.monorepo, "hello_ok: {ok:?}");
                                }
                                ServerFrame::Error { message } => {
                                    tracing::warn!(monorepo = %self.monorepo, "server: {message}");
                                }
                                ServerFrame::Feed { .. } | ServerFrame::FeedResync { .. } => {}
                            }
                        }
                        Message::Close(frame) => {
                            let code = frame.as_ref().map(|f| u16::from(f.code));
                            if matches!(code, Some(close::ACCESS_LOST | close::DELETED)) {
                                return Err(End::Stop(match code {
                                    Some(close::DELETED) => format!("{} was deleted", self.monorepo),
                                    _ => format!("access to {} was lost", self.monorepo),
                                }));
                            }
                            return Ok(End::Retry(format!("the server closed the socket ({code:?})")));
                        }
                        _ => {}
                    }
                }
                changed = self.worktrees.changed() => {
                    if changed.is_err() {
                        return Err(End::Stop("no longer cloned here".to_owned()));
                    }
                    worktrees = self.worktrees.borrow_and_update().clone();
                    socket.send(hello(&self.machine, &worktrees)?).await?;
                    self.update(|f| f.worktrees = worktrees.clone());
                }
                _ = heads_timer.tick() => {
                    checkouts = self.checkouts(&token).await?.0;
                    let at = self.heads(&token, &checkouts, &mut waiting).await?;
                    seq = seq.max(at);
                }
                _ = recheck_timer.tick(), if !waiting.is_empty() => {
                    for (repo, head) in waiting.clone() {
                        if let Some(checkout) = checkouts.get(&repo) {
                            self.follow(&repo, checkout, &head, &mut waiting).await;
                        }
                    }
                }
                _ = ping_timer.tick() => {
                    socket.send(Message::text("ping")).await?;
                }
            }
        }
    }

    fn nudge_connected(&self, has_meta: bool) {
        let _ = self.meta.send(Nudge::Connected {
            key: self.key.clone(),
            meta: has_meta,
        });
    }

    /// Each repo's main checkouts on this machine, by repo name, and whether the
    /// monorepo has a meta layer (a plain repo has none). A repo added since the clone
    /// was made (its folder absent) is laid out first, as `svc clone` would have.
    async fn checkouts(&self, token: &str) -> Result<(BTreeMap<String, Checkout>, bool), End> {
        let monorepo: svc_protocol::monorepo::Monorepo = self.get(token, "").await?;
        let repos: RepoList = self.get(token, "/repos").await?;
        let plain = monorepo.kind == MonorepoKind::Repo;
        let mut out = BTreeMap::new();
        for repo in &repos.items {
            let dirs: Vec<PathBuf> = self
                .paths
                .iter()
                .map(|root| {
                    if plain || repo.path == "." {
                        root.clone()
                    } else {
                        root.join(&repo.path)
                    }
                })
                .collect();
            if !plain && repo.path != "." {
                for (root, dir) in self.paths.iter().zip(&dirs) {
                    if root.exists() && !dir.exists() {
                        self.lay_out(repo, root, dir, &repos).await;
                    }
                }
            }
            out.insert(
                repo.name.clone(),
                Checkout {
                    dirs,
                    branch: repo.default_branch.clone(),
                },
            );
        }
        Ok((out, !plain))
    }

    /// Clones a repo added after the clone at `root` was made into its folder `dir`,
    /// kept out of the status of the repo enclosing it; a failure is logged and shown,
    /// and tried again at the next check of the repo list.
    async fn lay_out(&self, repo: &Repo, root: &Path, dir: &Path, all: &RepoList) {
        let path = dir.display().to_string();
        // Out of the enclosing repo's status before it appears there.
        if let Some(enclosing) = all
            .items
            .iter()
            .filter(|o| repo.path.starts_with(&format!("{}/", o.path)))
            .max_by_key(|o| o.path.len())
        {
            let rel = &repo.path[enclosing.path.len() + 1..];
            if let Err(e) = git::exclude(&root.join(&enclosing.path), rel).await {
                tracing::warn!(monorepo = %self.monorepo, "cannot keep {rel} out of {}: {e}", enclosing.path);
            }
        }
        if let Err(e) = git::clone(&repo.clone_url, dir, &self.server).await {
            tracing::warn!(monorepo = %self.monorepo, repo = %repo.name, "cannot lay out {path}: {e}");
            self.update(|f| {
                f.held.retain(|h| h.path != path);
                f.held.push(Held {
                    repo: repo.name.clone(),
                    path: path.clone(),
                    reason: format!("new repo not laid out: {e}"),
                });
            });
            return;
        }
        tracing::info!(monorepo = %self.monorepo, repo = %repo.name, "laid out the new repo at {path}");
        self.update(|f| {
            f.held.retain(|h| h.path != path);
            f.laid_out.push(LaidOut {
                repo: repo.name.clone(),
                path: path.clone(),
                at: time::OffsetDateTime::now_utc(),
            });
        });
    }

    /// Calls heads and brings every main checkout to it; answers its `seq`.
    async fn heads(
        &self,
        token: &str,
        checkouts: &BTreeMap<String, Checkout>,
        waiting: &mut Waiting,
    ) -> Result<i64, End> {
        let heads: Heads = self.get(token, "/heads").await?;
        for head in &heads.heads {
            if let (Some(sha), Some(checkout)) = (&head.head, checkouts.get(&head.repo)) {
                self.follow(&head.repo, checkout, sha, waiting).await;
            }
        }
        self.update(|f| f.seq = Some(f.seq.unwrap_or(heads.seq).max(heads.seq)));
        Ok(heads.seq)
    }

    /// Fast-forwards one repo's checkouts to `head`, recording what happened; a repo
    /// with a checkout left alone stays in `waiting` until all of them reach `head`.
    async fn follow(&self, repo: &str, checkout: &Checkout, head: &str, waiting: &mut Waiting) {
        // Said once per wait in the log, not at every recheck.
        let was_waiting = waiting.remove(repo).is_some();
        for dir in &checkout.dirs {
            if !dir.join(".git").exists() {
                continue;
            }
            let path = dir.display().to_string();
            let outcome = git::fast_forward(dir, &checkout.branch, head).await;
            self.update(|f| f.held.retain(|h| h.path != path));
            match outcome {
                Ok(Outcome::Current) => {}
                Ok(Outcome::Moved) => {
                    tracing::info!(monorepo = %self.monorepo, repo, head, "main moved: {path}");
                    self.update(|f| {
                        f.last_main_move = Some(MainMove {
                            repo: repo.to_owned(),
                            head: head.to_owned(),
                            at: time::OffsetDateTime::now_utc(),
                        });
                    });
                }
                Ok(Outcome::Held(reason)) => {
                    if !was_waiting {
                        tracing::warn!(monorepo = %self.monorepo, repo, "left {path} alone: {reason}");
                    }
                    waiting.insert(repo.to_owned(), head.to_owned());
                    self.update(|f| {
                        f.held.push(Held {
                            repo: repo.to_owned(),
                            path: path.clone(),
                            reason,
                        });
                    });
                }
                Err(e) => {
                    if !was_waiting {
                        tracing::warn!(monorepo = %self.monorepo, repo, "{e}");
                    }
                    waiting.insert(repo.to_owned(), head.to_owned());
                    self.update(|f| {
                        f.held.push(Held {
                            repo: repo.to_owned(),
                            path: path.clone(),
                            reason: e.to_string(),
                        });
                    });
                }
            }
        }
    }
}

fn hello(machine: &str, worktrees: &[String]) -> Result<Message, End> {
    let frame = ClientFrame::Hello(Hello {
        machine: Some(machine.to_owned()),
        worktrees: worktrees.to_vec(),
    });
    let text = serde_json::to_string(&frame).map_err(|e| End::Retry(e.to_string()))?;
    Ok(Message::text(text))
}

/// Up to `max` of randomness, so many daemons do not reconnect in step.
fn jitter(max: Duration) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    max.mul_f64(f64::from(nanos % 1000) / 1000.0)
}
