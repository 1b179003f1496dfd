//! Keeping every clone's `.svc/` live: a local change syncs after a quiet period, a move
//! of the meta repo's main (a save from another machine, a merge) and every (re)connect
//! sync at once. One sync at a time per clone (two in all); requests during a sync make
//! one more run.
//!
//! The sync itself is the CLI's (`MetaSync`), run on a blocking thread. The files it
//! writes (downloads, deletions, conflict copies) are stamped when it ends, so the
//! watch events they cause do not start another sync; a later edit of the same file
//! changes its stamp and does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use svc_protocol::daemon::{LastSync, MetaChanges, SyncOutcome};
use tokio::task::JoinSet;
use tokio::time::{Duration, Instant};

use crate::watch::Watch;
use crate::{MetaClone, MetaSync, Shared};

/// How long `.svc/` must be quiet after a local change before it is synced.
const QUIET: Duration = Duration::from_secs(2);
/// A folder written to without pause is still synced this often.
const QUIET_MAX: Duration = Duration::from_secs(30);
/// A failed sync is tried again after this, doubled for each failure in a row up to
/// `RETRY_MAX` (a reconnect or a change tries sooner).
const RETRY: Duration = Duration::from_secs(5);
const RETRY_MAX: Duration = Duration::from_secs(300);
/// Syncs running at once (each on its own blocking thread): few, so the daemon stays
/// small; a long upload still lets another clone sync.
const SYNCS_AT_ONCE: usize = 2;
/// Files the sync keeps for itself (its state, its downloads in progress).
const PRIVATE_PREFIX: &str = ".sync-";

/// What a follower tells about its monorepo's meta layer.
#[derive(Debug)]
pub enum Nudge {
    /// The follower (re)connected or resynced; sync now when `meta` (the monorepo has a
    /// meta layer: not a plain repo).
    Connected { key: String, meta: bool },
    /// The meta repo's main moved to `head`.
    Moved { key: String, head: String },
}

/// A file's size and modification time, or `None` when it is gone.
type Stamp = Option<(u64, SystemTime)>;

/// One clone's sync state.
struct Layer {
    /// The follower's key (`<server> <monorepo_id>`).
    key: String,
    clone: MetaClone,
    svc: PathBuf,
    /// Known to have a meta layer: watched and synced.
    on: bool,
    watched: bool,
    running: bool,
    /// Waiting for a free sync slot.
    queued: bool,
    /// Asked for while running: run once more.
    again: bool,
    /// The meta repo's main moved while running: run once more unless the sync ended
    /// there (the move was its own save, or it saw it).
    moved: Option<String>,
    /// Failed syncs in a row.
    failures: u32,
    /// When the pending local change is synced, and when it was first seen.
    due: Option<(Instant, Instant)>,
    /// The version the last sync left in `.svc/`.
    version: Option<String>,
    /// What the syncs wrote (relative to `.svc/`), stamped as they left them.
    own: BTreeMap<String, Stamp>,
    /// Changes seen while a sync ran, judged when it ends.
    held: Vec<PathBuf>,
}

/// The result of one sync, with the stamps of what it wrote.
struct Ran {
    path: PathBuf,
    result: Result<MetaChanges, String>,
    own: BTreeMap<String, Stamp>,
}

pub struct Meta {
    sync: MetaSync,
    shared: Shared,
    watch: Watch,
    layers: BTreeMap<PathBuf, Layer>,
    runs: JoinSet<Ran>,
}

impl Meta {
    pub fn new(sync: MetaSync, shared: Shared, watch: Watch) -> Meta {
        Meta {
            sync,
            shared,
            watch,
            layers: BTreeMap::new(),
            runs: JoinSet::new(),
        }
    }

    /// The clones the registry lists, by follower key; others are forgotten.
    pub fn set_clones(&mut self, clones: Vec<(String, MetaClone)>) {
        let keep: BTreeMap<PathBuf, (String, MetaClone)> = clones
            .into_iter()
            .map(|(key, c)| (c.path.clone(), (key, c)))
            .collect();
        let gone: Vec<PathBuf> = self
            .layers
            .iter()
            .filter(|(path, l)| keep.get(*path).is_none_or(|(key, _)| *key != l.key))
            .map(|(path, _)| path.clone())
            .collect();
        for path in gone {
            if let Some(layer) = self.layers.remove(&path)
                && layer.watched
            {
                self.watch.remove(&layer.svc);
            }
        }
        for (path, (key, clone)) in keep {
            self.layers.entry(path).or_insert_with(|| Layer {
                key,
                svc: clone.path.join(".svc"),
                clone,
                on: false,
                watched: false,
                running: false,
                queued: false,
                again: false,
                moved: None,
                failures: 0,
                due: None,
                version: None,
                own: BTreeMap::new(),
                held: Vec::new(),
            });
        }
    }

