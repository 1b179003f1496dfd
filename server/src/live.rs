//! STAND-IN for the lead's `crate::live` (server/src/live/): delete this file on merge.
//! Same signature: [`Live::bell`] changes after events may have been appended. This
//! stand-in simply rings every 200 ms, which is enough for a tail to poll.

use std::time::Duration;

use tokio::sync::watch;

pub struct Live {
    bell: watch::Receiver<u64>,
}

impl Live {
    /// Starts ringing; must run inside the runtime.
    pub fn start() -> Live {
        let (tx, bell) = watch::channel(0);
        tokio::spawn(async move {
            let mut n = 0u64;
            loop {
                tokio::time::sleep(Duration::from_millis(200)).await;
                n += 1;
                if tx.send(n).is_err() {
                    return;
                }
            }
        });
        Live { bell }
    }

    /// A receiver that changes after appended events may have committed.
    pub fn bell(&self) -> watch::Receiver<u64> {
        self.bell.clone()
    }
}
