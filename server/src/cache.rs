//! Finished streamed diffs, kept in memory so that asking again replays them.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use axum::body::Bytes;

/// Bytes of finished streams kept for replay, in all.
const CACHE_BYTES: usize = 256 * 1024 * 1024;

/// Finished streams by (repo, main, head), oldest dropped first past [`CACHE_BYTES`].
#[derive(Default)]
pub struct DiffStreams(Mutex<(HashMap<DiffKey, Bytes>, VecDeque<DiffKey>, usize)>);

/// What a finished stream is kept by.
pub type DiffKey = (String, String, String);

impl DiffStreams {
    pub fn get(&self, key: &DiffKey) -> Option<Bytes> {
        self.0.lock().ok()?.0.get(key).cloned()
    }

    pub fn put(&self, key: DiffKey, bytes: Bytes) {
        let Ok(mut guard) = self.0.lock() else { return };
        let (map, order, size) = &mut *guard;
        *size += bytes.len();
        if map.insert(key.clone(), bytes).is_none() {
            order.push_back(key);
        }
        while *size > CACHE_BYTES {
            let Some(old) = order.pop_front() else { break };
            if let Some(b) = map.remove(&old) {
                *size -= b.len();
            }
        }
    }
}
