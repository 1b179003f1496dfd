//! Presence: a socket's `hello` marks its machine connected with its branch worktrees;
//! closing the socket ends it. Machines keep their worktrees and last action after
//! they disconnect; reported worktrees (`PUT {m}/worktrees/{id}`) join their machine.
//!
//! Several server processes may share one PostgreSQL: each holds its sockets'
//! connection rows under its own process id and beats a heartbeat; any live process
//! sweeps the connections of a process silent for a minute, and a SQLite server (the
//! only process) sweeps every leftover connection at start-up.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::json;
use svc_protocol::presence::{
    Connection, HELLO_WORKTREES_MAX, Hello, HelloOk, MACHINE_MAX, Machine, WORKTREE_ID_MAX,
    Worktree, valid_worktree_id,
};

use crate::state::AppState;
use crate::store::presence::{self as rows, ConnectionRow, MachineRow, WorktreeRow};
use crate::store::{self, H, Store, events, now_ms, time_of};

/// Activity alone sends `machine.updated` at most this often per machine.
const ACTIVITY_EVENT_EVERY_MS: i64 = 60_000;
/// How often a process beats its heartbeat and sweeps.
const HEARTBEAT_EVERY: Duration = Duration::from_secs(10);
/// A process silent this long is gone: its connections are swept.
const PROCESS_SILENT_MS: i64 = 60_000;
/// Process rows silent this long are forgotten.
const PROCESS_FORGET_MS: i64 = 24 * 60 * 60 * 1000;
/// Connections one sweep query takes at a time.
const SWEEP_BATCH: i64 = 500;

/// This server process's part in presence.
#[derive(Debug)]
pub struct Presence {
    /// Owns this process's connection rows; unique per process start.
    pub process_id: String,
}

impl Default for Presence {
    fn default() -> Self {
        Presence {
            process_id: crate::token::new_id("p_"),
        }
    }
}

/// One event socket of one credential on one monorepo.
#[derive(Debug, Clone)]
pub struct Session {
    /// Unique per socket (across processes).
    pub socket_id: String,
    pub monorepo_id: String,
    pub user_id: String,
    pub login: String,
    pub credential_id: String,
    pub credential_name: String,
}

/// Why a hello was not taken; the message goes back in an `error` frame.
#[derive(Debug, thiserror::Error)]
pub enum HelloError {
    #[error("{0}")]
    Invalid(String),
    #[error("cannot record presence: {0}")]
    Internal(String),
}

impl From<store::Error> for HelloError {
    fn from(e: store::Error) -> Self {
        HelloError::Internal(e.to_string())
    }
}

/// A machine name: 1 to 64 printable characters (trimmed).
pub fn check_machine(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MACHINE_MAX || name.chars().any(char::is_control) {
        return Err(format!(
            "machine must be 1 to {MACHINE_MAX} printable characters"
        ));
    }
    Ok(name.to_owned())
}

/// A worktree id, or the message saying why it is not one.
pub fn check_worktree_id(id: &str) -> Result<(), String> {
    if valid_worktree_id(id) {
        return Ok(());
    }
    let shown: String = id.chars().take(WORKTREE_ID_MAX + 1).collect();
    Err(format!(
        "worktree id {shown:?} must be 1 to {WORKTREE_ID_MAX} characters of A-Z a-z 0-9 _ -"
    ))
}

/// A hello's worktree ids, checked, sorted and without duplicates.
fn check_worktrees(ids: &[String]) -> Result<Vec<String>, String> {
    if ids.len() > HELLO_WORKTREES_MAX {
        return Err(format!(
            "a hello names at most {HELLO_WORKTREES_MAX} worktrees (this one names {})",
            ids.len()
        ));
    }
    for id in ids {
        check_worktree_id(id)?;
    }
    let ids: BTreeSet<&String> = ids.iter().collect();
    Ok(ids.into_iter().cloned().collect())
}

