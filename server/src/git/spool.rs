//! Where pushes are spooled: `<data dir>/tmp/pushes-<id>/`, one folder per server
//! process, whose `pushes-<id>.lock` that process holds locked for its whole life.
//!
//! Server processes on one PostgreSQL share the data dir, so a folder is removed only
//! when its lock is free: its process died (a crash, `kill -9`) and left it behind.
//! [`remove_leftovers`] does that at start.

use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// This process's spool folder.
pub struct SpoolDir {
    path: PathBuf,
    /// Locked while the process lives; the kernel frees it however the process ends.
    _lock: File,
}

impl SpoolDir {
    /// Makes and locks this process's folder.
    pub fn create(data_dir: &Path) -> std::io::Result<SpoolDir> {
        let tmp = data_dir.join("tmp");
        std::fs::create_dir_all(&tmp)?;
        // Locked under another name, then renamed: a lock file never shows unlocked.
        // Another process's `remove_leftovers` may take the new file in the moment
        // before it is locked (as it takes one a killed process left): then again.
        let mut tries = 0;
        let (id, lock) = loop {
            let id = crate::token::new_id("");
            let fresh = tmp.join(format!("pushes-{id}.lock.new"));
            let lock = File::create(&fresh)?;
            lock.lock()?;
            match std::fs::rename(&fresh, tmp.join(format!("pushes-{id}.lock"))) {
                Ok(()) => break (id, lock),
                Err(e) if e.kind() == ErrorKind::NotFound && tries < 3 => tries += 1,
                Err(e) => return Err(e),
            }
        };
        let path = tmp.join(format!("pushes-{id}"));
        std::fs::create_dir(&path)?;
        Ok(SpoolDir { path, _lock: lock })
    }

    /// The folder itself.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A new spool file's path.
    pub fn file(&self) -> PathBuf {
        self.path.join(format!("push-{}", crate::token::new_id("")))
    }
}

/// Removes the spool folders of server processes that died.
pub fn remove_leftovers(data_dir: &Path) {
    let tmp = data_dir.join("tmp");
    let Ok(entries) = std::fs::read_dir(&tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        // A lock file a process died making: unlocked, it is no live process's.
        if name.to_str().is_some_and(|n| n.ends_with(".lock.new")) {
            if File::open(entry.path()).is_ok_and(|f| f.try_lock().is_ok()) {
                let _ = std::fs::remove_file(entry.path());
            }
            continue;
        }
        let Some(id) = name
            .to_str()
            .and_then(|n| n.strip_prefix("pushes-"))
            .and_then(|n| n.strip_suffix(".lock"))
        else {
            continue;
        };
        let Ok(lock) = File::options().write(true).open(entry.path()) else {
            continue;
        };
        if lock.try_lock().is_err() {
            continue; // a live process's
        }
        let dir = tmp.join(format!("pushes-{id}"));
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => tracing::info!(dir = %dir.display(), "removed a dead process's push spools"),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot remove leftover push spools");
                continue;
            }
        }
        let _ = std::fs::remove_file(entry.path());
    }
}

#[cfg(test)]
mod tests {
    use super::{SpoolDir, remove_leftovers};

    #[test]
    fn leftovers_of_dead_processes_go_and_live_ones_stay() {
        let data = tempfile::tempdir().expect("temp dir");
        let live = SpoolDir::create(data.path()).expect("spool dir");
        std::fs::write(live.file(), b"in flight").expect("spool");
        let dead = SpoolDir::create(data.path()).expect("spool dir");
        let left = dead.file();
        std::fs::write(&left, b"half a push").expect("spool");
        drop(dead);
        // A lock file a process was killed making, before it was renamed.
        let half_made = data.path().join("tmp/pushes-killed.lock.new");
        std::fs::write(&half_made, b"").expect("lock file");
        // Another test's thread forking a child holds a copy of every open descriptor,
        // the dropped lock's too, until the child execs: try again past that moment.
        for _ in 0..50 {
            remove_leftovers(data.path());
            if !left.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!left.exists(), "the dead process's spool is removed");
        assert!(!half_made.exists(), "the half-made lock file is removed");
        let names: Vec<String> = std::fs::read_dir(data.path().join("tmp"))
            .expect("tmp")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names.len(),
            2,
            "only the live folder and its lock: {names:?}"
        );
        assert_eq!(
            std::fs::read_dir(&live.path).expect("live folder").count(),
            1,
            "the live process's spool stays"
        );
    }
}
