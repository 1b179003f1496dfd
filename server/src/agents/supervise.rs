//! The life of a session's runs in this process: each run gets a fresh `cloud-`
//! credential (revoked when the run ends, so a resting session holds none), its
//! checkout, and the runner; a supervisor stores what the runner says as it comes, keeps
//! the run's lease, and on its end writes the session's state, or runs again when a
//! follow-up came in meanwhile.
//!
//! The database decides, not memory, so several server processes agree: a run writes its
//! end only while it is the session's latest (`run_no`) and nothing was asked since
//! (`asked`); a stop from another process shows as a lease that will not renew. A process
//! that dies leaves a lapsed lease, and the sweep fails its sessions.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use svc_protocol::agent::{NewMessage, Part, Role, Session, SessionKind};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::checkout::{self, Identity, Place};
use super::run::{self, Ended, Running, Spec};
use super::scope::Scope;
use super::sessions::{self, credential_name};
use crate::error::ApiResult;
use crate::state::AppState;
use crate::store::agents::{self as rows, SessionRow};
use crate::store::{credentials, monorepos, now_ms, users};

/// How long a run's lease lasts, and how often it is renewed.
const LEASE_MS: i64 = 60_000;
const RENEW_EVERY: Duration = Duration::from_secs(15);
/// How often lapsed leases are looked for.
const SWEEP_EVERY: Duration = Duration::from_secs(30);
/// How long shutting down waits for supervisors to write their sessions' ends.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(10);
/// The most of the transcript a later run is told again, in bytes (the newest part).
const RETOLD_MAX: usize = 64 * 1024;

/// The reason a session running when its server stopped is failed with.
pub const SERVER_STOPPED: &str = "the server stopped while it ran; send a message to carry on";

/// This process's runs.
#[derive(Default)]
pub struct Agents {
    local: Mutex<HashMap<String, Local>>,
    shutdown: CancellationToken,
    tracker: TaskTracker,
}

#[derive(Clone)]
struct Local {
    run_no: i64,
    stop: CancellationToken,
    /// The index of the transcript's last message, as it grows.
    appended: watch::Receiver<i64>,
}

/// A run that has started.
struct Started {
    running: Running,
    messages: mpsc::Receiver<NewMessage>,
    credential_id: String,
}

impl Agents {
    /// The transcript's growth, while a run of session `id` goes in this process.
    pub fn follow(&self, id: &str) -> Option<watch::Receiver<i64>> {
        let local = self.local.lock().ok()?;
        local.get(id).map(|l| l.appended.clone())
    }

    /// Kills the run of session `id` going in this process, if any.
    pub fn stop_local(&self, id: &str) {
        if let Ok(local) = self.local.lock()
            && let Some(l) = local.get(id)
        {
            l.stop.cancel();
        }
    }

    /// Stops every run of this process and waits (a while) for their sessions to be
    /// written failed with [`SERVER_STOPPED`].
    pub async fn shut_down(&self) {
        self.shutdown.cancel();
        self.tracker.close();
        let _ = tokio::time::timeout(SHUTDOWN_WAIT, self.tracker.wait()).await;
    }

    fn register(&self, id: &str, local: Local) {
        if let Ok(mut map) = self.local.lock() {
            map.insert(id.to_owned(), local);
        }
    }

    fn unregister(&self, id: &str, run_no: i64) {
        if let Ok(mut map) = self.local.lock()
            && map.get(id).is_some_and(|l| l.run_no == run_no)
        {
            map.remove(id);
        }
    }
}

/// Starts run `run_no` of a session that is `launching`, having been told the transcript
/// up to message `asked`; answers the session as it then stands (`running`, or `failed`
/// with its reason and its credential revoked).
pub async fn start(
    state: &AppState,
    row: &SessionRow,
    run_no: i64,
    asked: i64,
) -> ApiResult<Session> {
    match begin(state, row, asked).await {
        Ok(started) => {
            let mut tx = state.store.begin().await?;
            let now = now_ms();
            if rows::set_state(tx.h(), &row.id, run_no, "running", None, None, now).await? {
                sessions::announce(tx.h(), &row.id).await?;
            }
            tx.commit().await?;
            let stop = state.agents.shutdown.child_token();
            let (appended_tx, appended) = watch::channel(asked);
            state.agents.register(
                &row.id,
                Local {
                    run_no,
                    stop: stop.clone(),
                    appended,
                },
            );
            let (state2, row2) = (state.clone(), row.clone());
            state.agents.tracker.spawn(async move {
                supervise(&state2, &row2, run_no, asked, started, stop, appended_tx).await;
                state2.agents.unregister(&row2.id, run_no);
            });
        }
        Err((reason, credential)) => {
            if let Some(id) = credential {
                revoke(state, &row.launcher_id, &id).await;
            }
            end(state, row, run_no, "failed", Some(&reason), None).await?;
        }
    }
    let mut conn = state.store.read().await?;
    Ok(sessions::load(conn.h(), &row.id).await?.1)
}