/// Takes a hello: replaces the socket's last one and answers its presence.
pub async fn hello(state: &AppState, s: &Session, hello: Hello) -> Result<HelloOk, HelloError> {
    let machine = match &hello.machine {
        Some(m) => check_machine(m),
        // Credential names may be longer than machine names.
        None => check_machine(
            &s.credential_name
                .chars()
                .take(MACHINE_MAX)
                .collect::<String>(),
        )
        .map_err(|_| "this credential's name is no machine name: send `machine`".to_owned()),
    }
    .map_err(HelloError::Invalid)?;
    let worktrees = check_worktrees(&hello.worktrees).map_err(HelloError::Invalid)?;
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    if !rows::lock_monorepo(tx.h(), &s.monorepo_id).await? {
        return Err(HelloError::Internal("the monorepo is gone".into()));
    }
    let prev = rows::connection(tx.h(), &s.socket_id).await?;
    let was_connected = rows::is_connected(tx.h(), &s.monorepo_id, &s.user_id, &machine).await?;
    let row = ConnectionRow {
        socket_id: s.socket_id.clone(),
        monorepo_id: s.monorepo_id.clone(),
        user_id: s.user_id.clone(),
        login: s.login.clone(),
        credential_id: s.credential_id.clone(),
        credential_name: s.credential_name.clone(),
        machine: machine.clone(),
        worktrees: json!(worktrees).to_string(),
        process_id: state.presence.process_id.clone(),
        connected_at: prev.as_ref().map_or(now, |p| p.connected_at),
    };
    rows::put_connection(tx.h(), &row).await?;
    match &prev {
        None => presence_event(tx.h(), "machine.connected", &row, now).await?,
        // A hello naming another machine moves the socket: that one may be left.
        Some(p) if p.machine != machine => {
            presence_event(tx.h(), "machine.disconnected", p, now).await?;
            presence_event(tx.h(), "machine.connected", &row, now).await?;
            if !rows::is_connected(tx.h(), &s.monorepo_id, &s.user_id, &p.machine).await? {
                let touch = Touch::new(p, &p.machine, now).at_once();
                touch.write(tx.h()).await?;
            }
        }
        Some(_) => {}
    }
    let mut touch = Touch::new(&row, &machine, now)
        .edit(Edit::Replace(&worktrees))
        .action("hello");
    touch.at_once = !was_connected;
    touch.write(tx.h()).await?;
    let (machines_active, worktrees_active) = active(tx.h(), &s.monorepo_id).await?;
    tx.commit().await?;
    Ok(HelloOk {
        machine,
        worktrees,
        machines_active,
        worktrees_active,
    })
}

/// The socket closed: its presence ends.
pub async fn closed(state: &AppState, s: &Session) {
    if let Err(e) = end(&state.store, &s.socket_id).await {
        tracing::warn!(socket = %s.socket_id, error = %e, "cannot end a socket's presence");
    }
}

/// Removes one connection with its events; nothing when it is already gone.
async fn end(store: &Store, socket_id: &str) -> store::Result<()> {
    let mut tx = store.begin().await?;
    let Some(found) = rows::connection(tx.h(), socket_id).await? else {
        return Ok(());
    };
    rows::lock_monorepo(tx.h(), &found.monorepo_id).await?;
    let Some(gone) = rows::delete_connection(tx.h(), socket_id).await? else {
        return Ok(());
    };
    let now = now_ms();
    presence_event(tx.h(), "machine.disconnected", &gone, now).await?;
    if !rows::is_connected(tx.h(), &gone.monorepo_id, &gone.user_id, &gone.machine).await? {
        Touch::new(&gone, &gone.machine, now)
            .at_once()
            .write(tx.h())
            .await?;
    }
    tx.commit().await
}

/// Distinct (person, machine) pairs and distinct worktree ids over the monorepo's
/// connections.
async fn active(h: H<'_>, monorepo_id: &str) -> store::Result<(i64, i64)> {
    let all = rows::connections(h, monorepo_id).await?;
    let machines: BTreeSet<(&str, &str)> = all
        .iter()
        .map(|c| (c.user_id.as_str(), c.machine.as_str()))
        .collect();
    let worktrees: BTreeSet<String> = all.iter().flat_map(|c| ids_of(&c.worktrees)).collect();
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    Ok((count(machines.len()), count(worktrees.len())))
}

