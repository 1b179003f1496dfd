//! Filesystem watches (notify): the config dir's registries and each clone's `.svc/`.
//! Events go into a tokio channel as they come; the daemon debounces them itself.

use std::path::{Path, PathBuf};

use notify::{Event, EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc::UnboundedSender;

/// What the watches saw.
#[derive(Debug)]
pub enum Seen {
    /// Something changed at these paths.
    Paths(Vec<PathBuf>),
    /// Events were lost (a queue overflowed, a watch limit was hit): look at everything.
    Rescan,
}

/// One watcher (one inotify instance on Linux) for every watched folder.
pub struct Watch {
    watcher: Option<notify::RecommendedWatcher>,
}

impl Watch {
    pub fn new(seen: UnboundedSender<Seen>) -> Watch {
        let handler = move |event: notify::Result<Event>| {
            let found = match event {
                Ok(e) if e.need_rescan() => Seen::Rescan,
                // Reads (the sync hashing files, an editor opening one) change nothing.
                Ok(Event {
                    kind: EventKind::Access(_),
                    ..
                }) => return,
                Ok(e) => Seen::Paths(e.paths),
                Err(e) => {
                    tracing::warn!("watching files: {e}");
                    if !matches!(e.kind, notify::ErrorKind::MaxFilesWatch) {
                        return;
                    }
                    Seen::Rescan
                }
            };
            let _ = seen.send(found);
        };
        let watcher = notify::recommended_watcher(handler)
            .inspect_err(|e| {
                tracing::warn!(
                    "cannot watch files ({e}): only the periodic rescan notices changes"
                );
            })
            .ok();
        Watch { watcher }
    }

    /// Watches `dir` (and, when `recursive`, everything under it); false when it cannot.
    pub fn add(&mut self, dir: &Path, recursive: bool) -> bool {
        let Some(watcher) = &mut self.watcher else {
            return false;
        };
        let mode = if recursive {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        match watcher.watch(dir, mode) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!("cannot watch {}: {e}", dir.display());
                false
            }
        }
    }

    pub fn remove(&mut self, dir: &Path) {
        if let Some(watcher) = &mut self.watcher {
            let _ = watcher.unwatch(dir);
        }
    }
}