    pub fn nudge(&mut self, nudge: Nudge) {
        match nudge {
            Nudge::Connected { key, meta } => {
                for path in self.paths_of(&key) {
                    let Some(layer) = self.layers.get_mut(&path) else {
                        continue;
                    };
                    layer.on = meta;
                    if !meta {
                        if layer.watched {
                            self.watch.remove(&layer.svc);
                            layer.watched = false;
                        }
                        continue;
                    }
                    self.ensure_watched(&path);
                    self.request(&path);
                }
            }
            Nudge::Moved { key, head } => {
                for path in self.paths_of(&key) {
                    let Some(layer) = self.layers.get_mut(&path) else {
                        continue;
                    };
                    if !layer.on || layer.version.as_deref() == Some(head.as_str()) {
                        continue;
                    }
                    if layer.running {
                        layer.moved = Some(head.clone());
                    } else {
                        self.request(&path);
                    }
                }
            }
        }
    }

    /// A change under a watched `.svc/` (or anywhere: other paths are not ours).
    pub fn changed(&mut self, path: &Path) {
        let Some((root, layer)) = self
            .layers
            .iter_mut()
            .find(|(_, l)| l.on && path.starts_with(&l.svc))
        else {
            return;
        };
        if path == layer.svc && !path.is_dir() {
            // `.svc/` itself went: its watch went with it.
            layer.watched = false;
        }
        if layer.running {
            layer.held.push(path.to_path_buf());
            return;
        }
        if !layer.ours(path) {
            let root = root.clone();
            self.later(&root);
        }
    }

    /// Events were lost: sync every clone after the quiet period, and watch again.
    pub fn rescan(&mut self) {
        let on: Vec<PathBuf> = self
            .layers
            .iter()
            .filter(|(_, l)| l.on)
            .map(|(p, _)| p.clone())
            .collect();
        for path in on {
            self.ensure_watched(&path);
            self.later(&path);
        }
    }

    /// Retries the watches that could not be set up (or were lost).
    pub fn rewatch(&mut self) {
        let lost: Vec<PathBuf> = self
            .layers
            .iter()
            .filter(|(_, l)| l.on && !l.watched)
            .map(|(p, _)| p.clone())
            .collect();
        for path in lost {
            if self.ensure_watched(&path) {
                self.later(&path);
            }
        }
    }

    /// When the next quiet period ends.
    pub fn due(&self) -> Option<Instant> {
        self.layers
            .values()
            .filter_map(|l| l.due.map(|d| d.0))
            .min()
    }

    /// Starts the syncs whose quiet period is over.
    pub fn run_due(&mut self) {
        let now = Instant::now();
        let ready: Vec<PathBuf> = self
            .layers
            .iter()
            .filter(|(_, l)| l.due.is_some_and(|d| d.0 <= now))
            .map(|(p, _)| p.clone())
            .collect();
        for path in ready {
            if let Some(layer) = self.layers.get_mut(&path) {
                layer.due = None;
            }
            self.request(&path);
        }
    }

    pub fn busy(&self) -> bool {
        !self.runs.is_empty()
    }

    /// Waits for a running sync to end, records it and starts a waiting one.
    pub async fn finished(&mut self) {
        match self.runs.join_next().await {
            Some(Ok(ran)) => self.record(ran),
            // Never: a panicking sync is caught, and no run is aborted.
            Some(Err(e)) => tracing::error!("a meta sync task failed: {e}"),
            None => {}
        }
        let waiting = self
            .layers
            .iter()
            .find(|(_, l)| l.queued && !l.running && l.due.is_none())
            .map(|(p, _)| p.clone());
        if let Some(path) = waiting {
            self.request(&path);
        }
    }

