//! The server's private memory: what it holds itself, not the packs it maps (those are
//! the page cache's, shared with every git process reading them).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Private_Clean + Private_Dirty of every mapping of `pid` that is not file-backed
/// (heap, stacks, anonymous maps), in kB, from `/proc/<pid>/smaps`.
pub fn private_kb(pid: u32) -> Option<u64> {
    let smaps = std::fs::read_to_string(format!("/proc/{pid}/smaps")).ok()?;
    let mut total = 0;
    let mut file_backed = false;
    for line in smaps.lines() {
        let mut fields = line.split_whitespace();
        let Some(first) = fields.next() else {
            continue;
        };
        if first.contains('-') && !first.ends_with(':') {
            // A mapping's header: `start-end perms offset dev inode [path]`.
            file_backed = fields.nth(4).is_some_and(|path| path.starts_with('/'));
        } else if !file_backed && matches!(first, "Private_Clean:" | "Private_Dirty:") {
            total += fields
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Some(total)
}

/// Reads the private memory of the server (whichever process it currently is) every
/// 100 ms; keeps the peak since the last [`MemoryPoller::take_peak`] and over the run.
pub struct MemoryPoller {
    pid: Arc<AtomicU32>,
    stop: Arc<AtomicBool>,
    peaks: Arc<Mutex<(u64, u64)>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MemoryPoller {
    pub fn start(pid: u32) -> MemoryPoller {
        let pid = Arc::new(AtomicU32::new(pid));
        let stop = Arc::new(AtomicBool::new(false));
        let peaks = Arc::new(Mutex::new((0, 0)));
        let (p, s, k) = (Arc::clone(&pid), Arc::clone(&stop), Arc::clone(&peaks));
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Acquire) {
                if let Some(kb) = private_kb(p.load(Ordering::Acquire))
                    && let Ok(mut peaks) = k.lock()
                {
                    peaks.0 = peaks.0.max(kb);
                    peaks.1 = peaks.1.max(kb);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        MemoryPoller {
            pid,
            stop,
            peaks,
            thread: Some(thread),
        }
    }

    /// Follows a restarted server.
    pub fn follow(&self, pid: u32) {
        self.pid.store(pid, Ordering::Release);
    }

    /// The peak since the last call, in kB (then starts a new interval).
    pub fn take_peak(&self) -> u64 {
        let now = private_kb(self.pid.load(Ordering::Acquire)).unwrap_or(0);
        let mut peaks = self.peaks.lock().unwrap_or_else(|e| e.into_inner());
        let peak = peaks.0.max(now);
        peaks.0 = now;
        peaks.1 = peaks.1.max(now);
        peak
    }

    /// The peak over the whole run, in kB.
    pub fn overall_peak(&self) -> u64 {
        self.peaks.lock().map_or(0, |p| p.1)
    }
}

impl Drop for MemoryPoller {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