fn ids_of(list: &str) -> BTreeSet<String> {
    serde_json::from_str(list).unwrap_or_default()
}

fn connection_view(c: &ConnectionRow) -> Connection {
    Connection {
        id: c.socket_id.clone(),
        login: c.login.clone(),
        machine: c.machine.clone(),
        credential: c.credential_name.clone(),
        connected_at: time_of(c.connected_at),
    }
}

/// The machines route's row.
pub fn machine_view(m: &MachineRow) -> Machine {
    Machine {
        login: m.login.clone(),
        machine: m.machine.clone(),
        worktrees: ids_of(&m.worktrees).into_iter().collect(),
        connected: m.connected,
        last_action_kind: m.last_action_kind.clone(),
        last_action_at: time_of(m.last_action_at),
    }
}

/// The worktrees route's row.
pub fn worktree_view(w: &WorktreeRow) -> Worktree {
    Worktree {
        id: w.id.clone(),
        login: w.login.clone(),
        machine: w.machine.clone(),
        repo: w.repo.clone(),
        branch: w.branch.clone(),
        path: w.path.clone(),
        reported_at: time_of(w.reported_at),
        updated_at: time_of(w.updated_at),
    }
}

/// `machine.connected` / `machine.disconnected`: the whole list and the one that changed.
async fn presence_event(
    mut h: H<'_>,
    kind: &str,
    changed: &ConnectionRow,
    at: i64,
) -> store::Result<()> {
    let all = rows::connections(h.reborrow(), &changed.monorepo_id).await?;
    let connections: Vec<Connection> = all.iter().map(connection_view).collect();
    let body = json!({
        "row": {"connections": connections, "connection": connection_view(changed)},
        "actor": changed.login,
    });
    let event = events::NewEvent {
        monorepo_id: &changed.monorepo_id,
        kind,
        repo: None,
        also_repos: None,
        collection: "presence",
        key: "connections",
        op: "upsert",
        body: body.to_string(),
        at,
    };
    events::append(h, &event).await?;
    Ok(())
}