    fn record(&mut self, ran: Ran) {
        let Some(layer) = self.layers.get_mut(&ran.path) else {
            return;
        };
        layer.running = false;
        let monorepo = layer.clone.monorepo.clone();
        let path = ran.path.display().to_string();
        let now = time::OffsetDateTime::now_utc();
        let last = match ran.result {
            Ok(changes) => {
                layer.failures = 0;
                layer.version.clone_from(&changes.version);
                // Earlier stamps stay: a late event for an untouched file is still ours.
                layer.own.extend(ran.own);
                log(&monorepo, &path, &changes);
                LastSync {
                    path,
                    at: now,
                    checked_at: now,
                    outcome: if changes.conflicts.is_empty() {
                        SyncOutcome::Synced
                    } else {
                        SyncOutcome::Conflicts
                    },
                    error: None,
                    changes,
                }
            }
            Err(error) => {
                layer.failures = layer.failures.saturating_add(1);
                tracing::warn!(%monorepo, "meta sync of {path} failed: {error}");
                LastSync {
                    path,
                    at: now,
                    checked_at: now,
                    outcome: SyncOutcome::Failed,
                    error: Some(error),
                    changes: MetaChanges::default(),
                }
            }
        };
        if let Ok(mut state) = self.shared.lock()
            && let Some(f) = state.followed.get_mut(&layer.key)
        {
            match f.syncs.iter_mut().find(|s| s.path == last.path) {
                // A sync with nothing to do keeps what the last real one did.
                Some(kept) if idle(&last) && kept.outcome != SyncOutcome::Failed => {
                    kept.checked_at = now;
                }
                Some(kept) => *kept = last,
                None => f.syncs.push(last),
            }
        }
        let held = std::mem::take(&mut layer.held);
        let changed = held.iter().any(|p| !layer.ours(p));
        let moved = layer.moved.take();
        let again = std::mem::take(&mut layer.again)
            || moved.is_some_and(|head| layer.version != Some(head));
        // After a failure with nothing else asking: try again after a backoff.
        let retry = (layer.failures > 0).then(|| {
            let wait = RETRY.saturating_mul(1 << layer.failures.min(8)) / 2;
            wait.min(RETRY_MAX)
        });
        let root = ran.path;
        if !layer.watched {
            // The sync made `.svc/` again.
            self.ensure_watched(&root);
        }
        if again {
            self.request(&root);
        } else if changed {
            self.later(&root);
        } else if let Some(wait) = retry
            && let Some(layer) = self.layers.get_mut(&root)
            && layer.due.is_none()
        {
            let now = Instant::now();
            layer.due = Some((now + wait, now));
        }
    }

    fn paths_of(&self, key: &str) -> Vec<PathBuf> {
        self.layers
            .iter()
            .filter(|(_, l)| l.key == key)
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// Watches the clone's `.svc/` (made when missing); true when newly watched.
    fn ensure_watched(&mut self, path: &Path) -> bool {
        let Some(layer) = self.layers.get_mut(path) else {
            return false;
        };
        if layer.watched {
            return false;
        }
        if let Err(e) = std::fs::create_dir_all(&layer.svc) {
            tracing::warn!("cannot make {}: {e}", layer.svc.display());
            return false;
        }
        layer.watched = self.watch.add(&layer.svc, true);
        layer.watched
    }

    /// Syncs after the quiet period (at most `QUIET_MAX` after the first change).
    fn later(&mut self, path: &Path) {
        if let Some(layer) = self.layers.get_mut(path) {
            let now = Instant::now();
            let first = layer.due.map_or(now, |d| d.1);
            layer.due = Some(((now + QUIET).min(first + QUIET_MAX), first));
        }
    }

    /// Syncs now, or once more when a sync is running. A pending quiet period is
    /// waited out (its sync will carry this one); a pending retry is not.
    fn request(&mut self, path: &Path) {
        let Some(layer) = self.layers.get_mut(path) else {
            return;
        };
        if layer.running {
            layer.again = true;
            return;
        }
        if layer.due.is_some() {
            if layer.failures == 0 {
                return;
            }
            layer.due = None;
        }
        if self.runs.len() >= SYNCS_AT_ONCE {
            layer.queued = true;
            return;
        }
        layer.running = true;
        layer.queued = false;
        let clone = layer.clone.clone();
        let svc = layer.svc.clone();
        let sync = self.sync.clone();
        self.runs.spawn_blocking(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sync(&clone)))
                .unwrap_or_else(|_| {
                    Err("the sync failed unexpectedly (a bug): see the log".to_owned())
                });
            let own = match &result {
                Ok(changes) => written(changes)
                    .map(|p| (p.to_owned(), stamp(&svc.join(p))))
                    .collect(),
                Err(_) => BTreeMap::new(),
            };
            Ran {
                path: clone.path,
                result,
                own,
            }
        });
    }
}