/// Mints the run's credential, makes its checkout and starts the runner; on failure,
/// why (and the credential to revoke).
async fn begin(
    state: &AppState,
    row: &SessionRow,
    asked: i64,
) -> Result<Started, (String, Option<String>)> {
    let settings = &state.config.agents;
    let failed = |e: &dyn std::fmt::Display| (format!("cannot start: {e}"), None);
    let model = settings.model(Some(&row.model)).ok_or_else(|| {
        (
            format!("the server no longer has the model {}", row.model),
            None,
        )
    })?;
    let runner = settings.runners.get(&model.runner).ok_or_else(|| {
        (
            format!("the server no longer has the runner {}", model.runner),
            None,
        )
    })?;
    let (monorepo, repo, user) = {
        let mut conn = state.store.read().await.map_err(|e| failed(&e))?;
        let monorepo = monorepos::by_id(conn.h(), &row.monorepo_id)
            .await
            .map_err(|e| failed(&e))?;
        let repo = match &row.repo_id {
            Some(id) => crate::store::repos::by_id(conn.h(), id)
                .await
                .map_err(|e| failed(&e))?,
            None => None,
        };
        let user = users::by_id(conn.h(), &row.launcher_id)
            .await
            .map_err(|e| failed(&e))?;
        (monorepo, repo, user)
    };
    let (Some(monorepo), Some(user)) = (monorepo, user) else {
        return Err(("its monorepo or its person is gone".into(), None));
    };
    let kind = sessions::kind(row);
    let scope = match (kind, &repo, &row.branch) {
        (SessionKind::Review, Some(repo), Some(branch)) => Scope::Review {
            monorepo_id: row.monorepo_id.clone(),
            repo_id: repo.id.clone(),
            branch: branch.clone(),
            agent: model.runner.clone(),
        },
        _ => Scope::Monorepo {
            monorepo_id: row.monorepo_id.clone(),
            agent: model.runner.clone(),
            chat: kind == SessionKind::Chat,
        },
    };
    let credential = {
        let mut tx = state.store.begin().await.map_err(|e| failed(&e))?;
        let made = crate::accounts::issue_scoped_credential(
            &mut tx,
            &row.launcher_id,
            &credential_name(&row.id),
            &scope.render(),
        )
        .await
        .map_err(|e| failed(&e))?;
        rows::set_credential(tx.h(), &row.id, &made.id)
            .await
            .map_err(|e| failed(&e))?;
        tx.commit().await.map_err(|e| failed(&e))?;
        made
    };
    let with_credential = |reason: String| (reason, Some(credential.id.clone()));
    let place = Place::of(&state.config.data_dir, &row.id);
    let mut env = checkout::git_env(&credential.token);
    // Signed as merges sign: what git can write of the name and email, else the login.
    let author = crate::git::merge::Person::author(&user);
    let who = Identity {
        name: &author.name,
        email: &author.email,
        session: &row.id,
        machine: &credential.name,
    };
    let clone_url = repo
        .as_ref()
        .map(|r| crate::views::clone_url(&state.config, &monorepo, r));
    let clone = match (kind, &clone_url, &row.branch) {
        (SessionKind::Chat, _, _) => None,
        (_, Some(url), Some(branch)) => Some((url.as_str(), branch.as_str())),
        _ => None,
    };
    let confined = checkout::Confined {
        sandbox: settings.sandbox,
        net: settings.net(&state.config.base_url, &[]),
        limit: Duration::from_secs(settings.max_run_seconds),
    };
    checkout::prepare(&place, clone, &who, &env, &runner.home_files, &confined)
        .await
        .map_err(|e| with_credential(format!("cannot start: {e}")))?;
    // The settings' variables first: the server's own (reserved) ones cannot be among them.
    env.extend(runner.env());
    env.extend([
        ("SVC_SERVER".to_owned(), state.config.base().to_owned()),
        ("SVC_TOKEN".to_owned(), credential.token.clone()),
        ("SVC_MONOREPO".to_owned(), monorepo.label()),
        (
            "SVC_REPO".to_owned(),
            repo.as_ref().map(|r| r.name.clone()).unwrap_or_default(),
        ),
        (
            "SVC_BRANCH".to_owned(),
            row.branch.clone().unwrap_or_default(),
        ),
        ("SVC_AGENT_SESSION".to_owned(), row.id.clone()),
        ("SVC_AGENT_KIND".to_owned(), kind.as_str().to_owned()),
        ("SVC_AGENT".to_owned(), model.runner.clone()),
    ]);
    let prompt = told(state, row, asked)
        .await
        .map_err(|e| with_credential(format!("cannot start: {}", e.message)))?;
    let mut command = runner.command.clone();
    command.extend(model.args.iter().cloned());
    let spec = Spec {
        sandbox: settings.sandbox,
        net: settings.net(&state.config.base_url, &runner.host_ports),
        command,
        format: runner.format,
        dir: place.work.clone(),
        home: place.home.clone(),
        env,
        masker: runner.masker(),
        ro_paths: runner.ro_paths.clone(),
        prompt,
        max_output_bytes: settings.max_output_bytes,
        max_run: Duration::from_secs(settings.max_run_seconds),
        tools: settings.svc_binary(),
    };
    let (tx, messages) = mpsc::channel(256);
    let running = run::start(spec, tx)
        .map_err(|e| with_credential(format!("cannot start the runner {}: {e}", model.runner)))?;
    Ok(Started {
        running,
        messages,
        credential_id: credential.id,
    })
}