/// How a change edits a machine's worktree list.
enum Edit<'a> {
    Keep,
    Replace(&'a [String]),
    Add(&'a str),
    Remove(&'a str),
}

/// One change to a machine's row, with its `machine.updated` when it is due.
struct Touch<'a> {
    monorepo_id: &'a str,
    user_id: &'a str,
    /// Login of who caused it (the event's `actor`).
    actor: &'a str,
    machine: &'a str,
    edit: Edit<'a>,
    /// The machine's new last action; none leaves it (and makes no new machine).
    action: Option<&'a str>,
    /// Send `machine.updated` now (connect, disconnect) rather than throttled.
    at_once: bool,
    /// Only touch a machine already known.
    existing_only: bool,
    at: i64,
}

impl<'a> Touch<'a> {
    fn new(c: &'a ConnectionRow, machine: &'a str, at: i64) -> Self {
        Touch {
            monorepo_id: &c.monorepo_id,
            user_id: &c.user_id,
            actor: &c.login,
            machine,
            edit: Edit::Keep,
            action: None,
            at_once: false,
            existing_only: false,
            at,
        }
    }

    fn edit(mut self, edit: Edit<'a>) -> Self {
        self.edit = edit;
        self
    }

    fn action(mut self, kind: &'a str) -> Self {
        self.action = Some(kind);
        self
    }

    fn at_once(mut self) -> Self {
        self.at_once = true;
        self
    }

    /// Writes the machine's row; `machine.updated` goes out at once for a new machine,
    /// a (dis)connect or a worktree change, and for activity alone once a minute.
    async fn write(self, mut h: H<'_>) -> store::Result<()> {
        let existing =
            rows::machine(h.reborrow(), self.monorepo_id, self.user_id, self.machine).await?;
        if existing.is_none() && self.existing_only {
            return Ok(());
        }
        let last = match (self.action, &existing) {
            (Some(kind), _) => (kind.to_owned(), self.at),
            (None, Some(m)) => (m.last_action_kind.clone(), m.last_action_at),
            (None, None) => return Ok(()),
        };
        let old = existing
            .as_ref()
            .map(|m| ids_of(&m.worktrees))
            .unwrap_or_default();
        let mut new = old.clone();
        match self.edit {
            Edit::Keep => {}
            Edit::Replace(ids) => new = ids.iter().cloned().collect(),
            Edit::Add(id) => {
                new.insert(id.to_owned());
            }
            Edit::Remove(id) => {
                new.remove(id);
            }
        }
        let due = match &existing {
            None => true,
            Some(m) => {
                self.at_once || new != old || self.at - m.event_at >= ACTIVITY_EVENT_EVERY_MS
            }
        };
        let event_at = match &existing {
            Some(m) if !due => m.event_at,
            _ => self.at,
        };
        let list = json!(new).to_string();
        let put = rows::PutMachine {
            monorepo_id: self.monorepo_id,
            user_id: self.user_id,
            machine: self.machine,
            worktrees: &list,
            last_action_kind: &last.0,
            last_action_at: last.1,
            event_at,
        };
        rows::put_machine(h.reborrow(), &put).await?;
        if !due {
            return Ok(());
        }
        let Some(m) =
            rows::machine(h.reborrow(), self.monorepo_id, self.user_id, self.machine).await?
        else {
            return Ok(());
        };
        let key = format!("{}/{}", self.user_id, self.machine);
        let body = json!({"row": machine_view(&m), "actor": self.actor});
        let event = events::NewEvent {
            monorepo_id: self.monorepo_id,
            kind: "machine.updated",
            repo: None,
            also_repos: None,
            collection: "machines",
            key: &key,
            op: "upsert",
            body: body.to_string(),
            at: self.at,
        };
        events::append(h, &event).await?;
        Ok(())
    }
}

/// A worktree report (`PUT {m}/worktrees/{id}`), checked by the route.
pub struct Report<'a> {
    pub monorepo_id: &'a str,
    pub id: &'a str,
    pub user_id: &'a str,
    pub login: &'a str,
    pub agent: Option<&'a str>,
    pub machine: &'a str,
    pub repo_id: &'a str,
    pub branch: &'a str,
    pub path: Option<&'a str>,
}

/// Records a worktree with `worktree.reported` and joins it to its machine; answers the
/// stored row and whether the id is new.
pub async fn report(mut h: H<'_>, r: &Report<'_>) -> store::Result<(WorktreeRow, bool)> {
    let now = now_ms();
    rows::lock_monorepo(h.reborrow(), r.monorepo_id).await?;
    let prev = rows::worktree(h.reborrow(), r.monorepo_id, r.id).await?;
    let put = rows::PutWorktree {
        monorepo_id: r.monorepo_id,
        id: r.id,
        user_id: r.user_id,
        machine: r.machine,
        repo_id: r.repo_id,
        branch: r.branch,
        path: r.path,
        at: now,
    };
    rows::put_worktree(h.reborrow(), &put).await?;
    let row = rows::worktree(h.reborrow(), r.monorepo_id, r.id)
        .await?
        .ok_or_else(|| store::Error::Setup("a written worktree cannot be read back".into()))?;
    let new = prev.is_none();
    let body = json!({"row": worktree_view(&row), "actor": r.login, "agent": r.agent, "new": new});
    let event = events::NewEvent {
        monorepo_id: r.monorepo_id,
        kind: "worktree.reported",
        repo: Some(&row.repo),
        also_repos: None,
        collection: "worktrees",
        key: r.id,
        op: "upsert",
        body: body.to_string(),
        at: now,
    };
    events::append(h.reborrow(), &event).await?;
    // Reported again from another machine: it leaves the old one.
    if let Some(p) = &prev
        && (p.user_id != r.user_id || p.machine != r.machine)
    {
        let touch = Touch {
            monorepo_id: r.monorepo_id,
            user_id: &p.user_id,
            actor: r.login,
            machine: &p.machine,
            edit: Edit::Remove(r.id),
            action: None,
            at_once: false,
            existing_only: true,
            at: now,
        };
        touch.write(h.reborrow()).await?;
    }
    let touch = Touch {
        monorepo_id: r.monorepo_id,
        user_id: r.user_id,
        actor: r.login,
        machine: r.machine,
        edit: Edit::Add(r.id),
        action: Some("worktree.reported"),
        at_once: false,
        existing_only: false,
        at: now,
    };
    touch.write(h).await?;
    Ok((row, new))
}