impl Layer {
    /// True when the change at `path` is the sync's own doing (its private files, or a
    /// file still as the last sync left it) rather than an edit.
    fn ours(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.svc) else {
            return true;
        };
        if rel.as_os_str().is_empty() {
            return false;
        }
        let mut parts = Vec::new();
        for part in rel.components() {
            let part = part.as_os_str().to_string_lossy();
            if part.starts_with(PRIVATE_PREFIX) {
                return true;
            }
            parts.push(part);
        }
        let rel = parts.join("/");
        if let Some(then) = self.own.get(&rel) {
            return *then == stamp(path);
        }
        let folder = format!("{rel}/");
        if !path.exists() {
            // A folder a deletion emptied.
            return self.own.keys().any(|k| k.starts_with(&folder));
        }
        // A folder a download made: every file in it as the sync left it.
        path.is_dir() && self.all_ours(path, &folder)
    }

    fn all_ours(&self, dir: &Path, prefix: &str) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        entries.flatten().all(|entry| {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            if file_name.starts_with(PRIVATE_PREFIX) {
                return true;
            }
            let name = format!("{prefix}{file_name}");
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                self.all_ours(&entry.path(), &format!("{name}/"))
            } else {
                self.own
                    .get(&name)
                    .is_some_and(|then| *then == stamp(&entry.path()))
            }
        })
    }
}

/// Every path a sync wrote, relative to `.svc/`.
fn written(changes: &MetaChanges) -> impl Iterator<Item = &str> {
    changes
        .downloaded
        .iter()
        .chain(&changes.deleted)
        .map(String::as_str)
        .chain(
            changes
                .conflicts
                .iter()
                .flat_map(|c| std::iter::once(c.path.as_str()).chain(c.copy.as_deref())),
        )
}

fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// A successful sync that changed nothing.
fn idle(sync: &LastSync) -> bool {
    let c = &sync.changes;
    sync.outcome == SyncOutcome::Synced
        && c.saved.is_empty()
        && c.downloaded.is_empty()
        && c.deleted.is_empty()
}

fn log(monorepo: &str, path: &str, c: &MetaChanges) {
    if c.saved.is_empty()
        && c.downloaded.is_empty()
        && c.deleted.is_empty()
        && c.conflicts.is_empty()
    {
        tracing::debug!(%monorepo, "meta sync of {path}: nothing to do");
        return;
    }
    tracing::info!(
        %monorepo,
        saved = ?c.saved,
        downloaded = ?c.downloaded,
        deleted = ?c.deleted,
        "meta sync of {path}"
    );
    for conflict in &c.conflicts {
        match &conflict.copy {
            Some(copy) => tracing::warn!(
                %monorepo,
                "edited here and on another machine: .svc/{} is the server's, yours is .svc/{copy}",
                conflict.path
            ),
            None => tracing::warn!(
                %monorepo,
                "deleted here but edited on another machine: .svc/{} is back",
                conflict.path
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn layer(svc: &Path) -> Layer {
        Layer {
            key: "k".into(),
            clone: MetaClone {
                server: "http://x".into(),
                monorepo: "o/m".into(),
                path: svc.parent().unwrap().to_path_buf(),
            },
            svc: svc.to_path_buf(),
            on: true,
            watched: true,
            running: false,
            queued: false,
            again: false,
            moved: None,
            failures: 0,
            due: None,
            version: None,
            own: BTreeMap::new(),
            held: Vec::new(),
        }
    }

    #[test]
    fn tells_the_syncs_writes_from_edits() {
        let dir = tempfile::tempdir().unwrap();
        let svc = dir.path().join(".svc");
        std::fs::create_dir_all(svc.join("notes/deep")).unwrap();
        std::fs::write(svc.join("notes/deep/a.md"), "a").unwrap();
        std::fs::write(svc.join("b.md"), "b").unwrap();
        let mut l = layer(&svc);
        // What a sync downloaded and deleted, stamped as it left them.
        for path in ["notes/deep/a.md", "gone/c.md"] {
            l.own.insert(path.into(), stamp(&svc.join(path)));
        }

        assert!(l.ours(&svc.join(".sync-state")));
        assert!(l.ours(&svc.join("notes/.sync-tmp-1")));
        assert!(l.ours(&svc.join("notes/deep/a.md")));
        assert!(l.ours(&svc.join("notes")), "a folder of downloads");
        assert!(l.ours(&svc.join("gone")), "a folder a deletion emptied");
        assert!(l.ours(&svc.join("gone/c.md")));
        assert!(!l.ours(&svc.join("b.md")), "never written by a sync");
        assert!(!l.ours(&svc), "the folder itself");

        // An edit after the sync, a file added to its folder, a deletion: not ours.
        std::fs::write(svc.join("notes/deep/new.md"), "new").unwrap();
        assert!(!l.ours(&svc.join("notes")));
        std::fs::write(svc.join("notes/deep/a.md"), "edited").unwrap();
        assert!(!l.ours(&svc.join("notes/deep/a.md")));
        assert!(!l.ours(&svc.join("b.md")));
        std::fs::remove_file(svc.join("b.md")).unwrap();
        assert!(!l.ours(&svc.join("b.md")));
    }
}
