//! Open sockets by credential, so that a revocation stops them before it answers.
//!
//! A socket writes a frame only through its [`Gate`], holding it while the write is in
//! flight. Revoking shuts every gate of the credential at once, then waits for the writes
//! in flight: once the revocation answers, none of its sockets writes another frame,
//! and each one closes with 4403 as soon as its loop wakes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::{MutexGuard, watch};

/// The open sockets of this process, by credential id.
#[derive(Default)]
pub struct SocketGates {
    open: Mutex<HashMap<String, Vec<Weak<Gate>>>>,
}

/// One socket's gate.
pub struct Gate {
    /// Held while a frame is written.
    writing: tokio::sync::Mutex<()>,
    shut: watch::Sender<bool>,
}

/// A socket's registration; dropping it forgets the socket.
pub struct Opened {
    pub gate: Arc<Gate>,
    gates: Arc<SocketGates>,
    credential_id: String,
}

impl SocketGates {
    /// The gate of a new socket of `credential_id`.
    pub fn open(self: &Arc<Self>, credential_id: &str) -> Opened {
        let gate = Arc::new(Gate {
            writing: tokio::sync::Mutex::new(()),
            shut: watch::Sender::new(false),
        });
        if let Ok(mut open) = self.open.lock() {
            open.entry(credential_id.to_owned())
                .or_default()
                .push(Arc::downgrade(&gate));
        }
        Opened {
            gate,
            gates: self.clone(),
            credential_id: credential_id.to_owned(),
        }
    }

    /// Shuts every gate of `credential_id`: no write starts after this returns.
    /// Answers the gates, to wait on the writes in flight.
    pub fn shut(&self, credential_id: &str) -> Vec<Arc<Gate>> {
        let gates: Vec<Arc<Gate>> = self
            .open
            .lock()
            .ok()
            .and_then(|mut open| open.remove(credential_id))
            .unwrap_or_default()
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for gate in &gates {
            gate.shut.send_replace(true);
        }
        gates
    }

    /// Shuts every gate of `credential_id` and waits until no write of theirs is in
    /// flight (each write is bounded by its socket's send timeout).
    pub async fn shut_and_wait(&self, credential_id: &str) {
        for gate in self.shut(credential_id) {
            drop(gate.writing.lock().await);
        }
    }
}

impl Gate {
    /// Leave to write one frame (or one batch), or `None` once shut.
    pub async fn enter(&self) -> Option<MutexGuard<'_, ()>> {
        let guard = self.writing.lock().await;
        (!*self.shut.borrow()).then_some(guard)
    }

    /// Resolves once the gate is shut.
    pub async fn shut(&self) {
        let _ = self.shut.subscribe().wait_for(|shut| *shut).await;
    }
}

impl Drop for Opened {
    fn drop(&mut self) {
        if let Ok(mut open) = self.gates.open.lock()
            && let Some(list) = open.get_mut(&self.credential_id)
        {
            list.retain(|g| g.strong_count() > 0 && !std::ptr::eq(g.as_ptr(), &*self.gate));
            if list.is_empty() {
                open.remove(&self.credential_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SocketGates;
    use std::sync::Arc;

    #[tokio::test]
    async fn a_shut_gate_lets_no_write_in_and_waits_for_the_one_in_flight() {
        let gates = Arc::new(SocketGates::default());
        let a = gates.open("c1");
        let other = gates.open("c2");
        let writing = a.gate.enter().await.expect("open");
        let gates2 = gates.clone();
        let revoke = tokio::spawn(async move { gates2.shut_and_wait("c1").await });
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        assert!(!revoke.is_finished(), "waits for the write in flight");
        drop(writing);
        revoke.await.expect("revoked");
        assert!(a.gate.enter().await.is_none());
        a.gate.shut().await;
        assert!(
            other.gate.enter().await.is_some(),
            "other credentials stay open"
        );
        drop(a);
        drop(other);
        assert!(
            gates.open.lock().expect("lock").is_empty(),
            "closed sockets are forgotten"
        );
    }
}