/// Removes a worktree with `worktree.removed`; false when there was none.
pub async fn remove(
    mut h: H<'_>,
    monorepo_id: &str,
    id: &str,
    login: &str,
    agent: Option<&str>,
) -> store::Result<bool> {
    rows::lock_monorepo(h.reborrow(), monorepo_id).await?;
    let Some(prev) = rows::worktree(h.reborrow(), monorepo_id, id).await? else {
        return Ok(false);
    };
    rows::delete_worktree(h.reborrow(), monorepo_id, id).await?;
    let now = now_ms();
    let body = json!({"row": {"id": id}, "actor": login, "agent": agent});
    let event = events::NewEvent {
        monorepo_id,
        kind: "worktree.removed",
        repo: Some(&prev.repo),
        also_repos: None,
        collection: "worktrees",
        key: id,
        op: "delete",
        body: body.to_string(),
        at: now,
    };
    events::append(h.reborrow(), &event).await?;
    let touch = Touch {
        monorepo_id,
        user_id: &prev.user_id,
        actor: login,
        machine: &prev.machine,
        edit: Edit::Remove(id),
        action: Some("worktree.removed"),
        at_once: false,
        existing_only: true,
        at: now,
    };
    touch.write(h).await?;
    Ok(true)
}

/// A push through the git door: when the credential is named as one of the person's
/// machines in the monorepo, it is that machine's last action. Other pushes cost one read.
pub async fn pushed(store: &Store, monorepo_id: &str, user_id: &str, login: &str, machine: &str) {
    let run = async {
        {
            let mut conn = store.read().await?;
            if rows::machine(conn.h(), monorepo_id, user_id, machine)
                .await?
                .is_none()
            {
                return Ok(());
            }
        }
        let mut tx = store.begin().await?;
        let touch = Touch {
            monorepo_id,
            user_id,
            actor: login,
            machine,
            edit: Edit::Keep,
            action: Some("push"),
            at_once: false,
            existing_only: true,
            at: now_ms(),
        };
        touch.write(tx.h()).await?;
        tx.commit().await
    };
    if let Err(e) = run.await {
        tracing::warn!(monorepo = %monorepo_id, error = %e, "cannot record a machine's push");
    }
}

/// Runs for the life of the server: beats this process's heartbeat and sweeps the
/// connections of processes that are gone (on SQLite, at start, every leftover one).
pub async fn keep(state: AppState) {
    let store = &state.store;
    let me = state.presence.process_id.as_str();
    let mut all = store.postgres().is_none();
    let mut tick = tokio::time::interval(HEARTBEAT_EVERY);
    loop {
        tick.tick().await;
        let now = now_ms();
        let beat = async {
            let mut tx = store.begin().await?;
            rows::heartbeat(tx.h(), me, now, now - PROCESS_FORGET_MS).await?;
            tx.commit().await
        };
        if let Err(e) = beat.await {
            tracing::warn!(error = %e, "cannot beat the presence heartbeat");
        }
        if let Err(e) = sweep(store, me, now - PROCESS_SILENT_MS, all).await {
            tracing::warn!(error = %e, "cannot sweep the connections of gone processes");
        }
        all = false;
    }
}

/// Ends the connections of gone processes (`all`: of every other process).
async fn sweep(store: &Store, me: &str, before: i64, all: bool) -> store::Result<()> {
    loop {
        let ids = {
            let mut conn = store.read().await?;
            rows::orphans(conn.h(), me, before, all, SWEEP_BATCH).await?
        };
        for id in &ids {
            end(store, id).await?;
        }
        if i64::try_from(ids.len()).unwrap_or(i64::MAX) < SWEEP_BATCH {
            return Ok(());
        }
    }
}