/// What a run is told on its standard input: the prompt for the first, and for a later
/// one the transcript so far (its newest part), ending with what was asked since.
async fn told(state: &AppState, row: &SessionRow, asked: i64) -> ApiResult<String> {
    if asked == 0 {
        return Ok(row.prompt.clone());
    }
    let mut conn = state.store.read().await?;
    let all = rows::messages(conn.h(), &row.id, 0, i64::MAX).await?;
    let mut lines = Vec::new();
    for m in &all {
        let who = m.role.as_str();
        let parts: Vec<Part> = serde_json::from_str(&m.parts).unwrap_or_default();
        for part in parts {
            let line = match part {
                Part::Text { text } => format!("[{who}] {text}"),
                Part::Thinking { .. } => continue,
                Part::ToolCall { name, input, .. } => format!("[{who} calls {name}] {input}"),
                Part::ToolResult { output, .. } => {
                    let text = output.to_string();
                    let cut = text.char_indices().nth(500).map_or(text.len(), |(i, _)| i);
                    format!("[tool result] {}", &text[..cut])
                }
            };
            lines.push(line);
        }
    }
    let mut text = lines.join("\n");
    if text.len() > RETOLD_MAX {
        let mut cut = text.len() - RETOLD_MAX;
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        text = format!("[… earlier messages left out]\n{}", &text[cut..]);
    }
    Ok(format!(
        "This session so far, oldest first:\n\n{text}\n\nCarry on: answer the newest [user] message."
    ))
}

/// Stores what the runner says until the run ends, then writes the session's end or
/// starts the next run.
async fn supervise(
    state: &AppState,
    row: &SessionRow,
    run_no: i64,
    mut asked: i64,
    mut started: Started,
    stop: CancellationToken,
    appended: watch::Sender<i64>,
) {
    loop {
        let full = pump(state, row, run_no, &mut started, &stop, &appended).await;
        let (ended, outcome) = started.running.wait().await;
        revoke(state, &row.launcher_id, &started.credential_id).await;
        let (state_name, reason) = if state.agents.shutdown.is_cancelled() {
            ("failed", Some(SERVER_STOPPED.to_owned()))
        } else if let Some(full) = full {
            ("failed", Some(full))
        } else if ended.is_success() {
            ("idle", None)
        } else if ended == Ended::Stopped {
            // Stopped on request: the stop wrote the session's state already.
            return;
        } else {
            ("failed", ended.reason(outcome.as_ref()))
        };
        let only_if = (!state.agents.shutdown.is_cancelled()).then_some(asked);
        match end(state, row, run_no, state_name, reason.as_deref(), only_if).await {
            Ok(true) => return,
            Ok(false) => {}
            Err(e) => {
                tracing::error!(session = %row.id, error = %e.message, "cannot write an agent session's end");
                return;
            }
        }
        // Not written: a follow-up came in (run again), or the session moved on.
        let latest = match state.store.read().await {
            Ok(mut conn) => rows::by_id(conn.h(), &row.id).await.ok().flatten(),
            Err(_) => None,
        };
        let Some(latest) = latest
            .filter(|l| l.run_no == run_no && l.asked > asked && crate::agents::is_live(&l.state))
        else {
            return;
        };
        asked = latest.asked;
        started = match begin(state, row, asked).await {
            Ok(next) => next,
            Err((reason, credential)) => {
                if let Some(id) = credential {
                    revoke(state, &row.launcher_id, &id).await;
                }
                let _ = end(state, row, run_no, "failed", Some(&reason), None).await;
                return;
            }
        };
    }
}

/// Stores the run's messages as they come, keeping its lease, until its output ends;
/// answers why it was stopped when the transcript filled up.
async fn pump(
    state: &AppState,
    row: &SessionRow,
    run_no: i64,
    started: &mut Started,
    stop: &CancellationToken,
    appended: &watch::Sender<i64>,
) -> Option<String> {
    let max = state.config.agents.max_messages as i64;
    let mut full = None;
    let mut renew = tokio::time::interval(RENEW_EVERY);
    renew.tick().await;
    let mut stopping = false;
    loop {
        tokio::select! {
            message = started.messages.recv() => {
                let Some(message) = message else { return full };
                if full.is_some() {
                    continue;
                }
                match store_message(state, &row.id, &message).await {
                    Ok(index) => {
                        appended.send_replace(index);
                        crate::crash::point("agent.message");
                        if index + 1 >= max {
                            full = Some(format!("the transcript reached its limit of {max} messages"));
                            started.running.stop();
                        }
                    }
                    Err(e) => tracing::error!(session = %row.id, error = %e.message, "cannot store a transcript message"),
                }
            }
            () = stop.cancelled(), if !stopping => {
                stopping = true;
                started.running.stop();
            }
            _ = renew.tick() => {
                let until = now_ms() + LEASE_MS;
                let renewed = async {
                    let mut tx = state.store.begin().await?;
                    let renewed = rows::renew(tx.h(), &row.id, run_no, until).await?;
                    tx.commit().await?;
                    Ok::<_, crate::store::Error>(renewed)
                };
                if let Ok(false) = renewed.await {
                    // Stopped (or taken over) elsewhere.
                    started.running.stop();
                }
            }
        }
    }
}

/// Appends one message to the transcript; answers its index.
pub async fn store_message(state: &AppState, id: &str, message: &NewMessage) -> ApiResult<i64> {
    let parts = serde_json::to_string(&message.parts).map_err(crate::error::ApiError::internal)?;
    let mut tx = state.store.begin().await?;
    let index = rows::add_message(
        tx.h(),
        id,
        sessions::role_str(message.role),
        now_ms(),
        &parts,
    )
    .await?;
    tx.commit().await?;
    Ok(index)
}

/// A message from the person to the session.
pub fn said(text: &str) -> NewMessage {
    NewMessage {
        role: Role::User,
        parts: vec![Part::Text {
            text: text.to_owned(),
        }],
    }
}

/// Writes run `run_no`'s end with its event, unless the run is no longer the session's
/// live one or (with `asked`) a message came in since; true when written.
async fn end(
    state: &AppState,
    row: &SessionRow,
    run_no: i64,
    to: &str,
    reason: Option<&str>,
    asked: Option<i64>,
) -> ApiResult<bool> {
    let mut tx = state.store.begin().await?;
    let written = rows::set_state(tx.h(), &row.id, run_no, to, reason, asked, now_ms()).await?;
    if written {
        sessions::announce(tx.h(), &row.id).await?;
    }
    tx.commit().await?;
    Ok(written)
}

/// Revokes a run's credential (its sockets close too).
pub async fn revoke(state: &AppState, user_id: &str, credential_id: &str) {
    let revoked = async {
        let mut tx = state.store.begin().await?;
        credentials::delete(tx.h(), user_id, credential_id).await?;
        tx.commit().await
    };
    if let Err(e) = revoked.await {
        tracing::error!(credential = %credential_id, error = %e, "cannot revoke an agent run's credential");
    }
    state.credentials.evict(credential_id);
    state.credentials.sockets.shut_and_wait(credential_id).await;
}

/// Fails the sessions whose runs no process vouches for any more: at start-up on SQLite
/// every going one (only this process runs sessions there), else those whose lease
/// lapsed; then again every half minute.
pub async fn sweep(state: AppState) {
    let mut first = state.store.postgres().is_none();
    loop {
        let now = now_ms();
        let cutoff = (!first).then_some(now);
        let reason = if first {
            SERVER_STOPPED
        } else {
            "the server running it stopped answering; send a message to carry on"
        };
        first = false;
        let lapsed = match state.store.read().await {
            Ok(mut conn) => rows::lapsed(conn.h(), cutoff).await.unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        for row in lapsed {
            if let Some(id) = &row.credential_id {
                revoke(&state, &row.launcher_id, id).await;
            }
            let _ = end(&state, &row, row.run_no, "failed", Some(reason), None).await;
        }
        tokio::select! {
            () = tokio::time::sleep(SWEEP_EVERY) => {}
            () = state.agents.shutdown.cancelled() => return,
        }
    }
}
